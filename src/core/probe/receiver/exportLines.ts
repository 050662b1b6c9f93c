/**
 * An accepted export as the lines the receiver stores: compact ExportTraceServiceRequest objects of at
 * most LINE_TARGET_BYTES each (a large export becomes several lines, each with its resource and scope),
 * so that every line is one DuckDB's JSON reader can parse within the smallest memory limit.
 *
 * Why: the line is what DuckDB parses at once, and its parse holds ≈ 55 MiB + 9 × the line's size per
 * thread outside the spillable buffer pool (formats/input/jsonReadPlan.ts). A 22 MB protobuf export of
 * 5,000 spans × 420 attributes is an 86 MB JSON line: its load ran out of memory at the default 1200MB
 * limit, after the export had been answered 200. Measured on that export cut into lines of 1, 4 and
 * 16 MiB: all load at 1200MB; at --memory-limit 128MB only the 1 MiB lines do.
 *
 * A span whose own line would pass MAX_SPAN_BYTES is refused (the response's partial_success), not
 * stored: it could not be loaded at any memory limit the receiver runs with by default.
 */
import type { SpanDigest } from '../spans/digest';
import type { DecodedExport } from './otlpDecode';

/** A line holds spans up to this size (JSON characters, resource and scope included). */
export const LINE_TARGET_BYTES = 1024 * 1024;
/** A single span larger than this (as JSON) is refused. */
export const MAX_SPAN_BYTES = 4 * 1024 * 1024;

export interface ExportLines {
  /** The compact lines, in span order (no newline). */
  lines: string[];
  /** The accepted spans' digests, and the line each one is in (same order). */
  spans: SpanDigest[];
  lineOfSpan: number[];
  /** Spans refused here for their size (added to the export's own rejected count by the caller). */
  oversized: number;
}

type Json = Record<string, unknown>;

/** `{…}` with `key` and its JSON value appended as the last member (what JSON.stringify({...rest, key}) writes). */
function withLast(restJson: string, key: string, valueJson: string): string {
  return `${restJson.slice(0, -1)}${restJson === '{}' ? '' : ','}"${key}":${valueJson}}`;
}

/**
 * Cuts `decoded.request` into lines (see the file header). decoded.spans are the digests of the kept
 * spans in request order (otlpDecode.ts), which is the order walked here. Each span is stringified
 * once; a line is assembled from the pieces, byte for byte what JSON.stringify of the same object writes.
 */
export function exportLines(decoded: DecodedExport, target = LINE_TARGET_BYTES, maxSpan = MAX_SPAN_BYTES): ExportLines {
  const out: ExportLines = { lines: [], spans: [], lineOfSpan: [], oversized: 0 };
  let digest = 0;
  // The line being filled: finished resources, the open resource's finished scopes, the open scope's spans.
  let resources: string[] = [];
  let scopes: string[] = [];
  let spans: string[] = [];
  let size = 0;
  let lineSpans: SpanDigest[] = [];
  let rsJson = '';
  let ssJson = '';
  let rsOpen = false;
  let ssOpen = false;
  const closeScope = (): void => {
    if (ssOpen) scopes.push(withLast(ssJson, 'spans', `[${spans.join(',')}]`));
    ssOpen = false;
    spans = [];
  };
  const closeResource = (): void => {
    closeScope();
    if (rsOpen) resources.push(withLast(rsJson, 'scopeSpans', `[${scopes.join(',')}]`));
    rsOpen = false;
    scopes = [];
  };
  const flush = (): void => {
    closeResource();
    if (resources.length === 0) return;
    const line = out.lines.length;
    out.lines.push(`{"resourceSpans":[${resources.join(',')}]}`);
    for (const s of lineSpans) {
      out.spans.push(s);
      out.lineOfSpan.push(line);
    }
    resources = [];
    lineSpans = [];
    size = 0;
  };
  const open = (withScope: boolean): void => {
    if (!rsOpen) {
      rsOpen = true;
      size += rsJson.length;
    }
    if (withScope && !ssOpen) {
      ssOpen = true;
      size += ssJson.length;
    }
  };
  for (const rsValue of decoded.request.resourceSpans) {
    const { scopeSpans, ...rsRest } = rsValue as Json;
    rsJson = JSON.stringify(rsRest);
    const scopeList = (scopeSpans as unknown[] | undefined) ?? [];
    if (scopeList.length === 0) open(false);
    for (const ssValue of scopeList) {
      const { spans: spanList, ...ssRest } = ssValue as Json;
      ssJson = JSON.stringify(ssRest);
      const list = (spanList as unknown[] | undefined) ?? [];
      if (list.length === 0) open(true);
      for (const span of list) {
        const d = decoded.spans[digest++];
        const text = JSON.stringify(span);
        if (text.length + rsJson.length + ssJson.length > maxSpan) {
          out.oversized++;
          continue;
        }
        if (size + text.length > target && lineSpans.length > 0) {
          // The line is full: it ends here, and the next one reopens this resource and scope.
          flush();
        }
        open(true);
        spans.push(text);
        lineSpans.push(d);
        size += text.length + 1;
      }
      closeScope();
    }
    closeResource();
  }
  flush();
  // An export with no resourceSpans at all is still one (empty) line, as it was received.
  if (out.lines.length === 0) out.lines.push('{"resourceSpans":[]}');
  return out;
}
