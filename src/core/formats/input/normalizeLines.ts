/**
 * The line-exact slow path's first step (ndjsonLines.ts, csvRows.ts): the file, decompressed, copied
 * to a temporary plain file that DuckDB's line reader can always read, with every line where it was.
 *
 * Why JavaScript here: DuckDB's CSV reader (the only one that yields physical lines) stops with "the
 * CSV Parser state machine reached an invalid state" on a carriage return it did not expect (CRLF
 * lines mixed with LF ones, a stray CR), on invalid UTF-8 and on a line past max_line_size; and its
 * gzip reader does not check the CRC, so a corrupt file read as garbage lines. This pass runs only
 * when a file has something to report (the fast paths never call it), streams with native Buffer
 * searches (no per-line decoding), and hands DuckDB lines it reads without fail:
 * - a CRLF ending loses its CR; other CRs become U+E00D and are restored by the SQL (crLines);
 * - U+0001 (the line reader's delimiter) becomes U+0002: a raw control character is never valid JSON
 *   whichever it is, so the line stays exactly as bad, and is quoted with \u0002 in its message;
 * - leading UTF-8 byte-order marks are dropped;
 * - a line that is not UTF-8, or longer than maxLineBytes, is replaced by SKIPPED_LINE and listed
 *   in `special`, so it is reported with its number and never parsed;
 * - gzip errors are caught with the number of the line they happened in;
 * - runs of empty lines are counted and copied as one piece (never split into lines), and a file with
 *   more than BLANK_ALLOWANCE blank lines beyond its lines of data is refused (InputError naming the
 *   limit) as soon as it has them: blank lines are not data, and 3 MB of gzip made 3 GiB of them,
 *   copied here at 2.4 MB/s one line at a time (16 MiB took 23 s, 8 MiB of a CSV over 60 s).
 */
import { isUtf8 } from 'buffer';
import { createReadStream, createWriteStream } from 'fs';
import { rm } from 'fs/promises';
import * as path from 'path';
import { createGunzip } from 'zlib';
import { newlinesInIntactMembers } from './gzipMembers';
import { InputError } from '../../errors';
import { processTempDirectory } from '../../tempDirectory';

/** What replaces a line the pass skipped (never a valid JSON or CSV line, never blank). */
export const SKIPPED_LINE = '\u0002phasewise-skipped-line';

/**
 * What replaces a blank line when the caller asks (CSV: DuckDB's CSV reader skips empty lines
 * without counting them, so every later row would get the wrong line; this one it rejects, in place).
 */
export const BLANK_LINE = '\u0002phasewise-blank-line';

/** Replaces a CR that is not part of a CRLF ending, so DuckDB's line reader accepts the line. */
export const CR_STAND_IN = '\ue00d';

export interface SpecialLine {
  line: number;
  code: 'line-too-long' | 'invalid-utf8';
  /** Size of the line in bytes. */
  bytes: number;
}

export interface GzipProblem {
  kind: 'crc' | 'truncated' | 'corrupt';
  /** The line being read when the stream failed (1-based). */
  line: number;
}

