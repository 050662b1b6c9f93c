/**
 * Timestamps. The simulation runs on integer nanoseconds since the run start (exact in a double up to
 * ~104 days); absolute epoch nanoseconds (≈ 1.8e18) do not fit a double, so they are written by
 * string concatenation of whole seconds and a 9-digit fraction, never through floating point.
 */
export class TimeFormatter {
  private cachedSecond = -1;
  private cachedPrefix = '';

  constructor(private readonly startEpochS: number) {}

  /** Epoch nanoseconds as a decimal string (OTLP `startTimeUnixNano`). */
  epochNs(offsetNs: number): string {
    const sec = Math.floor(offsetNs / 1e9);
    const frac = offsetNs - sec * 1e9;
    return `${this.startEpochS + sec}${pad9(frac)}`;
  }

  /**
   * RFC 3339 with nanoseconds in UTC, trailing zeros trimmed as Go's RFC3339Nano does (k6 writes
   * `time` with Go's time.Time JSON marshalling, so the fraction has 1–9 digits, or none).
   */
  rfc3339(offsetNs: number): string {
    const sec = Math.floor(offsetNs / 1e9);
    const frac = offsetNs - sec * 1e9;
    if (sec !== this.cachedSecond) {
      this.cachedSecond = sec;
      this.cachedPrefix = new Date((this.startEpochS + sec) * 1000).toISOString().slice(0, 19);
    }
    if (frac === 0) return `${this.cachedPrefix}Z`;
    return `${this.cachedPrefix}.${pad9(frac).replace(/0+$/, '')}Z`;
  }
}

function pad9(n: number): string {
  const s = String(n);
  return s.length >= 9 ? s : '000000000'.slice(s.length) + s;
}

/** Integer nanoseconds → milliseconds as k6 and the records write them (exact to the ns). */
export function nsToMs(ns: number): number {
  return ns / 1e6;
}

/** Rounds a duration in milliseconds to whole nanoseconds, at least `minNs`. */
export function msToNs(ms: number, minNs = 1000): number {
  return Math.max(minNs, Math.round(ms * 1e6));
}
