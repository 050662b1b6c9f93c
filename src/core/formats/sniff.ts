import { open } from 'fs/promises';
import { createGunzip } from 'zlib';
import { InputError } from '../errors';
import { quoteFileText } from '../escape';
import { sniffToolFormat, TOOL_FORMATS_EXPECTED, type ToolFormatId } from './tools/toolSniff';
import { nearMiss } from './nearMiss';

export type FormatId =
  | 'k6-json'
  | 'k6-csv'
  | 'k6-summary'
  | 'records-ndjson'
  | 'records-csv'
  | 'otlp-json'
  | 'jaeger-json'
  | 'zipkin-json'
  | ToolFormatId;

export interface SniffResult {
  format: FormatId;
  side: 'client' | 'server' | 'summary';
  gzip: boolean;
  /** True when the JSON is one object/record per line (NDJSON); false for a single document. */
  lineDelimited: boolean;
}

const HEAD_BYTES = 64 * 1024;
/**
 * How far the head is read on to find the end of the first line. Real OTLP/HTTP request bodies stored
 * one per line are often longer than HEAD_BYTES (an SDK batch of 512 spans is ≈ 350 KB): cut at
 * 64 KiB, such a line was taken for a single pretty-printed document and read whole (issue 12: a
 * 440 MB file ran DuckDB out of memory). A first line longer than this is a single document.
 */
const FIRST_LINE_BYTES = 64 * 1024 * 1024;

export const EXPECTED_FORMATS =
  `k6 JSON output (--out json), k6 CSV output, a k6 summary, per-request records (NDJSON/CSV), OTLP JSON, Jaeger JSON or Zipkin v2 JSON, ${TOOL_FORMATS_EXPECTED}`;

/** Reads the file's (decompressed) text: at least 64 KiB, and on to the end of the first line (up to 64 MiB). */
export async function readHead(file: string): Promise<{ text: string; gzip: boolean }> {
  const { text, gzip } = await readHeadBytes(file);
  return { text, gzip };
}

async function readHeadBytes(file: string): Promise<{ text: string; gzip: boolean; raw: Buffer }> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    const raw = buf.subarray(0, bytesRead);
    if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) {
      const inner = await gunzipPrefix(file).catch(() => {
        throw new InputError(file, undefined, 'a gzip file that can be decompressed (it starts like one)', 'a corrupt gzip stream');
      });
      return { text: inner.toString('utf8'), gzip: true, raw: inner };
    }
    const chunks = [raw];
    let size = raw.length;
    let last = raw;
    while (last.length === HEAD_BYTES && !chunks.some((c) => c.includes(0x0a)) && size < FIRST_LINE_BYTES) {
      const more = Buffer.alloc(HEAD_BYTES);
      const r = await handle.read(more, 0, HEAD_BYTES, size);
      last = more.subarray(0, r.bytesRead);
      chunks.push(last);
      size += r.bytesRead;
    }
    const head = chunks.length === 1 ? raw : Buffer.concat(chunks);
    return { text: head.toString('utf8'), gzip: false, raw: head };
  } finally {
    await handle.close();
  }
}

/**
 * UTF-16 and UTF-32 text (a byte-order mark, or a NUL after every ASCII byte): every format we read
 * is UTF-8, and decoding these as UTF-8 would report the first line as garbage.
 */
function otherEncoding(raw: Buffer): string | undefined {
  if (raw.length >= 4 && raw[0] === 0xff && raw[1] === 0xfe && raw[2] === 0 && raw[3] === 0) return 'UTF-32LE';
  if (raw.length >= 4 && raw[0] === 0 && raw[1] === 0 && raw[2] === 0xfe && raw[3] === 0xff) return 'UTF-32BE';
  if (raw.length >= 2 && raw[0] === 0xff && raw[1] === 0xfe) return 'UTF-16LE';
  if (raw.length >= 2 && raw[0] === 0xfe && raw[1] === 0xff) return 'UTF-16BE';
  if (raw.length >= 4 && raw[0] !== 0 && raw[1] === 0 && raw[2] !== 0 && raw[3] === 0) return 'UTF-16LE';
  if (raw.length >= 4 && raw[0] === 0 && raw[1] !== 0 && raw[2] === 0 && raw[3] !== 0) return 'UTF-16BE';
  return undefined;
}

/** Decompresses only the beginning of a gzip file (a truncated stream is fine here), as readHead reads a plain one. */
async function gunzipPrefix(file: string): Promise<Buffer> {
  const { createReadStream } = await import('fs');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let newline = false;
    const input = createReadStream(file);
    const gunzip = createGunzip();
    const finish = (): void => {
      input.destroy();
      gunzip.destroy();
      const all = Buffer.concat(chunks);
      resolve(all.subarray(0, Math.max(HEAD_BYTES, newline ? all.indexOf(0x0a) + 1 : all.length)));
    };
    gunzip.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      newline ||= chunk.includes(0x0a);
      if (size >= HEAD_BYTES && (newline || size >= FIRST_LINE_BYTES)) finish();
    });
    gunzip.on('end', finish);
    gunzip.on('error', (err) => (size > 0 ? finish() : reject(err)));
    input.on('error', reject);
    input.pipe(gunzip);
  });
}

