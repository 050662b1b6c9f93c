/**
 * Jaeger and Grafana Tempo query APIs, by trace ID:
 * - Jaeger `GET /api/traces/{id}` → `{"data":[{traceID, spans, processes}]}` (the UI's API, µs times);
 *   api_v3 `GET /api/v3/traces/{id}` → `{"result":{"resourceSpans":…}}` (OTLP JSON; grpc-gateway may
 *   stream several such objects, one per line).
 * - Tempo `GET /api/traces/{id}` → `{"batches":[…]}` (OTLP resource spans under the old name, often
 *   base64 IDs); `GET /api/v2/traces/{id}` → `{"trace":{"resourceSpans":…}}`.
 * Which one: a base URL that ends in `/api/v3` (Jaeger) or `/api/v2` (Tempo) selects it, else the
 * first. A 404 is "not there yet", not an error: the poll asks again.
 */
import { digestJaegerResponse, digestOtlpRequest } from '../spans/digest';
import { isObject } from '../send/sse';
import { httpGet, joinUrl, parseJsonDocuments, type TraceBackend, type TraceDocument, type TraceLook } from './backend';

export interface QueryApiOptions {
  baseUrl: string;
  /** Extra headers (a Tempo tenant: `X-Scope-OrgID`). Not the probe's API token. */
  headers?: Record<string, string>;
  requestTimeoutMs?: number;
}

const INGEST_NOTE = 'a query API shows spans only after the collector has exported them and the backend has indexed them (seconds)';

export class JaegerBackend implements TraceBackend {
  readonly name: string;
  readonly ingestNote = INGEST_NOTE;
  private readonly v3: boolean;
  private readonly base: string;

  constructor(private readonly options: QueryApiOptions) {
    const trimmed = options.baseUrl.replace(/\/+$/, '');
    this.v3 = /\/api\/v3$/.test(trimmed);
    this.base = trimmed.replace(/\/api(\/v3)?$/, '');
    this.name = `jaeger ${this.base}${this.v3 ? ' (api_v3)' : ''}`;
  }

  async look(traceId: string, signal?: AbortSignal): Promise<TraceLook> {
    const url = joinUrl(this.base, this.v3 ? `/api/v3/traces/${traceId}` : `/api/traces/${traceId}`);
    const { status, body } = await httpGet(url, { accept: 'application/json', ...this.options.headers }, this.options.requestTimeoutMs ?? 10_000, signal);
    if (status === 404) return { spans: [], documents: [], note: `${url.pathname}: 404 (not found yet)` };
    if (status !== 200) return { spans: [], documents: [], note: `${url.pathname}: HTTP ${status}` };
    const docs = parseJsonDocuments(body);
    if (!this.v3) {
      const spans = docs.flatMap((d) => digestJaegerResponse(d));
      return { spans, documents: spans.length > 0 ? [{ format: 'jaeger', text: body }] : [] };
    }
    return otlpLook(docs.map((d) => (isObject(d) && isObject(d.result) ? d.result : d)));
  }
}

export class TempoBackend implements TraceBackend {
  readonly name: string;
  readonly ingestNote = INGEST_NOTE;
  private readonly v2: boolean;
  private readonly base: string;

  constructor(private readonly options: QueryApiOptions) {
    const trimmed = options.baseUrl.replace(/\/+$/, '');
    this.v2 = /\/api\/v2$/.test(trimmed);
    this.base = trimmed.replace(/\/api(\/v2)?$/, '');
    this.name = `tempo ${this.base}${this.v2 ? ' (api/v2)' : ''}`;
  }

  async look(traceId: string, signal?: AbortSignal): Promise<TraceLook> {
    const url = joinUrl(this.base, this.v2 ? `/api/v2/traces/${traceId}` : `/api/traces/${traceId}`);
    const { status, body } = await httpGet(url, { accept: 'application/json', ...this.options.headers }, this.options.requestTimeoutMs ?? 10_000, signal);
    if (status === 404) return { spans: [], documents: [], note: `${url.pathname}: 404 (not found yet)` };
    if (status !== 200) return { spans: [], documents: [], note: `${url.pathname}: HTTP ${status}` };
    return otlpLook(parseJsonDocuments(body).map(tempoToOtlp));
  }
}

/** Tempo's shapes → an OTLP request object: v1 `batches` are resource spans; v2 wraps the object in `trace`. */
export function tempoToOtlp(doc: unknown): unknown {
  if (!isObject(doc)) return doc;
  if (isObject(doc.trace)) return tempoToOtlp(doc.trace);
  const resources = Array.isArray(doc.resourceSpans) ? doc.resourceSpans : Array.isArray(doc.batches) ? doc.batches : undefined;
  if (resources === undefined) return doc;
  // Older Tempo writes the scope level under its pre-1.0 name; the span readers know only scopeSpans.
  const canonical = resources.map((rs) =>
    isObject(rs) && rs.scopeSpans === undefined && Array.isArray(rs.instrumentationLibrarySpans)
      ? { resource: rs.resource, scopeSpans: rs.instrumentationLibrarySpans }
      : rs,
  );
  return { resourceSpans: canonical };
}

/** Digests and documents of OTLP request objects. */
export function otlpLook(requests: unknown[]): TraceLook {
  const spans = requests.flatMap((r) => digestOtlpRequest(r));
  const documents: TraceDocument[] = spans.length > 0 ? [{ format: 'otlp', text: requests.map((r) => JSON.stringify(r)).join('\n') }] : [];
  return { spans, documents };
}
