/**
 * Progress of long loads on stderr: the file being loaded, its size and the elapsed time. Only when
 * stderr is a terminal or --progress is given, so CI logs and pipes stay clean.
 */
import * as path from 'path';
import type { ProgressSink } from '../core/formats/types';

export interface ProgressReporter {
  onFile(file: string, bytes: number, side: 'client' | 'server'): void;
  sink: ProgressSink;
  /** Final line: total MB and throughput. */
  done(what: string): void;
}

/** Reader messages arrive often; at most one line per interval keeps the terminal readable. */
const THROTTLE_MS = 500;

export function createProgress(enabled: boolean, write: (text: string) => void = (t) => process.stderr.write(t)): ProgressReporter {
  const started = Date.now();
  let totalBytes = 0;
  let lastLine = 0;
  const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  return {
    onFile(file, bytes, side) {
      totalBytes += bytes;
      if (enabled) write(`phasewise: [${elapsed()}] loading ${side} file ${path.basename(file)} (${(bytes / 1_048_576).toFixed(1)} MB)\n`);
    },
    sink(message, fraction) {
      if (!enabled) return;
      const now = Date.now();
      if (fraction !== undefined && fraction < 1 && now - lastLine < THROTTLE_MS) return;
      lastLine = now;
      const pct = fraction === undefined ? '' : ` ${(fraction * 100).toFixed(0)}%`;
      write(`phasewise: [${elapsed()}] ${message}${pct}\n`);
    },
    done(what) {
      if (!enabled) return;
      const seconds = (Date.now() - started) / 1000;
      const mb = totalBytes / 1_048_576;
      const rate = seconds > 0 && mb > 0 ? `, ${(mb / seconds).toFixed(1)} MB/s` : '';
      write(`phasewise: [${elapsed()}] ${what} (${mb.toFixed(1)} MB${rate})\n`);
    },
  };
}
