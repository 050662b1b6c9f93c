/**
 * The load progress line of a notification, from the worker's progress messages: a file starts with
 * its size and the size of the whole load; a reader's scan message carries the share of the current
 * file read. The wording (bytes read of the total, rate, time left) is the core's LoadProgress, so the
 * editor and the CLI's stderr say the same thing. No vscode import.
 */
import { isScanMessage, LoadProgress } from '../../core/loadProgress';
import type { ProgressEvent } from './runClient';

export class LoadProgressText {
  private readonly load: LoadProgress;
  private started = false;
  private phase = '';

  constructor(now: () => number = Date.now) {
    this.load = new LoadProgress(now);
  }

  /** Feeds one worker progress message. */
  update(e: ProgressEvent): void {
    if (e.total_bytes !== null) this.load.setTotal(e.total_bytes);
    if (e.file !== null && e.bytes !== null) {
      this.load.file(e.file, e.bytes);
      this.started = true;
      this.phase = '';
      return;
    }
    // Only a scan's fraction is the share of the file read (other phases' fractions are their own).
    if (e.fraction !== null && isScanMessage(e.message)) this.load.fraction(e.fraction);
    this.phase = e.message;
  }

  /** Bytes of the load read so far (finished files and the share of the current one). */
  get read(): number {
    return this.load.snapshot().read;
  }

  /** 0–100 for the notification's bar (undefined while the total is not known). */
  get percent(): number | undefined {
    const s = this.load.snapshot();
    return s.total !== undefined && s.total > 0 ? Math.min(100, (s.read / s.total) * 100) : undefined;
  }

  /** `spans.otlp.jsonl: 40.1 of 62.3 MB (64%), 21.5 MB/s, about 1 s left to read`, then a phase other than the scan. */
  describe(): string {
    if (!this.started) return this.phase;
    const line = this.load.describe();
    return this.phase !== '' && !isScanMessage(this.phase) ? `${line} · ${this.phase}` : line;
  }
}
