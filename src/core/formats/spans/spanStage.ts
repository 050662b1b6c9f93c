/**
 * The second half of every span reader: a staging table (SPAN_STAGE_COLUMNS) filled by the
 * format-specific SQL is checked, deduplicated and published to `spans` and `span_events`, and
 * everything doubtful is written to load_issues. Keeping this in one place means OTLP, Jaeger and
 * Zipkin files obey the same rules (what counts as a duplicate, what a unit mistake looks like).
 */
import * as path from 'path';
import { assertIdentifier } from '../input/ndjsonLines';
import { PLAUSIBLE_FROM_NS, PLAUSIBLE_TO_NS, SPAN_STAGE_COLUMNS } from './spanSql';
import { recordSkips } from '../skips';
import { InputError } from '../../errors';
import type { ReaderContext } from '../types';

export interface FinishOptions {
  /**
   * How duplicates are recognised.
   * - 'span-id': (trace_id, span_id) is the span's identity (OTLP: the spec makes span IDs unique in
   *   a trace), so a repeat is the same span exported twice (retries, overlapping exports).
   * - 'exact': only rows equal in (trace_id, span_id, kind, service, start, end) are duplicates.
   *   Zipkin B3 "shared" spans give the client and the server half the same ID, and real Zipkin data
   *   has one ID recorded several times at different times: those are different observations.
   */
  dedupe: 'span-id' | 'exact';
  /** Unit the source wrote its times in, for the unit-mistake warning. */
  sourceUnit: 'ns' | 'µs';
}

export interface FinishResult {
  /** Rows appended to `spans`. */
  records: number;
  /** Staged spans dropped (no trace or span ID), each counted in load_issues. */
  skipped: number;
}

/** The columns that make two staged rows copies of one span (FinishOptions.dedupe). */
function dedupeKeySql(options: FinishOptions): string {
  return options.dedupe === 'span-id' ? 'trace_id, span_id' : 'trace_id, span_id, kind, service, start_ns, end_ns';
}

/** All-zero IDs are invalid by the W3C Trace Context (and OTLP): a writer that never set the ID. */
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/**
 * The staged line of a document reader's row (Jaeger, Zipkin): negative when the element is not a
 * span object (`is_span` false), for takeMalformedElements.
 */
export const MARKED_LINE_SQL = 'CASE WHEN is_span THEN line ELSE -line END';

/**
 * Records and removes the staged rows of elements that are not span objects (MARKED_LINE_SQL):
 * each a 'malformed-element' cited by its element number. Returns how many.
 */
export async function takeMalformedElements(ctx: ReaderContext, table: string, expected: string): Promise<number> {
  const t = assertIdentifier(table);
  const [{ n }] = await ctx.store.all<{ n: number }>(`SELECT count(*) AS n FROM ${t} WHERE line < 0`);
  if (n === 0) return 0;
  await ctx.store.run(
    `INSERT INTO load_issues SELECT $1, -line, 'warning', 'malformed-element', $2 FROM ${t} WHERE line < 0 ORDER BY -line`,
    [ctx.sourceId, `expected ${expected}, found another JSON value; skipped`],
  );
  await recordSkips(ctx.store, ctx.sourceId, 'malformed-element', n);
  await ctx.store.run(`DELETE FROM ${t} WHERE line < 0`);
  return n;
}

/** Creates (or replaces) an empty staging table with the shared span columns. */
export async function createSpanStage(ctx: ReaderContext, table: string): Promise<void> {
  const t = assertIdentifier(table);
  await ctx.store.run(`DROP TABLE IF EXISTS ${t}`);
  await ctx.store.run(`CREATE TEMP TABLE ${t} ${SPAN_STAGE_COLUMNS}`);
}

/** The checks of a filled stage, computed in one pass (checkStage); each count comes with its first line. */
export type StageChecks = {
  total: number;
  no_id: number;
  no_id_line: number | null;
  dup: number;
  dup_line: number | null;
  dup_conflict: number;
  /** Dropped copies that differ from the kept one in some field of DIFF_FIELDS; dup_diff_<column> per field. */
  dup_differs: number;
  implausible: number;
  implausible_line: number | null;
  implausible_value: string | null;
  no_time: number;
  no_time_line: number | null;
  negative: number;
  negative_line: number | null;
  shared: number;
  shared_line: number | null;
  bad_id: number;
  bad_id_line: number | null;
};

/** Publishes the staging table to spans/span_events (deduplicated) and records the checks. Drops the stage. */
export async function finishSpans(ctx: ReaderContext, table: string, options: FinishOptions): Promise<FinishResult> {
  return publishStage(ctx, table, await checkStage(ctx, table, options), options);
}

