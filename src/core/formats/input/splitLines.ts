/**
 * Cuts a line-delimited file into pieces of about `pieceBytes` at line ends (decompressing gzip), so
 * that DuckDB's JSON reader, which sizes its buffers from the file it reads (at least 16 MiB for a
 * large one, whatever maximum_object_size says), reads small ones (see jsonReadPlan.ts). Bytes are
 * copied as they are: the pieces concatenated are the file, line for line.
 */
import { createReadStream } from 'fs';
import { writeFile } from 'fs/promises';
import * as path from 'path';
import { createGunzip } from 'zlib';

export interface SplitResult {
  files: string[];
  /** Bytes of the (decompressed) text. */
  bytes: number;
  /** The longest line (bytes, with its newline): a piece is never smaller than the line it holds. */
  longestLine: number;
}

const NEWLINE = 0x0a;

/**
 * Writes `dir`/piece-00000.ndjson … and returns their paths in file order. `onBytes` is called with
 * the bytes of the file read so far (compressed bytes for gzip, so it compares with the file's size).
 */
export async function splitLines(file: string, gzip: boolean, dir: string, pieceBytes: number, onBytes?: (read: number) => void): Promise<SplitResult> {
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  let read = 0;
  raw.on('data', (chunk) => {
    read += chunk.length;
    onBytes?.(read);
  });
  const input = gzip ? raw.pipe(createGunzip()) : raw;
  const files: string[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let bytes = 0;
  let longestLine = 0;
  let lineSoFar = 0;
  const write = async (data: Buffer): Promise<void> => {
    const name = path.join(dir, `piece-${String(files.length).padStart(5, '0')}.ndjson`);
    await writeFile(name, data);
    files.push(name);
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      // Track the longest line across chunk boundaries.
      let from = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, nl + 1)) {
        longestLine = Math.max(longestLine, lineSoFar + nl + 1 - from);
        lineSoFar = 0;
        from = nl + 1;
      }
      lineSoFar += chunk.length - from;
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < pieceBytes) continue;
      let all = Buffer.concat(pending, pendingBytes);
      // Cut at the first line end at or past the piece size, as often as the buffer allows; a line
      // longer than a piece stays whole (the piece ends with it).
      for (let cut = all.indexOf(NEWLINE, pieceBytes - 1); cut >= 0; cut = all.indexOf(NEWLINE, pieceBytes - 1)) {
        await write(all.subarray(0, cut + 1));
        all = all.subarray(cut + 1);
      }
      pending = all.length > 0 ? [Buffer.from(all)] : [];
      pendingBytes = all.length;
    }
    if (pendingBytes > 0) await write(Buffer.concat(pending, pendingBytes));
  } finally {
    raw.destroy();
  }
  return { files, bytes, longestLine: Math.max(longestLine, lineSoFar) };
}
