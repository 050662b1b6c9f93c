/**
 * The windows of a series and how a request finds its windows, as SQL: fixed windows (the step is the
 * size), sliding windows (`size` long, one starting every `slide`) and the contract's stages. Window i
 * of a fixed or sliding series is [i·step, i·step + size) in ms since the run's first send; a stage
 * series' window i is stage i. Every number enters the SQL as a bound parameter.
 */
import type { AnalysisOptions, StageWindow } from '../options';
import type { SqlParams } from '../sql/params';

export type WindowSpec =
  | { kind: 'fixed'; sizeMs: number }
  | { kind: 'sliding'; sizeMs: number; slideMs: number }
  | { kind: 'stages'; stages: readonly StageWindow[] };

/** The series the options ask for: stages when declared, else sliding when a slide is given, else fixed. */
export function windowSpecOf(options: AnalysisOptions): WindowSpec {
  if (options.stages !== undefined && options.stages.length > 0) return { kind: 'stages', stages: options.stages };
  return seriesWindowSpec(options);
}

/** The fixed or sliding series of the options (never stages). */
export function seriesWindowSpec(options: AnalysisOptions): WindowSpec {
  const size = options.windowSizeMs;
  if (!(Number.isFinite(size) && size > 0)) throw new Error(`window size must be a positive number of ms, got ${size}`);
  const slide = options.windowSlideMs;
  if (slide !== undefined && Number.isFinite(slide) && slide > 0 && slide < size) return { kind: 'sliding', sizeMs: size, slideMs: slide };
  return { kind: 'fixed', sizeMs: size };
}

/** The distance between window starts (fixed: the size). */
export function stepOf(spec: WindowSpec): number {
  return spec.kind === 'sliding' ? spec.slideMs : spec.kind === 'fixed' ? spec.sizeMs : 0;
}

/** Window i's [start, end) in ms. */
export function windowBounds(spec: WindowSpec, index: number): { start: number; end: number; label: string | null } {
  if (spec.kind === 'stages') {
    const s = spec.stages[index];
    return { start: s.startMs, end: s.endMs, label: s.label };
  }
  const start = index * stepOf(spec);
  return { start, end: start + spec.sizeMs, label: null };
}

/**
 * SQL for the list of window indices that hold the instant `t` (BIGINT[]; empty when none does): one
 * index for a fixed window or a stage, size/slide of them for a sliding series.
 */
export function windowsAtSql(spec: WindowSpec, time: string, params: SqlParams): string {
  // Parenthesised: `time` may be an expression (`offset_ms + client_total_ms`).
  const t = `(${time})`;
  if (spec.kind === 'fixed') return `[CAST(floor(${t} / ${params.bind(spec.sizeMs)}::DOUBLE) AS BIGINT)]`;
  if (spec.kind === 'sliding') {
    const size = params.bind(spec.sizeMs);
    const slide = params.bind(spec.slideMs);
    return `range(CAST(floor((${t} - ${size}::DOUBLE) / ${slide}::DOUBLE) AS BIGINT) + 1, CAST(floor(${t} / ${slide}::DOUBLE) AS BIGINT) + 1)`;
  }
  const arms = spec.stages.map((s, i) => `WHEN ${t} >= ${params.bind(s.startMs)}::DOUBLE AND ${t} < ${params.bind(s.endMs)}::DOUBLE THEN [${i}::BIGINT]`);
  return `CASE ${arms.join(' ')} ELSE []::BIGINT[] END`;
}

/**
 * SQL for the list of windows that the interval [s, e) overlaps (e > s), each window's overlap with it
 * computed by overlapSql. Fixed and sliding: from the first window that ends after s to the last that
 * starts before e.
 */
export function windowsOverlappingSql(spec: WindowSpec, start: string, end: string, params: SqlParams): string {
  const s = `(${start})`;
  const e = `(${end})`;
  if (spec.kind === 'stages') {
    const arms = spec.stages.map((st, i) => `CASE WHEN ${s} < ${params.bind(st.endMs)}::DOUBLE AND ${e} > ${params.bind(st.startMs)}::DOUBLE THEN ${i}::BIGINT END`);
    return `list_filter([${arms.join(', ')}], lambda x: x IS NOT NULL)`;
  }
  const size = params.bind(spec.sizeMs);
  const step = params.bind(stepOf(spec));
  return `range(CAST(floor((${s} - ${size}::DOUBLE) / ${step}::DOUBLE) AS BIGINT) + 1, CAST(ceil(${e} / ${step}::DOUBLE) AS BIGINT))`;
}

/** SQL for the overlap (ms) of [s, e) with window `idx`. */
export function overlapSql(spec: WindowSpec, index: string, start: string, end: string, params: SqlParams): string {
  const idx = `(${index})`;
  const s = `(${start})`;
  const e = `(${end})`;
  if (spec.kind === 'stages') {
    const starts = `[${spec.stages.map((st) => `${params.bind(st.startMs)}::DOUBLE`).join(', ')}]`;
    const ends = `[${spec.stages.map((st) => `${params.bind(st.endMs)}::DOUBLE`).join(', ')}]`;
    return `greatest(0, least(${e}, ${ends}[${idx} + 1]) - greatest(${s}, ${starts}[${idx} + 1]))`;
  }
  const size = params.bind(spec.sizeMs);
  const step = params.bind(stepOf(spec));
  return `greatest(0, least(${e}, ${idx} * ${step}::DOUBLE + ${size}::DOUBLE) - greatest(${s}, ${idx} * ${step}::DOUBLE))`;
}
