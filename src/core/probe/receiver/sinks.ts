/**
 * Where the receiver puts what it accepted: a JSONL file in the Collector file exporter's layout (one
 * compact ExportTraceServiceRequest per line, protobuf converted), a DuckDB run (duckSink.ts), and an
 * in-memory index for the probe (traceIndex.ts). Each export is one line, written whole or not at all.
 */
import { createWriteStream, type WriteStream } from 'fs';
import type { SpanDigest } from '../spans/digest';

/** One accepted export. */
export interface ReceivedBatch {
  /** The compact JSON line (no newline), secrets already redacted. */
  line: string;
  spans: SpanDigest[];
  /** performance.now() when the body was decoded. */
  receivedAtMs: number;
}

export interface SpanSink {
  /** For messages: `file out.otlp.jsonl`, `database run.duckdb`. */
  readonly label: string;
  write(batch: ReceivedBatch): void;
  /** Resolves once everything written so far is stored. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Bytes accepted but not yet stored: the receiver answers 503 (retry later) above its limit. */
  backlogBytes(): number;
  /** A storage failure since the last call (the receiver then refuses with 503 rather than lose data). */
  takeError(): Error | undefined;
}

/** Appends one line per export; `append` keeps an existing file's lines, otherwise it is replaced. */
export class JsonlFileSink implements SpanSink {
  readonly label: string;
  private readonly stream: WriteStream;
  private error: Error | undefined;
  private closed: Promise<void> | undefined;
  /** Settles when the newest write has reached the file (writes complete in order). */
  private lastWrite: Promise<void> = Promise.resolve();
  lines = 0;

  constructor(
    readonly path: string,
    append = false,
  ) {
    this.label = `file ${path}`;
    this.stream = createWriteStream(path, { flags: append ? 'a' : 'w' });
    this.stream.on('error', (err) => (this.error = err));
  }

  write(batch: ReceivedBatch): void {
    this.lines++;
    // The write's own callback, not 'drain': 'drain' fires only after a write that filled the buffer,
    // so a flush waiting for it with a few KB pending never settled (and the CLI exited silently).
    this.lastWrite = new Promise((resolve) => this.stream.write(`${batch.line}\n`, () => resolve()));
  }

  flush(): Promise<void> {
    return this.lastWrite;
  }

  close(): Promise<void> {
    this.closed ??= new Promise((resolve) => {
      if (this.stream.destroyed) return resolve();
      this.stream.end(() => resolve());
      this.stream.once('error', () => resolve());
    });
    return this.closed;
  }

  backlogBytes(): number {
    return this.stream.writableLength;
  }

  takeError(): Error | undefined {
    const e = this.error;
    this.error = undefined;
    return e;
  }
}
