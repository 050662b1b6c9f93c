/**
 * The fuzz test's own reading of a file's bytes, independent of the readers: which lines are blank,
 * not UTF-8 or not a JSON object, and how many spans, elements and k6 http_reqs Points the file
 * holds. It shares no code with src/core/formats; where JSON.parse and DuckDB may read one line
 * differently (a time or a value in a string), it says "uncertain" instead of guessing.
 */
import { isUtf8 } from 'buffer';
import { gunzipSync } from 'zlib';

export interface LineView {
  /** 1-based line number. */
  line: number;
  bytes: Buffer;
  text: string;
  blank: boolean;
  utf8: boolean;
  /** The parsed object, when the line is one JSON object (as DuckDB's json_valid and `{` test see it). */
  value?: Record<string, unknown>;
}

/** What a file holds before any reader sees it: its decompressed bytes, or why they cannot be read. */
export function decode(raw: Buffer): { bytes?: Buffer; problem?: 'gzip-corrupt' | 'gzip-truncated' | 'utf16' } {
  let bytes = raw;
  let truncated = false;
  if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      bytes = gunzipSync(raw);
    } catch (err) {
      const message = err instanceof Error ? err.message : '';
      if (!/unexpected end/i.test(message)) return { problem: 'gzip-corrupt' };
      // What a stream reader gets before the end: decompress with a flush that does not need the trailer.
      bytes = gunzipSync(raw, { finishFlush: 2 /* Z_SYNC_FLUSH */ });
      truncated = true;
    }
  }
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) return { problem: 'utf16' };
  return truncated ? { bytes, problem: 'gzip-truncated' } : { bytes };
}

/**
 * The file's physical lines: split at LF, a CRLF's CR and the first line's UTF-8 BOMs dropped. A
 * line of spaces and tabs is blank (JSON whitespace: the readers skip it, as DuckDB's JSON reader does).
 */
export function viewLines(bytes: Buffer): LineView[] {
  const out: LineView[] = [];
  let from = 0;
  let n = 0;
  while (from < bytes.length) {
    let nl = bytes.indexOf(0x0a, from);
    if (nl === -1) nl = bytes.length;
    let b = bytes.subarray(from, nl);
    n++;
    while (n === 1 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
    if (b.length > 0 && b[b.length - 1] === 0x0d) b = b.subarray(0, b.length - 1);
    const utf8 = isUtf8(b);
    const text = b.toString('utf8');
    const view: LineView = { line: n, bytes: b, text, utf8, blank: utf8 && /^[ \t]*$/.test(text) };
    if (utf8 && !view.blank) view.value = parseObject(text);
    out.push(view);
    from = nl + 1;
  }
  return out;
}

/**
 * One JSON object, as DuckDB takes a line: json_valid and a `{` after leading spaces. JSON.parse and
 * DuckDB agree on what byte edits produce, except NaN/Infinity (DuckDB accepts them, JSON.parse not;
 * a caller treats such lines as uncertain) and raw control characters (both refuse them).
 */
function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.replace(/^ +/, '').startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A line JSON.parse refuses but DuckDB's JSON reader may accept (NaN, Infinity literals). */
export function maybeNonStandardJson(view: LineView): boolean {
  return view.value === undefined && /\b(NaN|Infinity)\b/.test(view.text);
}

/** What an OTLP line holds, walked the way the OTLP data model nests it. */
export interface OtlpCount {
  /** Span entries that are not null (objects and other values, which have no IDs). */
  spans: number;
  /** Of those, without a trace ID or span ID. */
  withoutId: number;
  /** Null spans, resources or scopes without their list: what the reader reports as malformed elements. */
  elements: number;
  /** True when the line has no resourceSpans list at all (another format's line). */
  foreign: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The ID as json_transform's VARCHAR gives it (a string as is, other values as JSON text); null when absent or blank. */
function idText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.replace(/^ +| +$/g, '') === '' ? null : s;
}

export function countOtlp(doc: Record<string, unknown>): OtlpCount {
  const out: OtlpCount = { spans: 0, withoutId: 0, elements: 0, foreign: false };
  const result = isObject(doc.result) ? doc.result : undefined;
  const rs = Array.isArray(doc.resourceSpans) ? doc.resourceSpans : Array.isArray(result?.resourceSpans) ? (result?.resourceSpans as unknown[]) : undefined;
  if (!rs) {
    out.foreign = true;
    return out;
  }
  for (const r of rs) {
    const scopes = isObject(r) ? (Array.isArray(r.scopeSpans) ? r.scopeSpans : Array.isArray(r.instrumentationLibrarySpans) ? r.instrumentationLibrarySpans : undefined) : undefined;
    if (!scopes) {
      out.elements++;
      continue;
    }
    for (const s of scopes) {
      const spans = isObject(s) && Array.isArray(s.spans) ? s.spans : undefined;
      if (!spans) {
        out.elements++;
        continue;
      }
      for (const sp of spans) {
        if (sp === null) {
          out.elements++;
          continue;
        }
        out.spans++;
        if (!isObject(sp) || idText(sp.traceId) === null || idText(sp.spanId) === null) out.withoutId++;
      }
    }
  }
  return out;
}

/** Span elements of a Zipkin v2 document (an array of spans, or of arrays of spans). */
export function countZipkin(doc: unknown): number | undefined {
  if (!Array.isArray(doc)) return undefined;
  return doc.reduce((n: number, e: unknown) => n + (Array.isArray(e) ? e.length : 1), 0);
}

/** Span elements of a Jaeger document (`{"data":[…]}`, `{"data":{…}}` or a bare trace); a trace without a span list counts one. */
export function countJaeger(doc: unknown): number | undefined {
  if (!isObject(doc)) return undefined;
  const traces = Array.isArray(doc.data) ? doc.data : isObject(doc.data) ? [doc.data] : [doc];
  return traces.reduce((n: number, t: unknown) => n + (isObject(t) && Array.isArray(t.spans) ? t.spans.length : 1), 0);
}

/** Metrics the k6 reader groups (the others are counted as unused). */
export function k6MetricUsed(metric: string): boolean {
  return metric.startsWith('http_req') || ['iterations', 'dropped_iterations', 'vus', 'llm_ttft_ms', 'llm_itl_ms', 'llm_output_tokens'].includes(metric);
}
