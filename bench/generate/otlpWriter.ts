import type { LineSink } from './sink';
import type { TimeFormatter } from './timefmt';
import type { Attr, ServerTruth, SpanEventTruth, SpanTruth } from './truth';

/**
 * Which exporter's JSON the spans are written as.
 * - 'collector': the OpenTelemetry Collector `file` exporter (proto-JSON marshalling): empty fields
 *   omitted, `status: {}` when unset, a schemaUrl per resource.
 * - 'sdk': the OpenTelemetry JS SDK's OTLP/HTTP JSON exporter, one request body per line as a sink
 *   (or the probe's receiver) stores it, field by field as in the shared joined-otel-js sample: every
 *   span carries `droppedAttributesCount`, `events: []`, `droppedEventsCount`, `status: {"code": 0}`,
 *   `links: []`, `droppedLinksCount` and `flags` (last); the resource its `droppedAttributesCount`;
 *   events `{attributes, name, timeUnixNano, droppedAttributesCount}`; the root the SDK's HTTP
 *   server attributes (client address and port, user agent, the x-request-id header as an arrayValue).
 */
export type OtlpShape = 'collector' | 'sdk';

const RESOURCE_ATTRS =
  '[{"key":"service.name","value":{"stringValue":"llm-gateway"}},{"key":"service.version","value":{"stringValue":"0.4.2"}},' +
  '{"key":"deployment.environment.name","value":{"stringValue":"bench"}},{"key":"telemetry.sdk.language","value":{"stringValue":"nodejs"}},' +
  '{"key":"telemetry.sdk.name","value":{"stringValue":"opentelemetry"}},{"key":"telemetry.sdk.version","value":{"stringValue":"2.2.0"}}]';
const SCOPE = '{"name":"llm-gateway","version":"0.4.2"}';

const HEAD: Record<OtlpShape, string> = {
  collector: `{"resourceSpans":[{"resource":{"attributes":${RESOURCE_ATTRS}},"scopeSpans":[{"scope":${SCOPE},"spans":[`,
  sdk: `{"resourceSpans":[{"resource":{"attributes":${RESOURCE_ATTRS},"droppedAttributesCount":0},"scopeSpans":[{"scope":${SCOPE},"spans":[`,
};
const TAIL: Record<OtlpShape, string> = {
  collector: ']}],"schemaUrl":"https://opentelemetry.io/schemas/1.26.0"}]}',
  sdk: ']}]}]}',
};

export interface OtlpWriterOptions {
  shape: OtlpShape;
  intValues: 'string' | 'number';
  msStartGranularity: boolean;
  exportIntervalNs: number;
  maxBatchSpans: number;
}

/**
 * Writes spans one ExportTraceServiceRequest per line, one batch per line. Batches close like a
 * BatchSpanProcessor's: after `exportIntervalNs` of span end times or at `maxBatchSpans`. IDs are hex,
 * timestamps decimal-string nanoseconds; field order and empties follow `shape` (OtlpShape).
 */
export class OtlpWriter {
  private batch: string[] = [];
  private batchOpenedNs = 0;
  spans = 0;

  constructor(private readonly sink: LineSink, private readonly time: TimeFormatter, private readonly o: OtlpWriterOptions) {}

  /** Exports a finished trace's spans according to its fate (children first, root last). */
  trace(traceId: string, server: ServerTruth): void {
    if (server.fate === 'none') return;
    // The SDK shape batches by when the spans reach the exporter (here: when the trace ends), as a
    // BatchSpanProcessor's timer does; batching by each span's own end time, as the Collector shape
    // does, closed a quarter of the bodies after 1–2 spans (a root ends seconds after its children).
    const arrivalNs = this.o.shape === 'sdk' ? Math.max(server.root.endNs, ...server.children.map((c) => c.endNs)) : undefined;
    for (const child of server.children) this.add(traceId, child, server.root.spanId, 257, arrivalNs ?? child.endNs);
    if (server.fate === 'full') this.add(traceId, server.root, server.clientSpanId, 769, arrivalNs ?? server.root.endNs);
  }

  private add(traceId: string, s: SpanTruth, parentSpanId: string, flags: number, atNs: number): void {
    if (this.batch.length > 0 && atNs - this.batchOpenedNs >= this.o.exportIntervalNs) this.flush();
    if (this.batch.length === 0) this.batchOpenedNs = atNs;
    this.batch.push(this.o.shape === 'sdk' ? this.sdkSpan(traceId, s, parentSpanId, flags) : this.collectorSpan(traceId, s, parentSpanId, flags));
    this.spans++;
    if (this.batch.length >= this.o.maxBatchSpans) this.flush();
  }