export interface NormalizedLines {
  /** The temporary plain file (LF endings). */
  file: string;
  /** Physical lines of the (decompressed) input, the last one counted even without a final newline. */
  lines: number;
  special: SpecialLine[];
  /** Lines whose CRs other than a CRLF ending were replaced by CR_STAND_IN. */
  crLines: number[];
  /** Lines that ended in CRLF. */
  crlfLines: number;
  /** Bytes of the longest line written to `file` (without its newline): the line reader's max_line_size follows it. */
  longest: number;
  bom: boolean;
  gzip?: GzipProblem;
  remove(): Promise<void>;
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const CR_BYTES = Buffer.from(CR_STAND_IN, 'utf8');
const SKIPPED_BYTES = Buffer.from(`${SKIPPED_LINE}\n`, 'utf8');
const BLANK_BYTES = Buffer.from(BLANK_LINE, 'utf8');

/** Blank lines a file may hold beyond its lines of data (a double-spaced file has as many as it has data). */
export const BLANK_ALLOWANCE = 1_000_000;

/** Only spaces and tabs (or nothing). */
function isBlank(buf: Buffer): boolean {
  for (const b of buf) if (b !== 0x20 && b !== 0x09) return false;
  return true;
}
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

let counter = 0;

/** Copies `file` (gunzipped when `gzip`) to a temporary plain file as described in the file header. */
export async function normalizeLines(file: string, gzip: boolean, maxLineBytes: number, options: { markBlank?: boolean } = {}): Promise<NormalizedLines> {
  const out = path.join(processTempDirectory(), `lines-${++counter}.txt`);
  const result: NormalizedLines = { file: out, lines: 0, special: [], crLines: [], crlfLines: 0, longest: 0, bom: false, remove: () => rm(out, { force: true }) };
  const writer = createWriteStream(out);
  const writeDone = new Promise<void>((resolve, reject) => {
    writer.on('finish', resolve);
    writer.on('error', reject);
  });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  const batch: Buffer[] = [];
  let blanks = 0;
  /** The line at which the blank lines passed BLANK_ALLOWANCE, and how many there were then (reading stops). */
  let flooded: { line: number; blanks: number } | undefined;
  /** Counts the last `n` lines read (result.lines includes them) as blank. */
  const countBlank = (n: number): void => {
    const before = result.lines - n;
    const excess = blanks - (before - blanks);
    const crossing = BLANK_ALLOWANCE + 1 - excess;
    if (flooded === undefined && crossing <= n) flooded = { line: before + crossing, blanks: blanks + crossing };
    blanks += n;
  };

  const endLine = (): void => {
    result.lines++;
    const line = result.lines;
    if (tooLong) {
      result.special.push({ line, code: 'line-too-long', bytes: pendingBytes });
      batch.push(SKIPPED_BYTES);
    } else {
      let buf = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
      // Every leading BOM (an editor that added one to a file that had one): DuckDB's JSON reader skips them too.
      while (line === 1 && buf.subarray(0, 3).equals(BOM)) {
        result.bom = true;
        buf = buf.subarray(3);
      }
      if (buf.length > 0 && buf[buf.length - 1] === CR) {
        result.crlfLines++;
        buf = buf.subarray(0, buf.length - 1);
      }
      if (!isUtf8(buf)) {
        result.special.push({ line, code: 'invalid-utf8', bytes: buf.length });
        batch.push(SKIPPED_BYTES);
      } else {
        if (buf.includes(CR)) {
          result.crLines.push(line);
          buf = replaceCr(buf);
        }
        if (buf.includes(DELIMITER)) buf = replaceDelimiter(buf);
        const blank = isBlank(buf);
        if (blank) countBlank(1);
        const written = options.markBlank && blank ? BLANK_BYTES : buf;
        if (written.length > result.longest) result.longest = written.length;
        batch.push(written, NEWLINE_BUF);
      }
    }
    pending = [];
    pendingBytes = 0;
    tooLong = false;
  };

  const take = (chunk: Buffer): void => {
    let from = 0;
    while (from < chunk.length && flooded === undefined) {
      if (pendingBytes === 0 && !tooLong && chunk[from] === NEWLINE) {
        let end = from + 1;
        while (end < chunk.length && chunk[end] === NEWLINE) end++;
        emptyLines(chunk.subarray(from, end));
        from = end;
        continue;
      }
      const nl = chunk.indexOf(NEWLINE, from);
      if (nl === -1) {
        addPart(chunk.subarray(from));
        return;
      }
      addPart(chunk.subarray(from, nl));
      endLine();
      from = nl + 1;
    }
  };

  /** A run of empty lines (its line feeds): counted, and written as one piece. */
  const emptyLines = (run: Buffer): void => {
    result.lines += run.length;
    countBlank(run.length);
    if (!options.markBlank) {
      batch.push(run);
      return;
    }
    if (BLANK_BYTES.length > result.longest) result.longest = BLANK_BYTES.length;
    for (let left = run.length; left > 0; left -= BLANK_BLOCK_LINES) batch.push(blankBlock.subarray(0, Math.min(left, BLANK_BLOCK_LINES) * (BLANK_BYTES.length + 1)));
  };

  const addPart = (part: Buffer): void => {
    pendingBytes += part.length;
    if (tooLong) return;
    if (pendingBytes > maxLineBytes) {
      tooLong = true;
      pending = [];
      return;
    }
    // No copy: file and gunzip streams hand out a new Buffer per chunk, never reused.
    if (part.length > 0) pending.push(part);
  };

  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const data = Buffer.concat(batch);
    batch.length = 0;
    if (!writer.write(data)) await new Promise<void>((resolve) => writer.once('drain', resolve));
  };

