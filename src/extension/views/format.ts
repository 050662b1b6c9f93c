/** Figures as the tree views, tooltips and the status bar write them (en-US grouping, like the webviews). */

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const fixed = (digits: number): Intl.NumberFormat => new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const BY_DIGITS = [fixed(0), fixed(1), fixed(2), fixed(3)];

export const MISSING = '—';

/** `1,234 ms`, `12.3 ms`, `0.21 ms`: fewer decimals for larger values. */
export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  const a = Math.abs(v);
  return `${BY_DIGITS[a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3].format(v)} ms`;
}

/** `29.04 s` from 10 s on, else ms. */
export function duration(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  return Math.abs(v) >= 10_000 ? `${BY_DIGITS[2].format(v / 1000)} s` : ms(v);
}

export function count(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? MISSING : int.format(v);
}

export function percent(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || !Number.isFinite(v) ? MISSING : `${BY_DIGITS[digits].format(v * 100)}%`;
}

export function bytes(n: number): string {
  if (n >= 1e9) return `${BY_DIGITS[2].format(n / 1e9)} GB`;
  if (n >= 1e6) return `${BY_DIGITS[1].format(n / 1e6)} MB`;
  return `${BY_DIGITS[0].format(Math.ceil(n / 1e3))} KB`;
}

/** `gpu_queue` → `gpu queue`, `network_envelope_ms` → `network envelope`. */
export function owner(name: string): string {
  return name.replace(/_ms$/, '').replace(/_/g, ' ');
}

/** A verdict as its label: PASS, FAIL, INCONCLUSIVE, INSTRUMENTATION FAILURE, NOT EVALUATED. */
export function verdict(status: string): string {
  return status.replace(/_/g, ' ').toUpperCase();
}

/** A gate's figure: ms for latency metrics, a share for rates and coverage, else the number. */
export function gateValue(metric: string, stat: string, v: number | null): string {
  if (v === null) return MISSING;
  if (metric.endsWith('_ms') && stat !== 'share') return duration(v);
  if (stat === 'share' || /rate$|coverage|share/.test(metric)) return metric === 'achieved_start_rate' ? `${BY_DIGITS[2].format(v)}/s` : percent(v, 2);
  return count(v);
}