  /** OpenTelemetry JS stamps starts from a millisecond clock but measures durations exactly. */
  private times(s: SpanTruth): { start: string; end: string } {
    const startNs = this.o.msStartGranularity ? s.startNs - (s.startNs % 1e6) : s.startNs;
    return { start: this.time.epochNs(startNs), end: this.time.epochNs(startNs + (s.endNs - s.startNs)) };
  }

  private collectorSpan(traceId: string, s: SpanTruth, parentSpanId: string, flags: number): string {
    const t = this.times(s);
    let out =
      `{"traceId":"${traceId}","spanId":"${s.spanId}","parentSpanId":"${parentSpanId}","flags":${flags},"name":"${s.name}","kind":${s.kind},` +
      `"startTimeUnixNano":"${t.start}","endTimeUnixNano":"${t.end}","attributes":${this.attrs(s.attrs)}`;
    if (s.events.length > 0) {
      out += ',"events":[';
      out += s.events
        .map((e) => `{"timeUnixNano":"${this.time.epochNs(e.timeNs)}","name":"${e.name}","attributes":${this.attrs(e.attrs)}}`)
        .join(',');
      out += ']';
    }
    out += s.statusCode === 0 ? ',"status":{}}' : `,"status":{"message":${JSON.stringify(s.statusMessage ?? '')},"code":2}}`;
    return out;
  }

  private sdkSpan(traceId: string, s: SpanTruth, parentSpanId: string, flags: number): string {
    const t = this.times(s);
    const attrs = s.kind === 2 ? [...s.attrs, ...sdkServerAttrs(s)] : s.attrs;
    const status = s.statusCode === 0 ? '{"code":0}' : s.statusMessage !== undefined ? `{"code":2,"message":${JSON.stringify(s.statusMessage)}}` : '{"code":2}';
    return (
      `{"traceId":"${traceId}","spanId":"${s.spanId}","parentSpanId":"${parentSpanId}","name":"${s.name}","kind":${s.kind},` +
      `"startTimeUnixNano":"${t.start}","endTimeUnixNano":"${t.end}","attributes":${this.attrs(attrs)},"droppedAttributesCount":0,` +
      `"events":[${s.events.map((e) => this.sdkEvent(e)).join(',')}],"droppedEventsCount":0,"status":${status},` +
      `"links":[],"droppedLinksCount":0,"flags":${flags}}`
    );
  }

  private sdkEvent(e: SpanEventTruth): string {
    return `{"attributes":${this.attrs(e.attrs)},"name":"${e.name}","timeUnixNano":"${this.time.epochNs(e.timeNs)}","droppedAttributesCount":0}`;
  }

  private attrs(attrs: readonly SdkAttr[]): string {
    const parts: string[] = [];
    for (const [key, kind, value] of attrs) {
      let v: string;
      if (kind === 's') v = `{"stringValue":${JSON.stringify(value)}}`;
      else if (kind === 'i') v = this.o.intValues === 'string' ? `{"intValue":"${value}"}` : `{"intValue":${value}}`;
      else if (kind === 'b') v = `{"boolValue":${value}}`;
      else if (kind === 'a') v = `{"arrayValue":{"values":[${value.map((x) => `{"stringValue":${JSON.stringify(x)}}`).join(',')}]}}`;
      else v = `{"doubleValue":${value}}`;
      parts.push(`{"key":"${key}","value":${v}}`);
    }
    return `[${parts.join(',')}]`;
  }

  flush(): void {
    if (this.batch.length === 0) return;
    this.sink.lineParts(HEAD[this.o.shape], this.batch, TAIL[this.o.shape]);
    this.batch = [];
  }
}

/** An attribute as the writers know it: the truth's kinds plus a string array (the SDK's header attributes). */
type SdkAttr = Attr | [string, 'a', string[]];

/**
 * What the SDK's HTTP instrumentation adds to the SERVER span beside the truth's attributes (none of
 * them is read by any figure). Derived from the span so the files stay deterministic.
 */
function sdkServerAttrs(s: SpanTruth): SdkAttr[] {
  const requestId = s.attrs.find((a) => a[0] === 'llm.request_id')?.[2];
  return [
    ['client.address', 's', '10.0.0.7'],
    ['client.port', 'i', 32768 + (parseInt(s.spanId.slice(-4), 16) % 28000)],
    ['user_agent.original', 's', 'k6/1.4.2 (https://k6.io/)'],
    ['http.request.header.x-request-id', 'a', [String(requestId ?? s.spanId)]],
  ];
}
