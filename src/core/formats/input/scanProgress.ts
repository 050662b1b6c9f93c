import { readFileSync } from 'fs';
import * as path from 'path';
import { SCAN_MESSAGE_PREFIX } from '../../loadProgress';
import type { ReaderContext } from '../types';

/** Bytes this process has read through read(2) and friends (Linux /proc/self/io `rchar`), or undefined elsewhere. */
function processBytesRead(): number | undefined {
  try {
    const m = /^rchar:\s*(\d+)/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The progress callback for a reader's statement that scans its file: the share of the file read,
 * passed to the caller's sink as "reading FILE" with that fraction (the CLI and the editor turn it
 * into bytes, rate and time left). Undefined when nobody listens, so the statement runs without
 * progress polling.
 *
 * The share is DuckDB's own estimate when it has one. DuckDB (1.5) reports none while a scan feeds a
 * hash aggregate (the k6 reader's grouping stays at 0 % to the end), so then it is the bytes the
 * process has read since the statement began over the file's size (Linux only, held below 100 %
 * until the statement ends: other reads of the process count too).
 */
export function scanProgress(ctx: Pick<ReaderContext, 'path' | 'progress' | 'bytes'>): ((fraction: number | undefined) => void) | undefined {
  const sink = ctx.progress;
  if (sink === undefined) return undefined;
  const message = `${SCAN_MESSAGE_PREFIX}${path.basename(ctx.path)}`;
  const start = processBytesRead();
  return (fraction) => {
    if (fraction !== undefined) return sink(message, fraction);
    const now = processBytesRead();
    if (start === undefined || now === undefined || ctx.bytes === undefined || ctx.bytes <= 0) return;
    sink(message, Math.min(0.99, (now - start) / ctx.bytes));
  };
}