/**
 * True when a check found something whose report cites a line (a duplicate, a span without IDs, a
 * doubtful time or ID): a stage filled without line numbers (the OTLP fast path) must then be
 * refilled with them before publishing, so that every load_issues row names its line.
 */
export function checksCiteLines(s: StageChecks): boolean {
  return s.no_id + s.dup + s.implausible + s.no_time + s.negative + s.shared + s.bad_id > 0;
}

/**
 * What a dropped copy of a span can differ in from the kept one (its dedupe key aside), each named in
 * the duplicate-span note: a row that differs is not "the same span exported again".
 */
const DIFF_FIELDS: readonly { column: string; label: string; sql: string }[] = [
  { column: 'name', label: 'name', sql: 'name' },
  { column: 'kind', label: 'kind', sql: 'kind' },
  { column: 'service', label: 'service', sql: 'service' },
  { column: 'times', label: 'start or end time', sql: '(start_ns, end_ns)' },
  { column: 'parent', label: 'parent', sql: 'parent_span_id' },
  { column: 'status', label: 'status', sql: 'status' },
  { column: 'tags', label: 'tags or attributes', sql: '(attributes::VARCHAR, otlp_attributes)' },
  { column: 'events', label: 'events or annotations', sql: 'events::VARCHAR' },
];

/** Runs the checks of finishSpans over the stage without publishing it. */
export async function checkStage(ctx: ReaderContext, table: string, options: FinishOptions): Promise<StageChecks> {
  const t = assertIdentifier(table);
  ctx.progress?.(`checking the spans of ${path.basename(ctx.path)} (IDs, duplicates, times)`);
  const key = dedupeKeySql(options);
  // Why a first, cheap count: the window functions below (four partitionings of every row) were
  // nearly all of the cost of the checks (bench 100k run, 690k spans: 2.0–2.2 CPU s with them,
  // 0.5–0.6 s for this count plus the plain aggregate), and real exports rarely repeat a span.
  // When every (trace_id, span_id) is distinct, no key has copies (the 'exact' key contains it), so
  // every row is the first and only one of its key and of its ID: the windowed values are all 1 and
  // the same checks run as one plain aggregate.
  const [ids] = await ctx.store.all<{ rows: number; distinct_ids: number }>(
    `SELECT count(*) AS rows, count(DISTINCT (trace_id, span_id)) AS distinct_ids
     FROM ${t} WHERE trace_id IS NOT NULL AND span_id IS NOT NULL`,
  );
  const fast = ids.rows === ids.distinct_ids;
  const windows = fast
    ? `1 AS copies, 1 AS variants, 1 AS same_id, 1 AS nth, ${DIFF_FIELDS.map((f) => `false AS diff_${f.column}`).join(', ')}`
    : `count(*) OVER (PARTITION BY ${key}) AS copies,
              count(DISTINCT kind || coalesce(service, '') || start_ns || '/' || end_ns) OVER (PARTITION BY trace_id, span_id) AS variants,
              count(*) OVER (PARTITION BY trace_id, span_id) AS same_id,
              row_number() OVER (PARTITION BY ${key} ORDER BY line) AS nth,
              ${DIFF_FIELDS.map((f) => `${f.sql} IS DISTINCT FROM first_value(${f.sql}) OVER (PARTITION BY ${key} ORDER BY line) AS diff_${f.column}`).join(', ')}`;
  // One pass over the stage computes every check; the windows see rows with both IDs only.
  const [s] = await ctx.store.all<StageChecks>(
    `WITH k AS (
       SELECT line, trace_id, span_id, start_ns, end_ns,
              ${windows}
       FROM ${t} WHERE trace_id IS NOT NULL AND span_id IS NOT NULL)
     SELECT (SELECT count(*) FROM ${t}) AS total,
            (SELECT count(*) FROM ${t} WHERE trace_id IS NULL OR span_id IS NULL) AS no_id,
            (SELECT min(line) FROM ${t} WHERE trace_id IS NULL OR span_id IS NULL) AS no_id_line,
            count(*) FILTER (WHERE nth > 1) AS dup,
            min(line) FILTER (WHERE nth > 1) AS dup_line,
            count(*) FILTER (WHERE nth > 1 AND variants > 1) AS dup_conflict,
            count(*) FILTER (WHERE nth > 1 AND (${DIFF_FIELDS.map((f) => `diff_${f.column}`).join(' OR ')})) AS dup_differs,
            ${DIFF_FIELDS.map((f) => `count(*) FILTER (WHERE nth > 1 AND diff_${f.column}) AS dup_diff_${f.column}`).join(', ')},
            count(*) FILTER (WHERE nth = 1 AND (start_ns < $1 OR start_ns > $2)) AS implausible,
            min(line) FILTER (WHERE nth = 1 AND (start_ns < $1 OR start_ns > $2)) AS implausible_line,
            arg_min(start_ns::VARCHAR, line) FILTER (WHERE nth = 1 AND (start_ns < $1 OR start_ns > $2)) AS implausible_value,
            count(*) FILTER (WHERE nth = 1 AND (start_ns IS NULL OR end_ns IS NULL)) AS no_time,
            min(line) FILTER (WHERE nth = 1 AND (start_ns IS NULL OR end_ns IS NULL)) AS no_time_line,
            count(*) FILTER (WHERE nth = 1 AND end_ns < start_ns) AS negative,
            min(line) FILTER (WHERE nth = 1 AND end_ns < start_ns) AS negative_line,
            count(*) FILTER (WHERE nth = 1 AND same_id > copies) AS shared,
            min(line) FILTER (WHERE nth = 1 AND same_id > copies) AS shared_line,
            count(*) FILTER (WHERE nth = 1 AND (NOT (regexp_full_match(trace_id, '[0-9a-f]{32}') AND regexp_full_match(span_id, '[0-9a-f]{16}')) OR trace_id = '${ZERO_TRACE_ID}' OR span_id = '${ZERO_SPAN_ID}')) AS bad_id,
            min(line) FILTER (WHERE nth = 1 AND (NOT (regexp_full_match(trace_id, '[0-9a-f]{32}') AND regexp_full_match(span_id, '[0-9a-f]{16}')) OR trace_id = '${ZERO_TRACE_ID}' OR span_id = '${ZERO_SPAN_ID}')) AS bad_id_line
     FROM k`,
    [PLAUSIBLE_FROM_NS, PLAUSIBLE_TO_NS],
  );
  return s;
}

