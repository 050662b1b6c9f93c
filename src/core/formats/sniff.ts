import { open } from 'fs/promises';
import { createGunzip } from 'zlib';
import { InputError } from '../errors';

export type FormatId =
  | 'k6-json'
  | 'k6-csv'
  | 'k6-summary'
  | 'records-ndjson'
  | 'records-csv'
  | 'otlp-json'
  | 'jaeger-json'
  | 'zipkin-json';

export interface SniffResult {
  format: FormatId;
  side: 'client' | 'server' | 'summary';
  gzip: boolean;
  /** True when the JSON is one object/record per line (NDJSON); false for a single document. */
  lineDelimited: boolean;
}

const HEAD_BYTES = 64 * 1024;

export const EXPECTED_FORMATS =
  'k6 JSON output (--out json), k6 CSV output, a k6 summary, per-request records (NDJSON/CSV), OTLP JSON, Jaeger JSON or Zipkin v2 JSON';

/** Reads up to 64 KiB of the file's (decompressed) text. */
export async function readHead(file: string): Promise<{ text: string; gzip: boolean }> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    const raw = buf.subarray(0, bytesRead);
    if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) {
      return { text: await gunzipPrefix(file), gzip: true };
    }
    return { text: raw.toString('utf8'), gzip: false };
  } finally {
    await handle.close();
  }
}

/** Decompresses only the beginning of a gzip file (a truncated stream is fine here). */
async function gunzipPrefix(file: string): Promise<string> {
  const { createReadStream } = await import('fs');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const input = createReadStream(file);
    const gunzip = createGunzip();
    const finish = (): void => {
      input.destroy();
      gunzip.destroy();
      resolve(Buffer.concat(chunks).subarray(0, HEAD_BYTES).toString('utf8'));
    };
    gunzip.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= HEAD_BYTES) finish();
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

/**
 * Recognises a file by its content, never its name. Throws an InputError naming what was expected
 * when nothing matches (empty files included).
 */
export async function sniffFile(file: string): Promise<SniffResult> {
  const { text, gzip } = await readHead(file);
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
    throw new InputError(file, 1, EXPECTED_FORMATS, `'${line.slice(0, 80)}'`);
  }

  // Line-delimited JSON: the first line is a complete object.
  const oneLineObject = line.startsWith('{') && line.endsWith('}') && isJson(line);
  if (oneLineObject) {
    if (/"type"\s*:\s*"(Metric|Point)"/.test(line)) return { format: 'k6-json', side: 'client', gzip, lineDelimited: true };
    if (/"resourceSpans"\s*:/.test(line)) return { format: 'otlp-json', side: 'server', gzip, lineDelimited: true };
    if (RECORD_KEYS.some((k) => line.includes(`"${k}"`))) return { format: 'records-ndjson', side: 'client', gzip, lineDelimited: true };
  }

  // A single JSON document (pretty-printed or not).
  if (/^\{\s*"result"\s*:\s*\{\s*"resourceSpans"/.test(trimmed) || /"resourceSpans"\s*:/.test(head)) {
    return { format: 'otlp-json', side: 'server', gzip, lineDelimited: oneLineObject };
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
  throw new InputError(file, 1, EXPECTED_FORMATS, `'${line.slice(0, 80)}'`);
}

function isJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}
