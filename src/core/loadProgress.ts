/**
 * Bytes read, rate and time left of a load, from what the readers report: each file's size as it
 * starts (loadRun's onFile) and, while a reader's statement scans it, the share read
 * (formats/input/scanProgress.ts). Shared by the CLI's stderr progress and the editor's notification, so
 * both say the same thing; pure, so the extension host imports it without loading the store. The rate is the bytes read over the time spent reading (since the first
 * file started); the time left is what remains of the load at that rate.
 */
import * as path from 'path';

/** How a reader's scan progress messages start (formats/input/scanProgress.ts): their fraction is the share of the current file read. */
export const SCAN_MESSAGE_PREFIX = 'reading ';

/** True for a reader's scan progress, which a display feeds to LoadProgress.fraction. */
export function isScanMessage(message: string): boolean {
  return message.startsWith(SCAN_MESSAGE_PREFIX);
}

export interface LoadSnapshot {
  /** Base name of the file being read, if any. */
  file?: string;
  /** Bytes of the load read so far (finished files plus the share of the current one). */
  read: number;
  /** Bytes of every file of the load, when known. */
  total?: number;
  /** Bytes per second since the first file started (undefined before there is anything to divide). */
  rate?: number;
  /** Seconds left at that rate (undefined without a total or a rate). */
  etaSeconds?: number;
}

export class LoadProgress {
  private total: number | undefined;
  private started: number | undefined;
  private done = 0;
  private current: { name: string; bytes: number; fraction: number } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** The load's total size (all files), when the caller knows it up front. */
  setTotal(bytes: number): void {
    this.total = bytes;
  }

  /** A file starts: the previous one is done. */
  file(file: string, bytes: number): void {
    if (this.started === undefined) this.started = this.now();
    if (this.current) this.done += this.current.bytes;
    this.current = { name: path.basename(file), bytes, fraction: 0 };
  }

  /** The share (0..1) of the current file read so far; it never goes back (a second pass re-reads). */
  fraction(f: number): void {
    if (this.current && Number.isFinite(f)) this.current.fraction = Math.max(this.current.fraction, Math.min(1, Math.max(0, f)));
  }

  snapshot(): LoadSnapshot {
    const read = this.done + (this.current ? this.current.bytes * this.current.fraction : 0);
    const seconds = this.started === undefined ? 0 : (this.now() - this.started) / 1000;
    const rate = seconds > 0.2 && read > 0 ? read / seconds : undefined;
    const etaSeconds = rate !== undefined && this.total !== undefined ? Math.max(0, this.total - read) / rate : undefined;
    return { file: this.current?.name, read, total: this.total, rate, etaSeconds };
  }

  /** One line: `spans.otlp.jsonl: 210 of 898 MB (23%), 95 MB/s, about 7 s left to read` (without the file name: `withFile` false). */
  describe(withFile = true): string {
    const s = this.snapshot();
    return describeLoad(withFile ? s : { ...s, file: undefined });
  }
}

function mb(bytes: number): string {
  const v = bytes / 1e6;
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

/** Seconds as `about 7 s` / `about 2 min 10 s` (an estimate: no false precision). */
export function aboutSeconds(s: number): string {
  if (s < 1) return 'under a second';
  if (s < 60) return `about ${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  return `about ${m} min ${Math.round(s - m * 60)} s`;
}

export function describeLoad(s: LoadSnapshot): string {
  const parts: string[] = [];
  const of = s.total !== undefined && s.total > 0 ? `${mb(s.read)} of ${mb(s.total)} MB (${Math.floor((s.read / s.total) * 100)}%)` : `${mb(s.read)} MB read`;
  parts.push(s.file !== undefined ? `${s.file}: ${of}` : of);
  if (s.rate !== undefined) parts.push(`${mb(s.rate)} MB/s`);
  if (s.etaSeconds !== undefined) parts.push(`${aboutSeconds(s.etaSeconds)} left to read`);
  return parts.join(', ');
}
