/**
 * Backends on this machine: the embedded receiver (in-process memory), and a span file that an
 * OpenTelemetry Collector's `file` exporter (or `phasewise receive --out`) appends to, re-read from
 * where the last look stopped until the trace appears.
 */
import { open, stat } from 'fs/promises';
import { digestOtlpRequest } from '../spans/digest';
import type { TraceIndex } from '../receiver/traceIndex';
import type { BackendEvidence, TraceBackend, TraceLook } from './backend';
import { otlpLook, tempoToOtlp } from './queryApis';

export class ReceiverBackend implements TraceBackend {
  readonly name: string;

  constructor(
    private readonly index: TraceIndex,
    address: string,
  ) {
    this.name = `receiver ${address}`;
  }

  look(traceId: string): Promise<TraceLook> {
    const entry = this.index.trace(traceId);
    if (!entry) return Promise.resolve({ spans: [], documents: [] });
    return Promise.resolve({ spans: [...entry.spans], documents: [{ format: 'otlp', text: entry.lines.join('\n') }] });
  }

  evidence(sinceMs: number): BackendEvidence {
    const last = this.index.lastArrivalMs;
    return {
      spansSinceSend: last !== undefined && last >= sinceMs ? this.index.totalSpansSince(sinceMs) : 0,
      parentlessRoots: this.index.parentlessRootsSince(sinceMs).map((r) => r.span),
    };
  }
}

/**
 * A JSONL span file (one OTLP request per line, or one pretty document): each look reads only the
 * bytes appended since the previous one (a file that shrank was rotated: read from the start), and
 * keeps the lines that mention the trace ID.
 */
export class SpanFileBackend implements TraceBackend {
  readonly name: string;
  private offset = 0;
  private partial = '';
  private readonly matching: string[] = [];
  private spansSeen = 0;
  private lastTraceId: string | undefined;

  constructor(private readonly file: string) {
    this.name = `file ${file}`;
  }

  async look(traceId: string): Promise<TraceLook> {
    if (traceId !== this.lastTraceId) {
      this.lastTraceId = traceId;
      this.offset = 0;
      this.partial = '';
      this.matching.length = 0;
    }
    let size: number;
    try {
      size = (await stat(this.file)).size;
    } catch {
      return { spans: [], documents: [], note: `${this.file} does not exist (yet)` };
    }
    if (size < this.offset) {
      this.offset = 0;
      this.partial = '';
      this.matching.length = 0;
    }
    if (size > this.offset) await this.readFrom(size, traceId);
    // A pretty-printed document has no line that parses alone: try the whole file once it stops growing.
    const lines = this.matching.length > 0 ? this.matching : await this.wholeDocument(traceId, size);
    const look = otlpLook(lines.map((l) => tempoToOtlp(JSON.parse(l))));
    look.spans = look.spans.filter((s) => s.traceId === traceId);
    return look;
  }

  private async readFrom(size: number, traceId: string): Promise<void> {
    const handle = await open(this.file, 'r');
    try {
      const length = size - this.offset;
      const buf = Buffer.alloc(length);
      await handle.read(buf, 0, length, this.offset);
      this.offset = size;
      const text = this.partial + buf.toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) this.consider(line, traceId);
      // A last line without its newline may still be complete: keep it if it parses.
      if (this.partial !== '' && this.consider(this.partial, traceId)) this.partial = '';
    } finally {
      await handle.close();
    }
  }

  /** Keeps the line if it parses and holds a span of the trace; true when it parsed. */
  private consider(line: string, traceId: string): boolean {
    if (line.trim() === '') return true;
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch {
      return false;
    }
    const spans = digestOtlpRequest(tempoToOtlp(doc));
    this.spansSeen += spans.length;
    if (spans.some((s) => s.traceId === traceId)) this.matching.push(line);
    return true;
  }

  private async wholeDocument(traceId: string, size: number): Promise<string[]> {
    if (this.spansSeen > 0 || size === 0 || size > 256 * 1024 * 1024) return [];
    const handle = await open(this.file, 'r');
    try {
      const text = (await handle.readFile()).toString('utf8');
      const doc: unknown = JSON.parse(text);
      return digestOtlpRequest(tempoToOtlp(doc)).some((s) => s.traceId === traceId) ? [JSON.stringify(doc)] : [];
    } catch {
      return [];
    } finally {
      await handle.close();
    }
  }
}
