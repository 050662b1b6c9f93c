/** Number formatting shared by the views: fixed en-US grouping so screenshots and tests do not depend on the locale. */

export const MISSING = '—';

/**
 * `1234.5` → `1,234.50` for 2 digits. Written out rather than Intl.NumberFormat: creating the first
 * formatter loads ICU data (≈ 25 ms on a cold page, a tenth of the waterfall's first-paint budget).
 */
function grouped(v: number, digits: number): string {
  const fixed = Math.abs(v).toFixed(digits);
  const dot = fixed.indexOf('.');
  const int = dot < 0 ? fixed : fixed.slice(0, dot);
  let out = '';
  for (let i = 0; i < int.length; i++) {
    if (i > 0 && (int.length - i) % 3 === 0) out += ',';
    out += int[i];
  }
  const sign = v < 0 && Number(fixed) !== 0 ? '-' : '';
  return sign + out + (dot < 0 ? '' : fixed.slice(dot));
}

function nf(digits: number): { format: (v: number) => string } {
  return { format: (v) => grouped(v, digits) };
}

/** Digits after the point for a ms figure: more for small values, so 0.21 ms does not read as 0. */
function msDigits(abs: number): number {
  if (abs >= 1000) return 0;
  if (abs >= 100) return 1;
  if (abs >= 1) return 2;
  return 3;
}

/** `1,234 ms`, `12.34 ms`, `0.211 ms`; null → —. */
export function fmtMs(v: number | null | undefined, unit = true): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  const s = nf(msDigits(Math.abs(v))).format(v);
  return unit ? `${s} ms` : s;
}

/** A duration for labels: `29.04 s` from 10 s on, else ms. */
export function fmtDuration(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  return Math.abs(v) >= 10_000 ? `${nf(2).format(v / 1000)} s` : fmtMs(v);
}

/** A signed delta: `+8.10 s`, `−0.3 ms` (a real minus sign). */
export function fmtDelta(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  const body = fmtDuration(Math.abs(v));
  return v > 0 ? `+${body}` : v < 0 ? `−${body}` : `±${body}`;
}

export function fmtInt(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? MISSING : nf(0).format(v);
}

/** A share 0..1 as a percentage with one decimal. */
export function fmtPct(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? MISSING : `${nf(1).format(v * 100)} %`;
}

/** `gpu_queue` → `gpu queue`, `network_envelope` → `network envelope`. */
export function ownerLabel(name: string): string {
  return name.replace(/_ms$/, '').replace(/_/g, ' ');
}

/** A gate's figure (the report's gates, the contract form's Evaluate): ms for latency metrics, a share for rates and coverage, else the number. */
export function fmtGateValue(g: { metric: string; stat: string }, v: number | null): string {
  if (v === null) return MISSING;
  if (g.metric.endsWith('_ms')) return fmtMs(v);
  if (g.stat === 'share' || /rate|coverage|share/.test(g.metric)) return Math.abs(v) <= 1 ? fmtPct(v) : plain(v);
  return fmtInt(v) === String(v) ? fmtInt(v) : plain(v);
}

/** A figure without float noise: 11.399999999999999 (0.95 × 12) reads 11.4. */
function plain(v: number): string {
  return String(Number(v.toPrecision(12)));
}
