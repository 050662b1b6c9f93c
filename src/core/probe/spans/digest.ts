/**
 * The few fields of a span that polling and the propagation check need, read in JavaScript from an
 * OTLP request object (receiver, Jaeger api_v3, Tempo) or a Jaeger query response, without DuckDB:
 * the reconciliation itself loads the same spans into DuckDB with the ordinary readers.
 */
import { isObject } from '../send/sse';

/** A span reduced to its identity, place in the tree and time. */
export interface SpanDigest {
  traceId: string;
  spanId: string;
  /** null when the span has no parent. */
  parentSpanId: string | null;
  name: string;
  /** SERVER | CLIENT | INTERNAL | PRODUCER | CONSUMER | UNSPECIFIED */
  kind: string;
  service: string | null;
  startNs: bigint;
  endNs: bigint;
}

const OTLP_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

/** OTLP kind as a number (1–5) or an enum name (`SPAN_KIND_SERVER`) → our name. */
export function otlpKind(kind: unknown): string {
  if (typeof kind === 'number') return OTLP_KINDS[kind] ?? 'UNSPECIFIED';
  if (typeof kind === 'string') {
    const name = kind.toUpperCase().replace(/^SPAN_KIND_/, '');
    if (OTLP_KINDS.includes(name)) return name;
    if (/^\d+$/.test(kind)) return OTLP_KINDS[Number(kind)] ?? 'UNSPECIFIED';
  }
  return 'UNSPECIFIED';
}

/**
 * A trace or span ID as lower-case hex of `bytes` bytes: hex as OTLP JSON requires, or base64 as
 * proto-JSON mappings (Tempo) write it. Shorter hex (64-bit Zipkin/Jaeger trace IDs) is left-padded.
 * Returns undefined for anything else, and for all-zero IDs (invalid).
 */
export function normalizeId(value: unknown, bytes: number): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const hexLen = bytes * 2;
  let hex: string | undefined;
  if (/^[0-9a-fA-F]+$/.test(value) && value.length <= hexLen && (value.length === hexLen || value.length === 16)) {
    hex = value.toLowerCase().padStart(hexLen, '0');
  } else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const buf = Buffer.from(value, 'base64');
    if (buf.length === bytes) hex = buf.toString('hex');
  }
  return hex === undefined || /^0+$/.test(hex) ? undefined : hex;
}

function nanos(value: unknown): bigint | undefined {
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return BigInt(Math.round(value));
  return undefined;
}

/** The resource's `service.name`. */
export function serviceName(resource: unknown): string | null {
  if (!isObject(resource) || !Array.isArray(resource.attributes)) return null;
  for (const a of resource.attributes) {
    if (isObject(a) && a.key === 'service.name' && isObject(a.value) && typeof a.value.stringValue === 'string') return a.value.stringValue;
  }
  return null;
}

/** The scope-level span lists of a resource: `scopeSpans`, or the deprecated `instrumentationLibrarySpans`. */
export function scopeLists(resourceSpans: Record<string, unknown>): unknown[] {
  if (Array.isArray(resourceSpans.scopeSpans)) return resourceSpans.scopeSpans;
  if (Array.isArray(resourceSpans.instrumentationLibrarySpans)) return resourceSpans.instrumentationLibrarySpans;
  return [];
}

/** One OTLP span object → digest, or undefined when its IDs or times are unusable. */
export function digestOtlpSpan(span: Record<string, unknown>, service: string | null): SpanDigest | undefined {
  const traceId = normalizeId(span.traceId, 16);
  const spanId = normalizeId(span.spanId, 8);
  const start = nanos(span.startTimeUnixNano);
  const end = nanos(span.endTimeUnixNano);
  if (!traceId || !spanId || start === undefined || end === undefined) return undefined;
  return {
    traceId,
    spanId,
    parentSpanId: normalizeId(span.parentSpanId, 8) ?? null,
    name: typeof span.name === 'string' ? span.name : '',
    kind: otlpKind(span.kind),
    service,
    startNs: start,
    endNs: end,
  };
}

/** Every usable span of an OTLP request object (`{resourceSpans}`), in document order. */
export function digestOtlpRequest(doc: unknown): SpanDigest[] {
  const out: SpanDigest[] = [];
  if (!isObject(doc) || !Array.isArray(doc.resourceSpans)) return out;
  for (const rs of doc.resourceSpans) {
    if (!isObject(rs)) continue;
    const service = serviceName(rs.resource);
    for (const ss of scopeLists(rs)) {
      if (!isObject(ss) || !Array.isArray(ss.spans)) continue;
      for (const sp of ss.spans) {
        const d = isObject(sp) ? digestOtlpSpan(sp, service) : undefined;
        if (d) out.push(d);
      }
    }
  }
  return out;
}

/** Spans of a Jaeger query API response (`{"data":[{traceID, spans, processes}]}`), µs times. */
export function digestJaegerResponse(doc: unknown): SpanDigest[] {
  const out: SpanDigest[] = [];
  const traces = isObject(doc) && Array.isArray(doc.data) ? doc.data : [];
  for (const trace of traces) {
    if (!isObject(trace) || !Array.isArray(trace.spans)) continue;
    const processes = isObject(trace.processes) ? trace.processes : {};
    for (const sp of trace.spans) {
      if (!isObject(sp)) continue;
      const traceId = normalizeId(sp.traceID, 16);
      const spanId = normalizeId(sp.spanID, 8);
      const start = nanos(sp.startTime);
      const duration = nanos(sp.duration);
      if (!traceId || !spanId || start === undefined || duration === undefined) continue;
      const refs = Array.isArray(sp.references) ? sp.references : [];
      const parentRef = refs.find((r) => isObject(r) && r.refType === 'CHILD_OF') ?? refs[0];
      const process = typeof sp.processID === 'string' ? processes[sp.processID] : undefined;
      const tags = Array.isArray(sp.tags) ? sp.tags : [];
      const kindTag = tags.find((t) => isObject(t) && t.key === 'span.kind');
      out.push({
        traceId,
        spanId,
        parentSpanId: isObject(parentRef) ? normalizeId(parentRef.spanID, 8) ?? null : null,
        name: typeof sp.operationName === 'string' ? sp.operationName : '',
        kind: isObject(kindTag) && typeof kindTag.value === 'string' ? kindTag.value.toUpperCase() : 'UNSPECIFIED',
        service: isObject(process) && typeof process.serviceName === 'string' ? process.serviceName : null,
        startNs: start * BigInt(1000),
        endNs: (start + duration) * BigInt(1000),
      });
    }
  }
  return out;
}