/** Publishes a checked stage to spans/span_events (deduplicated), records the checks and drops the stage. */
export async function publishStage(ctx: ReaderContext, table: string, s: StageChecks, options: FinishOptions): Promise<FinishResult> {
  const t = assertIdentifier(table);
  if (s.total > 0 && s.no_id === s.total) throw await noSpanWithIds(ctx, t, s);
  ctx.progress?.(`writing ${s.total - s.no_id - s.dup} spans of ${path.basename(ctx.path)}`);
  const key = dedupeKeySql(options);
  const hasIds = 'trace_id IS NOT NULL AND span_id IS NOT NULL';
  let source = t;
  if (s.dup > 0) {
    // Materialise the deduplicated rows once so spans and span_events agree on which copy was kept.
    source = `${t}__dedup`;
    await ctx.store.run(
      `CREATE OR REPLACE TEMP TABLE ${source} AS SELECT * FROM ${t} WHERE ${hasIds}
       QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY line) = 1 ORDER BY line`,
    );
  }
  await ctx.store.run(
    `INSERT INTO spans
     SELECT $1, line, trace_id, span_id, parent_span_id, name, kind, service, start_ns, end_ns,
            (end_ns - start_ns) / 1e6, status, attributes, events, otlp_attributes, follows_from
     FROM ${source} WHERE ${hasIds}`,
    [ctx.sourceId],
  );
  await ctx.store.run(
    `INSERT INTO span_events
     SELECT $1, trace_id, span_id, e.name, e.time_ns
     FROM (SELECT trace_id, span_id, unnest(events) AS e FROM ${source} WHERE ${hasIds} AND len(events) > 0)`,
    [ctx.sourceId],
  );
  if (source !== t) await ctx.store.run(`DROP TABLE ${source}`);
  await ctx.store.run(`DROP TABLE ${t}`);

  await recordChecks(ctx, s, options);
  return { records: s.total - s.no_id - s.dup, skipped: s.no_id + s.dup };
}

/**
 * For spans a reader wrote straight into `spans` (the OTLP fast path, after checkStage found nothing
 * to report): copies their events into span_events. Reads only the events column of this source.
 */
export async function publishLoadedEvents(ctx: ReaderContext): Promise<void> {
  await ctx.store.run(
    `INSERT INTO span_events
     SELECT $1, trace_id, span_id, e.name, e.time_ns
     FROM (SELECT trace_id, span_id, unnest(events) AS e FROM spans WHERE source_id = $1 AND len(events) > 0)`,
    [ctx.sourceId],
  );
}

