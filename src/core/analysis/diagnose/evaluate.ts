/**
 * Applies the symptom table (rules.ts) to a window series. For each rule: the windows with enough
 * values of its figure (series/worstWindows.ts comparable), the pair of windows, earlier then later,
 * across which the figure rose most; the rule fires when that rise passes both limits and every figure
 * it needs flat stayed within tolerance between the same two windows. Evidence says which figures
 * moved, between which windows, by how much, with n.
 */
import type { Diagnosis, DiagnosisCode, DiagnosisStatus, EvidenceItem, SeriesWindow } from '../../report/model';
import { comparable, MIN_WINDOW_N } from '../series/worstWindows';
import { RULES, type FigureRef, type RuleDecl } from './rules';

interface Value {
  value: number | null;
  n: number | null;
}

function valueOf(w: SeriesWindow, ref: FigureRef): Value {
  if (ref.figure === 'in_flight') return { value: w.in_flight, n: w.started };
  const s = w.owners[ref.figure];
  if (s === undefined) return { value: null, n: null };
  const v = ref.stat === 'value' ? s.mean : s[ref.stat];
  return { value: v, n: s.n };
}

function hasFigure(windows: readonly SeriesWindow[], ref: FigureRef): boolean {
  return ref.figure === 'in_flight' || windows.some((w) => (w.owners[ref.figure]?.n ?? 0) > 0);
}

/** The pair (earlier, later) with the largest rise of the figure. */
function largestRise(windows: readonly SeriesWindow[], ref: FigureRef): { from: SeriesWindow; to: SeriesWindow } | undefined {
  let low: SeriesWindow | undefined;
  let best: { from: SeriesWindow; to: SeriesWindow; rise: number } | undefined;
  for (const w of windows) {
    const v = valueOf(w, ref).value;
    if (v === null) continue;
    if (low !== undefined) {
      const rise = v - (valueOf(low, ref).value as number);
      if (best === undefined || rise > best.rise) best = { from: low, to: w, rise };
    }
    if (low === undefined || v < (valueOf(low, ref).value as number)) low = w;
  }
  return best;
}

/** Pearson correlation of two equally long lists (null when either is constant). */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 2 || ys.length !== n) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

function unit(figure: string): string {
  if (figure === 'in_flight') return '';
  return figure.endsWith('_per_output_token') ? ' ms/token' : ' ms';
}

function fmt(v: number | null, figure: string): string {
  if (v === null) return '–';
  return `${Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(figure === 'in_flight' ? 1 : 2)}${unit(figure)}`;
}

function where(w: SeriesWindow): string {
  const range = `${(w.start_offset_ms / 1000).toFixed(0)}–${(w.end_offset_ms / 1000).toFixed(0)} s`;
  return w.label !== null ? `${w.label} (${range})` : `window #${w.index} (${range})`;
}

function item(ref: FigureRef, role: EvidenceItem['role'], from: SeriesWindow, to: SeriesWindow): EvidenceItem {
  const a = valueOf(from, ref);
  const b = valueOf(to, ref);
  const change = a.value !== null && b.value !== null ? b.value - a.value : null;
  const relative = change !== null && a.value !== null && a.value !== 0 ? change / Math.abs(a.value) : null;
  const name = ref.figure === 'in_flight' ? 'in-flight requests' : `${ref.figure} ${ref.stat}`;
  const pct = relative === null ? '' : `, ${relative >= 0 ? '+' : ''}${(relative * 100).toFixed(0)}%`;
  const verb = role === 'flat' ? 'stayed' : 'rose';
  const n = (x: Value): string => (x.n === null ? '' : `, n=${x.n}`);
  const text =
    `${name} ${verb} ${fmt(a.value, ref.figure)} → ${fmt(b.value, ref.figure)} (${change !== null && change >= 0 ? '+' : ''}${fmt(change, ref.figure)}${pct}) ` +
    `from ${where(from)}${n(a)} to ${where(to)}${n(b)}`;
  return { figure: ref.figure, stat: ref.stat, role, from_window: from.index, to_window: to.index, from: a.value, to: b.value, change, relative, n_from: a.n, n_to: b.n, text };
}

function rose(ref: { minAbsolute: number; minRelative: number }, e: EvidenceItem): boolean {
  if (e.change === null || e.change < ref.minAbsolute || e.change <= 0) return false;
  return e.from === null || e.from <= 0 || e.change / e.from >= ref.minRelative;
}

