/**
 * The worst window per SLO metric, and which owner grew there. The SLO metrics are the run's SLO gates
 * on a series figure (else client total and client TTFT at p95). The owner that grew is the one whose
 * window mean rose most against its typical window (the median of its means over the compared
 * windows): means of the owners add up to the metric's mean per request (catalog/series.ts ownersOf),
 * so their growths add up to the metric's; percentiles would not.
 */
import type { OwnerGrowth, SeriesWindow, WorstWindow } from '../../report/model';
import { DEFAULT_SLO_FIGURES, ownersOf } from '../catalog/series';
import type { GateSpec } from '../options';

/** A window is compared only with at least this many values of the figure. */
export const MIN_WINDOW_N = 20;

type SeriesStatName = 'p50' | 'p95' | 'p99' | 'mean';

function statOf(gate: GateSpec): SeriesStatName {
  return gate.stat === 'p50' || gate.stat === 'p95' || gate.stat === 'p99' || gate.stat === 'mean' ? gate.stat : 'p95';
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = (s.length - 1) / 2;
  return (s[Math.floor(mid)] + s[Math.ceil(mid)]) / 2;
}

/** Windows a figure can be compared in: enough values, and whole windows when there are any. */
export function comparable(windows: readonly SeriesWindow[], metric: string): SeriesWindow[] {
  const withData = windows.filter((w) => (w.owners[metric]?.n ?? 0) >= MIN_WINDOW_N);
  const whole = withData.filter((w) => !w.partial);
  return whole.length > 0 ? whole : withData;
}

export function worstWindows(windows: readonly SeriesWindow[], gates: readonly GateSpec[], phaseColumns: readonly string[]): WorstWindow[] {
  const wanted: Array<{ metric: string; stat: SeriesStatName; source: string }> = [];
  for (const g of gates) {
    if (g.category !== 'slo' || windows[0]?.owners[g.metric] === undefined) continue;
    if (!wanted.some((w) => w.metric === g.metric && w.stat === statOf(g))) wanted.push({ metric: g.metric, stat: statOf(g), source: g.id });
  }
  if (wanted.length === 0) for (const d of DEFAULT_SLO_FIGURES) wanted.push({ ...d, source: 'default' });
  const out: WorstWindow[] = [];
  for (const w of wanted) {
    const worst = worstFor(windows, w.metric, w.stat, phaseColumns);
    if (worst) out.push({ ...worst, source: w.source });
  }
  return out;
}

function worstFor(windows: readonly SeriesWindow[], metric: string, stat: SeriesStatName, phaseColumns: readonly string[]): Omit<WorstWindow, 'source'> | undefined {
  const pool = comparable(windows, metric);
  let worst: SeriesWindow | undefined;
  for (const w of pool) {
    const v = w.owners[metric][stat];
    if (v !== null && (worst === undefined || v > (worst.owners[metric][stat] ?? -Infinity))) worst = w;
  }
  if (worst === undefined) return undefined;
  const values = pool.map((w) => w.owners[metric][stat]).filter((v): v is number => v !== null);
  const owners: OwnerGrowth[] = [];
  for (const owner of ownersOf(metric, phaseColumns)) {
    const mine = worst.owners[owner]?.mean;
    const means = pool.map((w) => w.owners[owner]?.mean).filter((v): v is number => v !== null && v !== undefined);
    if (mine === null || mine === undefined || means.length === 0) continue;
    const typical = median(means);
    owners.push({ owner, worst_mean_ms: mine, typical_mean_ms: typical, delta_ms: mine - typical });
  }
  owners.sort((a, b) => b.delta_ms - a.delta_ms);
  return {
    metric,
    stat,
    window: worst.index,
    value: worst.owners[metric][stat] as number,
    n: worst.owners[metric].n,
    typical: values.length > 0 ? median(values) : null,
    owner_grew: owners.length > 0 && owners[0].delta_ms > 0 ? owners[0] : null,
    owners,
  };
}
