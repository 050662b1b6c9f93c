/**
 * An OTLP/HTTP trace export body → the OTLP JSON request object the Collector's file exporter writes
 * (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): hex trace and span IDs,
 * 64-bit integers as decimal strings, enums as numbers, lowerCamelCase field names.
 *
 * Protobuf is decoded with the opentelemetry-proto types that the OpenTelemetry JS project generates
 * for protobufjs (shipped in @opentelemetry/otlp-transformer; see the commit that added it).
 * Spans whose trace or span ID is missing, all-zero or of the wrong length are refused (the request's
 * `partial_success.rejected_spans`), and removed from what is stored.
 */
import { normalizeId, scopeLists, serviceName, digestOtlpSpan, type SpanDigest } from '../spans/digest';
import { isObject } from '../send/sse';
import { otlpTypes } from './otlpProto';

/** An accepted export: the request to store, its spans' digests, and what was refused. */
export interface DecodedExport {
  /** The request object with the refused spans removed (one compact line once stringified). */
  request: { resourceSpans: unknown[] };
  spans: SpanDigest[];
  rejected: number;
  /** Why spans were refused (first few reasons), for `partial_success.error_message`. */
  rejectReasons: string[];
}

/** The body cannot be read as an ExportTraceServiceRequest (HTTP 400). */
export class UndecodableError extends Error {}

/**
 * Arrays and objects nested deeper than this are refused (400). An accepted export is stored as one
 * line by JSON.stringify, whose recursion ran out of stack between 4,000 and 8,000 levels: a JSON
 * attribute nested 10,000 deep was answered 500 "internal error". A real export nests a handful of
 * levels, and four more per AnyValue inside another.
 */
export const MAX_NESTING = 1000;

export function decodeProtobufExport(body: Uint8Array): DecodedExport {
  const { ExportTraceServiceRequest } = otlpTypes();
  let obj: Record<string, unknown>;
  try {
    // Both recurse into nested values: a deep enough message overflows the stack in either.
    const message = ExportTraceServiceRequest.decode(body);
    obj = ExportTraceServiceRequest.toObject(message, { longs: String, enums: Number, bytes: String, defaults: false });
  } catch (err) {
    throw new UndecodableError(`not a protobuf ExportTraceServiceRequest: ${err instanceof Error ? err.message : String(err)}`);
  }
  refuseDeepNesting(obj);
  return acceptSpans(obj, true);
}

/**
 * The 64-bit integer fields of OTLP JSON, which proto-JSON writes as strings but an exporter may write
 * as numbers: JSON.parse rounded those to a double (…251 was stored as …400: an 82 ns span became 0 ns).
 */
const INT64_NUMBER = /("(?:startTimeUnixNano|endTimeUnixNano|timeUnixNano|intValue)"\s*:\s*)(-?\d+)(?=\s*[,}\]])/g;