function stayedFlat(ref: { maxAbsolute: number; maxRelative: number }, e: EvidenceItem): boolean {
  if (e.change === null) return false;
  const moved = Math.abs(e.change);
  return moved <= ref.maxAbsolute || (e.from !== null && e.from > 0 && moved / e.from <= ref.maxRelative);
}

type Outcome = { fired: Diagnosis } | { quiet: true } | { notEvaluated: string };

function evaluateRule(rule: RuleDecl, windows: readonly SeriesWindow[]): Outcome {
  const needed = [rule.rises, ...rule.flat, ...(rule.alsoRises ?? [])];
  const missing = needed.filter((r) => !hasFigure(windows, r)).map((r) => r.figure);
  if (missing.length > 0) return { notEvaluated: `no ${[...new Set(missing)].join(', ')} in this run` };
  const pool = rule.rises.figure === 'in_flight' ? windows.filter((w) => !w.partial && w.started >= MIN_WINDOW_N) : comparable(windows, rule.rises.figure);
  if (pool.length < 2) return { notEvaluated: `fewer than two windows with ≥ ${MIN_WINDOW_N} values of ${rule.rises.figure}` };
  const pair = largestRise(pool, rule.rises);
  if (pair === undefined) return { quiet: true };
  const driver = item(rule.rises, 'rose', pair.from, pair.to);
  if (!rose(rule.rises, driver)) return { quiet: true };
  const evidence = [driver];
  for (const f of rule.flat) {
    const e = item(f, 'flat', pair.from, pair.to);
    if ((e.n_from ?? MIN_WINDOW_N) < MIN_WINDOW_N || (e.n_to ?? MIN_WINDOW_N) < MIN_WINDOW_N) return { notEvaluated: `${f.figure} has fewer than ${MIN_WINDOW_N} values in ${where(pair.from)} or ${where(pair.to)}` };
    if (!stayedFlat(f, e)) return { quiet: true };
    evidence.push(e);
  }
  for (const r of rule.alsoRises ?? []) {
    const e = item(r, 'rose', pair.from, pair.to);
    if (!rose(r, e)) return { quiet: true };
    evidence.push(e);
  }
  if (rule.correlates !== undefined && pool.length >= rule.correlates.minWindows) {
    const c = rule.correlates;
    const pairs = pool.map((w) => [valueOf(w, rule.rises).value, valueOf(w, c).value]).filter((p): p is [number, number] => p[0] !== null && p[1] !== null);
    const r = pearson(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
    if (r === null || r < c.minR) return { quiet: true };
    const e = item(c, 'correlated', pair.from, pair.to);
    evidence.push({ ...e, r, text: `${rule.rises.figure} ${rule.rises.stat} follows ${c.figure === 'in_flight' ? 'the requests in flight' : c.figure} across ${pairs.length} windows (Pearson r = ${r.toFixed(2)})` });
  }
  return { fired: { code: rule.code, title: rule.title, evidence, first_check: rule.firstCheck } };
}

export interface DiagnoseResult {
  diagnoses: Diagnosis[];
  status: DiagnosisStatus;
}

/** Every rule of the table over the series; `basis` says whether the windows are the contract's stages. */
export function diagnose(windows: readonly SeriesWindow[], basis: 'windows' | 'stages'): DiagnoseResult {
  const diagnoses: Diagnosis[] = [];
  const evaluated: DiagnosisCode[] = [];
  const notEvaluated: DiagnosisStatus['not_evaluated'] = [];
  for (const rule of RULES) {
    const outcome = evaluateRule(rule, windows);
    if ('notEvaluated' in outcome) {
      notEvaluated.push({ code: rule.code, why: outcome.notEvaluated });
      continue;
    }
    evaluated.push(rule.code);
    if ('fired' in outcome) diagnoses.push(outcome.fired);
  }
  const compared = windows.filter((w) => !w.partial && (w.owners.client_total_ms?.n ?? 0) >= MIN_WINDOW_N).length;
  const over = basis === 'stages' ? 'the stages' : 'the windows';
  const summary =
    diagnoses.length > 0
      ? `${diagnoses.length} of ${evaluated.length} rules fired over ${over}: ${diagnoses.map((d) => d.code).join(', ')}`
      : evaluated.length > 0
        ? `no rule fired: over ${over}, no owner moved the way a rule of the symptom table describes (${evaluated.length} rules evaluated)`
        : `no rule could be evaluated (${notEvaluated.map((x) => `${x.code}: ${x.why}`).join('; ')})`;
  return { diagnoses, status: { basis, windows_compared: compared, evaluated, not_evaluated: notEvaluated, summary } };
}
