/**
 * The load progress line of a notification: the file being read, bytes read of the whole load, the
 * rate, and the share for the bar, from the worker's progress messages (a file starts with its size;
 * a reader's phase message may carry the share of the current file read). No vscode import.
 */
import * as path from 'path';
import type { ProgressEvent } from './runClient';

function mb(bytes: number): string {
  const v = bytes / 1e6;
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

export class LoadProgressText {
  private started: number | undefined;
  private done = 0;
  private current: { name: string; bytes: number; fraction: number } | undefined;
  private total: number | undefined;
  private phase = '';

  constructor(private readonly now: () => number = Date.now) {}

  /** Feeds one worker progress message. */
  update(e: ProgressEvent): void {
    this.started ??= this.now();
    if (e.total_bytes !== null) this.total = e.total_bytes;
    if (e.file !== null && e.bytes !== null) {
      if (this.current !== undefined) this.done += this.current.bytes;
      this.current = { name: path.basename(e.file), bytes: e.bytes, fraction: 0 };
      this.phase = '';
      return;
    }
    if (e.fraction !== null && this.current !== undefined) this.current.fraction = Math.max(this.current.fraction, Math.min(1, Math.max(0, e.fraction)));
    this.phase = e.message;
  }

  /** Bytes of the load read so far (finished files and the share of the current one). */
  get read(): number {
    return this.done + (this.current !== undefined ? this.current.bytes * this.current.fraction : 0);
  }

  /** 0–100 for the notification's bar (undefined while the total is not known). */
  get percent(): number | undefined {
    return this.total !== undefined && this.total > 0 ? Math.min(100, (this.read / this.total) * 100) : undefined;
  }

  describe(): string {
    if (this.current === undefined) return this.phase;
    const seconds = (this.now() - (this.started ?? this.now())) / 1000;
    const parts = [this.total !== undefined && this.total > 0 ? `${this.current.name}: ${mb(this.read)} of ${mb(this.total)} MB` : `${this.current.name}: ${mb(this.read)} MB`];
    if (seconds > 0.5 && this.read > 0) parts.push(`${mb(this.read / seconds)} MB/s`);
    if (this.phase !== '' && !this.phase.startsWith('loading ')) parts.push(this.phase);
    return parts.join(' · ');
  }
}