export function decodeJsonExport(body: Uint8Array): DecodedExport {
  let doc: unknown;
  try {
    // Integers are quoted before parsing, so they keep every digit (the file readers read them as
    // text too). In valid JSON the pattern cannot match inside a string: there a quote is escaped.
    const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8').replace(INT64_NUMBER, '$1"$2"');
    doc = JSON.parse(text);
  } catch (err) {
    throw new UndecodableError(`not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(doc)) throw new UndecodableError('expected a JSON object (an ExportTraceServiceRequest)');
  refuseDeepNesting(doc);
  if (doc.resourceSpans !== undefined && !Array.isArray(doc.resourceSpans)) {
    throw new UndecodableError('resourceSpans must be an array');
  }
  return acceptSpans(doc, false);
}

/**
 * Throws UndecodableError when arrays and objects in `root` nest deeper than MAX_NESTING. Walked
 * without recursion, on two parallel stacks, arrays by index and objects by for…in (Object.values
 * allocated per node cost 3×): a 25 MiB export of 1M nodes took 60 ms where JSON.parse took 870 ms
 * and JSON.stringify 350 ms (2 shared cores, load 5.9).
 */
function refuseDeepNesting(root: unknown): void {
  const values: object[] = [];
  const depths: number[] = [];
  if (root !== null && typeof root === 'object') {
    values.push(root);
    depths.push(1);
  }
  while (values.length > 0) {
    const value = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > MAX_NESTING) throw new UndecodableError(`arrays and objects nested deeper than ${MAX_NESTING} levels (an attribute value nested that deep?)`);
    const push = (child: unknown): void => {
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth + 1);
      }
    };
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) push(value[i]);
    else for (const key in value) push((value as Record<string, unknown>)[key]);
  }
}

/**
 * Walks resourceSpans → scopeSpans → spans, keeps the spans with valid IDs (IDs rewritten as
 * lower-case hex) and counts the others. `fromProtobuf`: ID fields are base64 from toObject.
 * Structural nonsense (a resourceSpans entry that is not an object, spans that is not an array) makes
 * the whole body undecodable, as a protobuf decoder would refuse it.
 */
function acceptSpans(doc: Record<string, unknown>, fromProtobuf: boolean): DecodedExport {
  const out: DecodedExport = { request: { resourceSpans: [] }, spans: [], rejected: 0, rejectReasons: [] };
  const resources = Array.isArray(doc.resourceSpans) ? doc.resourceSpans : [];
  const reject = (reason: string): void => {
    out.rejected++;
    if (out.rejectReasons.length < 3 && !out.rejectReasons.includes(reason)) out.rejectReasons.push(reason);
  };
  for (const rs of resources) {
    if (!isObject(rs)) throw new UndecodableError('a resourceSpans entry is not an object');
    const service = serviceName(rs.resource);
    const scopes: unknown[] = [];
    for (const ss of scopeLists(rs)) {
      if (!isObject(ss)) throw new UndecodableError('a scopeSpans entry is not an object');
      if (ss.spans !== undefined && !Array.isArray(ss.spans)) throw new UndecodableError('scopeSpans.spans must be an array');
      const kept: unknown[] = [];
      for (const sp of (ss.spans as unknown[] | undefined) ?? []) {
        if (!isObject(sp)) throw new UndecodableError('a span is not an object');
        const span = fromProtobuf ? idsToHex(sp) : idsToHexJson(sp);
        const digest = digestOtlpSpan(span, service);
        if (!digest) {
          reject(spanProblem(span));
          continue;
        }
        kept.push(span);
        out.spans.push(digest);
      }
      const { spans: _spans, instrumentationLibrary, ...rest } = ss;
      const scope = rest.scope ?? instrumentationLibrary;
      scopes.push({ ...rest, ...(scope !== undefined ? { scope } : {}), spans: kept });
    }
    const { scopeSpans: _s, instrumentationLibrarySpans: _i, ...rsRest } = rs;
    out.request.resourceSpans.push({ ...rsRest, scopeSpans: scopes });
  }
  return out;
}

function spanProblem(span: Record<string, unknown>): string {
  if (!normalizeId(span.traceId, 16)) return 'a span has a missing, all-zero or malformed traceId (16 bytes)';
  if (!normalizeId(span.spanId, 8)) return 'a span has a missing, all-zero or malformed spanId (8 bytes)';
  return 'a span has no usable startTimeUnixNano/endTimeUnixNano';
}

const ID_FIELDS: ReadonlyArray<[string, number]> = [
  ['traceId', 16],
  ['spanId', 8],
  ['parentSpanId', 8],
];

/** Protobuf bytes (base64 after toObject) → hex, also in links; an empty parent is dropped. */
function idsToHex(span: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...span };
  for (const [field] of ID_FIELDS) {
    const v = out[field];
    if (typeof v === 'string') {
      const hex = Buffer.from(v, 'base64').toString('hex');
      if (hex === '') delete out[field];
      else out[field] = hex;
    }
  }
  if (Array.isArray(out.links)) {
    out.links = out.links.map((l) =>
      isObject(l)
        ? { ...l, traceId: Buffer.from(String(l.traceId ?? ''), 'base64').toString('hex'), spanId: Buffer.from(String(l.spanId ?? ''), 'base64').toString('hex') }
        : l,
    );
  }
  return out;
}

/** JSON IDs should already be hex; base64 ones (proto-JSON mappings) are rewritten, so the stored line is canonical. */
function idsToHexJson(span: Record<string, unknown>): Record<string, unknown> {
  let out = span;
  for (const [field, bytes] of ID_FIELDS) {
    const v = span[field];
    if (typeof v !== 'string') continue;
    if (field === 'parentSpanId' && v === '') continue;
    const hex = normalizeId(v, bytes);
    if (hex !== undefined && hex !== v) {
      if (out === span) out = { ...span };
      out[field] = hex;
    }
  }
  return out;
}
