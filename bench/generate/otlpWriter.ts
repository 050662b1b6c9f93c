import type { LineSink } from './sink';
import type { TimeFormatter } from './timefmt';
import type { Attr, ServerTruth, SpanTruth } from './truth';

const RESOURCE =
  '{"attributes":[{"key":"service.name","value":{"stringValue":"llm-gateway"}},{"key":"service.version","value":{"stringValue":"0.4.2"}},' +
  '{"key":"deployment.environment.name","value":{"stringValue":"bench"}},{"key":"telemetry.sdk.language","value":{"stringValue":"nodejs"}},' +
  '{"key":"telemetry.sdk.name","value":{"stringValue":"opentelemetry"}},{"key":"telemetry.sdk.version","value":{"stringValue":"2.2.0"}}]}';
const SCOPE = '{"name":"llm-gateway","version":"0.4.2"}';

export interface OtlpWriterOptions {
  intValues: 'string' | 'number';
  msStartGranularity: boolean;
  exportIntervalNs: number;
  maxBatchSpans: number;
}

/**
 * Writes spans in the OpenTelemetry Collector `file` exporter layout: one compact
 * ExportTraceServiceRequest per line, one batch per line. Batches close like a BatchSpanProcessor's:
 * after `exportIntervalNs` of span end times or at `maxBatchSpans`. Field order and the omission of
 * empty fields follow the Collector's proto-JSON marshalling (events only when present, `status: {}`
 * when unset); IDs are hex, timestamps decimal-string nanoseconds.
 */
export class OtlpWriter {
  private batch: string[] = [];
  private batchOpenedNs = 0;
  spans = 0;

  constructor(private readonly sink: LineSink, private readonly time: TimeFormatter, private readonly o: OtlpWriterOptions) {}

  /** Exports a finished trace's spans according to its fate (children first, root last). */
  trace(traceId: string, server: ServerTruth): void {
    if (server.fate === 'none') return;
    for (const child of server.children) this.add(traceId, child, server.root.spanId, 257);
    if (server.fate === 'full') this.add(traceId, server.root, server.clientSpanId, 769);
  }

  private add(traceId: string, s: SpanTruth, parentSpanId: string, flags: number): void {
    if (this.batch.length > 0 && s.endNs - this.batchOpenedNs >= this.o.exportIntervalNs) this.flush();
    if (this.batch.length === 0) this.batchOpenedNs = s.endNs;
    this.batch.push(this.span(traceId, s, parentSpanId, flags));
    this.spans++;
    if (this.batch.length >= this.o.maxBatchSpans) this.flush();
  }

  private span(traceId: string, s: SpanTruth, parentSpanId: string, flags: number): string {
    // OpenTelemetry JS stamps starts from a millisecond clock but measures durations exactly.
    const startNs = this.o.msStartGranularity ? s.startNs - (s.startNs % 1e6) : s.startNs;
    const endNs = startNs + (s.endNs - s.startNs);
    let out =
      `{"traceId":"${traceId}","spanId":"${s.spanId}","parentSpanId":"${parentSpanId}","flags":${flags},"name":"${s.name}","kind":${s.kind},` +
      `"startTimeUnixNano":"${this.time.epochNs(startNs)}","endTimeUnixNano":"${this.time.epochNs(endNs)}","attributes":${this.attrs(s.attrs)}`;
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

  private attrs(attrs: readonly Attr[]): string {
    const parts: string[] = [];
    for (const [key, kind, value] of attrs) {
      let v: string;
      if (kind === 's') v = `{"stringValue":${JSON.stringify(value)}}`;
      else if (kind === 'i') v = this.o.intValues === 'string' ? `{"intValue":"${value}"}` : `{"intValue":${value}}`;
      else if (kind === 'b') v = `{"boolValue":${value}}`;
      else v = `{"doubleValue":${value}}`;
      parts.push(`{"key":"${key}","value":${v}}`);
    }
    return `[${parts.join(',')}]`;
  }

  flush(): void {
    if (this.batch.length === 0) return;
    this.sink.lineParts(
      `{"resourceSpans":[{"resource":${RESOURCE},"scopeSpans":[{"scope":${SCOPE},"spans":[`,
      this.batch,
      ']}],"schemaUrl":"https://opentelemetry.io/schemas/1.26.0"}]}',
    );
    this.batch = [];
  }
}