function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return (nl < 0 ? text : text.slice(0, nl)).replace(/^\uFEFF/, '').trim();
}

const RECORD_KEYS = ['request_id', 'send_offset_ms', 'scheduled_offset_ms', 'outcome', 'generator_dropped'];

/** How many characters of an unrecognised first line a refusal quotes. */
const QUOTED_CHARS = 80;

export interface SniffOptions {
  /**
   * Quote the first line (escaped, cut short) when nothing matches: the user named this file. False
   * for a file found in a folder (classifyInputs.ts): its content is never echoed (a folder holds
   * keys and notes as well as runs).
   */
  quote?: boolean;
}

function unrecognised(file: string, line: string, quote: boolean): InputError {
  return new InputError(file, 1, EXPECTED_FORMATS, quote ? quoteFileText(line, QUOTED_CHARS) : 'a first line that is none of these (not quoted: the file was found in a folder, not named)');
}

/**
 * Recognises a file by its content, never its name. Throws an InputError naming what was expected
 * when nothing matches (empty files included).
 */
export async function sniffFile(file: string, options: SniffOptions = {}): Promise<SniffResult> {
  const { text, gzip, raw } = await readHeadBytes(file);
  const encoding = otherEncoding(raw);
  if (encoding) throw new InputError(file, 1, `UTF-8 text (${EXPECTED_FORMATS})`, `${encoding} (convert it first, e.g. iconv -f ${encoding} -t UTF-8)`);
  const head = text.replace(/^\uFEFF/, '');
  const trimmed = head.trimStart();
  if (trimmed.length === 0) throw new InputError(file, 1, EXPECTED_FORMATS, 'an empty file');
  const line = firstLine(trimmed);

  // CSV: the first line is a header.
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) {
    const cols = line.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
    if (cols[0] === 'metric_name' && cols.includes('timestamp') && cols.includes('metric_value')) {
      return { format: 'k6-csv', side: 'client', gzip, lineDelimited: true };
    }
    if (cols.includes('trace_id') && RECORD_KEYS.some((k) => cols.includes(k))) {
      return { format: 'records-csv', side: 'client', gzip, lineDelimited: true };
    }
    throw unrecognised(file, line, options.quote !== false);
  }

  // Line-delimited JSON: the first line is a complete object.
  const oneLineObject = line.startsWith('{') && line.endsWith('}') && isJson(line);
  // Other load generators' per-request files (toolSniff.ts), first: a guidellm report on one line has
  // "request_id" keys, which the records check below would take for per-request records.
  const tool = sniffToolFormat(line, head, oneLineObject);
  if (tool) return { format: tool, side: 'client', gzip, lineDelimited: tool === 'aiperf-jsonl' };

  if (oneLineObject) {
    if (/"type"\s*:\s*"(Metric|Point)"/.test(line)) return { format: 'k6-json', side: 'client', gzip, lineDelimited: true };
    if (/"resourceSpans"\s*:/.test(line)) return { format: 'otlp-json', side: 'server', gzip, lineDelimited: true };
    if (RECORD_KEYS.some((k) => line.includes(`"${k}"`))) return { format: 'records-ndjson', side: 'client', gzip, lineDelimited: true };
  }

  // A single JSON document (pretty-printed or not).
  if (/^\{\s*"result"\s*:\s*\{\s*"resourceSpans"/.test(trimmed) || /"resourceSpans"\s*:/.test(head)) {
    return { format: 'otlp-json', side: 'server', gzip, lineDelimited: oneLineObject };
  }
  // A Jaeger query response for a search that found nothing: said as such, not "matches no format".
  if (/^\{\s*"data"\s*:\s*\[\s*\]/.test(trimmed)) {
    throw new InputError(file, 1, 'a Jaeger JSON file with at least one trace', 'a Jaeger query response with no traces ("data": [])');
  }
  if (/"traceID"\s*:/.test(head) && /"spans"\s*:/.test(head)) {
    return { format: 'jaeger-json', side: 'server', gzip, lineDelimited: false };
  }
  if (trimmed.startsWith('[') && /"traceId"\s*:/.test(head) && /"id"\s*:/.test(head)) {
    return { format: 'zipkin-json', side: 'server', gzip, lineDelimited: false };
  }
  if (/"metrics"\s*:/.test(head) && /"(root_group|state|options|values|med|avg)"\s*:/.test(head)) {
    return { format: 'k6-summary', side: 'summary', gzip, lineDelimited: false };
  }
  const miss = nearMiss(trimmed);
  if (miss) throw new InputError(file, 1, miss.expected, options.quote !== false ? `${miss.found}: ${quoteFileText(line, QUOTED_CHARS)}` : `${miss.found} (not quoted: the file was found in a folder, not named)`);
  throw unrecognised(file, line, options.quote !== false);
}

function isJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}
