/**
 * Number and label formatting shared by every renderer, so that the text, markdown and waterfall
 * views print the same figure the same way: milliseconds with one decimal, shares as percentages,
 * counts with thousands separators, and "–" for a figure that does not exist (never 0).
 */
import { SHARE_FIGURES } from '../analysis/catalog/metrics';

/** Printed where a figure is absent (no data), so that it is never mistaken for zero. */
export const MISSING = '–';

/** `1842.37` → `1842.4 ms`; null → `–`. */
export function formatMs(value: number | null | undefined, withUnit = true): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return MISSING;
  const text = value.toFixed(1);
  // -0.04 rounds to "-0.0": a sign on zero only confuses.
  const clean = text === '-0.0' ? '0.0' : text;
  return withUnit ? `${clean} ms` : clean;
}

/** `0.9731` → `97.3%`; null → `–`. */
export function formatShare(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return MISSING;
  const text = (value * 100).toFixed(1);
  return `${text === '-0.0' ? '0.0' : text}%`;
}

/** `12345` → `12,345`; null → `–`. */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return MISSING;
  return Math.round(value).toLocaleString('en-US');
}

/** Plain numbers that are neither durations nor shares (ratios, rates): up to 3 significant decimals. */
export function formatNumber(value: number | null | undefined, decimals = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return MISSING;
  if (Number.isInteger(value)) return formatCount(value);
  return value.toFixed(decimals);
}

/** Bytes as MB with one decimal (input sizes). */
export function formatMegabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/** Whether a metric name denotes a duration in ms (so it is printed with the ms formatter). */
export function isDurationMetric(metric: string): boolean {
  return metric.endsWith('_ms') || metric.endsWith('_ms_per_output_token') || metric === 'steady_window_ms';
}

/** Formats a gate's observed value or limit according to what the metric measures. */
export function formatMetricValue(metric: string, stat: string, value: number | null | undefined): string {
  if (stat === 'share' || SHARE_FIGURES.has(metric)) return formatShare(value);
  if (isDurationMetric(metric)) return formatMs(value);
  return formatNumber(value);
}

/** Human label of a verdict status, as printed at the top of the report. */
export function verdictLabel(status: string): string {
  switch (status) {
    case 'pass':
      return 'PASS';
    case 'fail':
      return 'FAIL';
    case 'inconclusive':
      return 'INCONCLUSIVE';
    case 'instrumentation_failure':
      return 'INSTRUMENTATION FAILURE';
    case 'not_evaluated':
      return 'NOT EVALUATED (no gates)';
    default:
      return status.toUpperCase();
  }
}

/**
 * Where a finding is: `file:17` for a line, `file (element 17)` for an element of a JSON document
 * (a span's position in a Jaeger or Zipkin file is not a line, and `file:17` would read as one).
 */
export function formatPosition(path: string, line: number | null, position: 'line' | 'element'): string {
  if (line === null) return path;
  return position === 'element' ? `${path} (element ${line})` : `${path}:${line}`;
}