/**
 * A span file in which no span has both IDs is bad input, not an empty server side (the run would be
 * reported as client-only): the error names what was missing and where first. Drops the stage.
 */
async function noSpanWithIds(ctx: ReaderContext, t: string, s: StageChecks): Promise<InputError> {
  const [m] = await ctx.store.all<{ no_trace: number; no_span: number }>(
    `SELECT count(*) FILTER (WHERE trace_id IS NULL) AS no_trace, count(*) FILTER (WHERE span_id IS NULL) AS no_span FROM ${t}`,
  );
  await ctx.store.run(`DROP TABLE ${t}`);
  const missing = [m.no_trace > 0 ? `${m.no_trace} without a trace ID` : '', m.no_span > 0 ? `${m.no_span} without a span ID` : ''].filter((x) => x !== '').join(', ');
  return new InputError(
    ctx.path,
    s.no_id_line ?? undefined,
    'spans with a trace ID and a span ID (hex, or base64 in OTLP JSON)',
    `none among its ${s.total} span(s): ${missing} (empty or absent); no span of this file could be loaded`,
  );
}

async function issue(ctx: ReaderContext, line: number | null, severity: string, code: string, message: string): Promise<void> {
  await ctx.store.run('INSERT INTO load_issues VALUES ($1, $2, $3, $4, $5)', [ctx.sourceId, line, severity, code, message]);
}

async function recordChecks(ctx: ReaderContext, s: StageChecks, options: FinishOptions): Promise<void> {
  const where = ctx.sniff.lineDelimited ? 'line' : 'element';
  if (s.no_id > 0) {
    await issue(ctx, s.no_id_line, 'warning', 'span-without-id',
      `${s.no_id} span(s) without a trace ID or span ID skipped (first at ${where} ${s.no_id_line})`);
    await recordSkips(ctx.store, ctx.sourceId, 'span-without-id', s.no_id);
  }
  if (s.dup > 0) {
    const same = s.dup - s.dup_differs;
    const parts = [same > 0 ? `${same} the same span exported again (identical rows)` : ''];
    if (s.dup_differs > 0) {
      const fields = DIFF_FIELDS.filter((f) => Number((s as Record<string, unknown>)[`dup_diff_${f.column}`] ?? 0) > 0).map((f) => f.label);
      const keyed = options.dedupe === 'span-id' ? 'span ID' : 'span ID, kind, service and times';
      parts.push(`${s.dup_differs} with the same ${keyed} as an earlier row but different ${fields.join(', ')}: only the first row's values are loaded`);
    }
    await issue(ctx, s.dup_line, 'warning', 'duplicate-span',
      `${s.dup} duplicate span row(s) dropped (first at ${where} ${s.dup_line}): ${parts.filter((p) => p !== '').join('; ')}`);
    await recordSkips(ctx.store, ctx.sourceId, 'duplicate-span', s.dup);
  }
  if (s.implausible > 0) {
    const unit = options.sourceUnit === 'ns' ? 'epoch nanoseconds (*UnixNano)' : 'epoch microseconds';
    const hint = options.sourceUnit === 'ns' ? 'were the *UnixNano fields written in µs or ms?' : 'were the times written in ms, s or ns?';
    await issue(ctx, s.implausible_line, 'warning', 'implausible-timestamp',
      `${s.implausible} span(s) start before 1990 or after 2200 when read as ${unit} (first at ${where} ${s.implausible_line}: ${s.implausible_value} ns); ${hint} Values loaded as found`);
  }
  if (s.no_time > 0) {
    await issue(ctx, s.no_time_line, 'warning', 'missing-time',
      `${s.no_time} span(s) without a start or end time (in flight when exported, a fragment, or a value out of range); kept with a NULL duration (first at ${where} ${s.no_time_line})`);
  }
  if (s.negative > 0) {
    await issue(ctx, s.negative_line, 'warning', 'negative-duration',
      `${s.negative} span(s) end before they start (first at ${where} ${s.negative_line})`);
  }
  if (s.shared > 0) {
    await issue(ctx, s.shared_line, 'info', 'shared-span-id',
      `${s.shared} span(s) share their span ID with another span of the trace (Zipkin shared client/server spans or repeated observations); all kept, parent links to these IDs are ambiguous (first at ${where} ${s.shared_line})`);
  }
  if (s.bad_id > 0) {
    await issue(ctx, s.bad_id_line, 'warning', 'invalid-id',
      `${s.bad_id} span(s) have a trace ID that is not 32 hex digits, or a span ID that is not 16, or an all-zero ID (kept as found; they cannot join) (first at ${where} ${s.bad_id_line})`);
  }
}