  const input = createReadStream(file, { highWaterMark: 1 << 20 });
  const source: NodeJS.ReadableStream = gzip ? input.pipe(createGunzip()) : input;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      take(chunk);
      await flush();
      if (flooded !== undefined) break;
    }
  } catch (err) {
    if (!gzip) throw err;
    input.destroy();
    const kind = gzipKind(err);
    // The failing gunzip call drops its output (up to 16 KiB of lines): a corrupt file's intact
    // members are counted again, exactly (gzipMembers.ts).
    result.gzip = { kind, line: (kind === 'corrupt' ? Math.max(result.lines, await newlinesInIntactMembers(file)) : result.lines) + 1 };
  }
  if (flooded !== undefined) {
    input.destroy();
    writer.end();
    await writeDone.catch(() => undefined);
    await result.remove();
    throw new InputError(file, flooded.line, `at most ${BLANK_ALLOWANCE.toLocaleString('en-US')} more blank lines than lines of data`,
      `more by line ${flooded.line} (${flooded.blanks} blank lines${gzip ? ', decompressed from gzip; a decompression bomb?' : ''}); nothing was loaded from it`);
  }
  if (pendingBytes > 0 || tooLong) endLine();
  await flush();
  writer.end();
  await writeDone;
  return result;
}

const NEWLINE_BUF = Buffer.from([NEWLINE]);
/** BLANK_LINE and its newline this many times: the pieces a run of empty lines is written from (markBlank). */
const BLANK_BLOCK_LINES = 4096;
const blankBlock = Buffer.from(`${BLANK_LINE}\n`.repeat(BLANK_BLOCK_LINES), 'utf8');

const DELIMITER = 0x01;

function replaceDelimiter(buf: Buffer): Buffer {
  const out = Buffer.from(buf);
  for (let i = out.indexOf(DELIMITER); i !== -1; i = out.indexOf(DELIMITER, i + 1)) out[i] = 0x02;
  return out;
}

function replaceCr(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let cr = buf.indexOf(CR, from); cr !== -1; cr = buf.indexOf(CR, from)) {
    parts.push(buf.subarray(from, cr), CR_BYTES);
    from = cr + 1;
  }
  parts.push(buf.subarray(from));
  return Buffer.concat(parts);
}

function gzipKind(err: unknown): GzipProblem['kind'] {
  const code = (err as NodeJS.ErrnoException).code;
  const message = err instanceof Error ? err.message : '';
  if (code === 'Z_BUF_ERROR' || /unexpected end/i.test(message)) return 'truncated';
  if (/incorrect data check|crc/i.test(message)) return 'crc';
  return 'corrupt';
}

/** What a gzip problem means to the user (the file name is added by the caller). */
export function describeGzipProblem(problem: GzipProblem): string {
  switch (problem.kind) {
    case 'crc':
      return `a gzip stream whose checksum does not match its data (corrupt; the failure shows at line ${problem.line})`;
    case 'truncated':
      return `a gzip stream that ends early (truncated; the data stops in line ${problem.line})`;
    case 'corrupt':
      return `a gzip stream that cannot be decompressed past line ${problem.line - 1} (corrupt)`;
  }
}
