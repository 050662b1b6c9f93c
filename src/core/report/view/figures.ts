/**
 * The report pictures' figures, computed in DuckDB over request_breakdown (matched successes, the
 * decomposition population): the network-envelope histogram and each owner's p95 per window.
 */
import type { QueryRunner } from '../../store/duckStore';
import type { AnalysisOptions } from '../../analysis/options';
import { phaseColumns } from '../../analysis/breakdown/phaseSelect';
import { MATCHED_SUCCESS } from '../../analysis/figures/population';
import type { EnvelopeHistogram, HistogramBin, WindowOwnerP95 } from './types';

/** About this many buckets over the envelope's range (a nice width: 1, 2 or 5 × 10^k ms). */
const TARGET_BINS = 40;

/** The smallest 1/2/5 × 10^k at least `raw` (raw > 0). */
export function niceStep(raw: number): number {
  const exp = Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) {
    const step = m * 10 ** exp;
    if (step >= raw * (1 - 1e-12)) return step;
  }
  return 10 ** (exp + 1);
}

export async function envelopeHistogram(store: QueryRunner): Promise<EnvelopeHistogram> {
  const population = `${MATCHED_SUCCESS} AND isfinite(network_envelope_ms)`;
  const [range] = await store.all<{ n: number; lo: number | null; hi: number | null; negative: number }>(
    `SELECT count(*) AS n, min(network_envelope_ms) AS lo, max(network_envelope_ms) AS hi,
            count(*) FILTER (WHERE network_envelope_ms < 0) AS negative
     FROM request_breakdown WHERE ${population}`,
  );
  if (range === undefined || range.n === 0 || range.lo === null || range.hi === null) return { n: 0, bin_ms: 1, bins: [], negative: 0 };
  const width = range.hi > range.lo ? niceStep((range.hi - range.lo) / TARGET_BINS) : 1;
  const rows = await store.all<{ b: number; count: number }>(
    `SELECT CAST(floor(network_envelope_ms / $1::DOUBLE) AS BIGINT) AS b, count(*) AS count
     FROM request_breakdown WHERE ${population} GROUP BY b ORDER BY b`,
    [width],
  );
  const counts = new Map(rows.map((r) => [Number(r.b), r.count]));
  const first = Math.floor(range.lo / width);
  const last = Math.floor(range.hi / width);
  const bins: HistogramBin[] = [];
  for (let b = first; b <= last; b++) bins.push({ from_ms: b * width, to_ms: (b + 1) * width, count: counts.get(b) ?? 0 });
  return { n: range.n, bin_ms: width, bins, negative: range.negative };
}

/** Owners in tail-attribution order: the envelope, each phase, then what no phase claims. */
export function ownerNames(options: AnalysisOptions): string[] {
  return ['network_envelope', ...options.phases.map((p) => p.name), 'unattributed_server'];
}

export async function windowOwnerP95(store: QueryRunner, options: AnalysisOptions): Promise<WindowOwnerP95[]> {
  const columns = ['network_envelope_ms', ...phaseColumns(options.phases).map((p) => p.column), 'unattributed_server_ms'];
  const names = ownerNames(options);
  const rows = await store.all(
    `SELECT CAST(floor(offset_ms / $1::DOUBLE) AS BIGINT) AS idx, count(*) AS n,
            ${columns.map((c, i) => `quantile_cont(CASE WHEN isfinite(${c}) THEN ${c} END, 0.95) AS o${i}`).join(', ')}
     FROM request_breakdown WHERE ${MATCHED_SUCCESS} AND isfinite(offset_ms)
     GROUP BY idx ORDER BY idx`,
    [options.windowSizeMs],
  );
  return rows.map((r) => {
    const p95: Record<string, number | null> = {};
    names.forEach((name, i) => {
      const v = r[`o${i}`];
      p95[name] = typeof v === 'number' && Number.isFinite(v) ? v : null;
    });
    return { index: Number(r.idx), n: Number(r.n), p95 };
  });
}
