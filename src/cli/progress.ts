/**
 * Progress of long loads on stderr: the file being loaded and, while a reader scans it, bytes read,
 * rate and time left (core/report/loadProgress.ts). Only when stderr is a terminal or --progress is
 * given, so CI logs and pipes stay clean.
 */
import * as path from 'path';
import type { ProgressSink } from '../core/formats/types';
import { isScanMessage, LoadProgress } from '../core/loadProgress';
import { writeStderr } from './output';

export interface ProgressReporter {
  onFile(file: string, bytes: number, side: 'client' | 'server', totalBytes?: number): void;
  sink: ProgressSink;
  /** Final line: total MB and throughput. */
  done(what: string): void;
}

/** Reader messages arrive often; at most one line per interval keeps the terminal readable. */
const THROTTLE_MS = 500;

export function createProgress(enabled: boolean, write: (text: string) => void = writeStderr, now: () => number = Date.now): ProgressReporter {
  const started = now();
  const load = new LoadProgress(now);
  let totalBytes = 0;
  let lastLine = 0;
  const elapsed = (): string => `${((now() - started) / 1000).toFixed(1)}s`;
  return {
    onFile(file, bytes, side, total) {
      totalBytes += bytes;
      if (total !== undefined) load.setTotal(total);
      load.file(file, bytes);
      if (enabled) write(`phasewise: [${elapsed()}] loading ${side} file ${path.basename(file)} (${(bytes / 1e6).toFixed(1)} MB)\n`);
    },
    sink(message, fraction) {
      if (!enabled) return;
      const scan = fraction !== undefined && isScanMessage(message);
      if (scan) load.fraction(fraction);
      const t = now();
      if (fraction !== undefined && fraction < 1 && t - lastLine < THROTTLE_MS) return;
      lastLine = t;
      const detail = scan ? `: ${load.describe(false)}` : fraction === undefined ? '' : ` ${(fraction * 100).toFixed(0)}%`;
      write(`phasewise: [${elapsed()}] ${message}${detail}\n`);
    },
    done(what) {
      if (!enabled) return;
      const seconds = (now() - started) / 1000;
      const mb = totalBytes / 1e6;
      const rate = seconds > 0 && mb > 0 ? `, ${(mb / seconds).toFixed(1)} MB/s` : '';
      write(`phasewise: [${elapsed()}] ${what} (${mb.toFixed(1)} MB${rate})\n`);
    },
  };
}
