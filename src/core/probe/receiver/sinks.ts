/**
 * Where the receiver puts what it accepted: a JSONL file in the Collector file exporter's layout (one
 * compact ExportTraceServiceRequest per line, protobuf converted; a large export is cut into several
 * lines, exportLines.ts), a DuckDB run (duckSink.ts), and an in-memory index for the probe
 * (traceIndex.ts). A sink's write resolves once the export is stored and rejects when it could not be:
 * the receiver answers 200 only after every sink stored it (an acknowledged span is a stored span).
 */
import { createWriteStream, statSync, truncateSync, type Stats, type WriteStream } from 'fs';
import type { SpanDigest } from '../spans/digest';

/** One accepted export. */
export interface ReceivedBatch {
  /** The compact JSON lines (no newline), secrets already redacted. */
  lines: string[];
  spans: SpanDigest[];
  /** For each of `spans`, the index in `lines` of the line that holds it. */
  lineOfSpan: number[];
  /** performance.now() when the body was decoded. */
  receivedAtMs: number;
}

export interface SpanSink {
  /** For messages: `file out.otlp.jsonl`, `database run.duckdb`. */
  readonly label: string;
  /** Stores the export: resolves once it is stored, rejects (nothing of it kept) when it cannot be. */
  write(batch: ReceivedBatch): Promise<void>;
  /** Resolves once everything written so far is stored or refused. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Bytes accepted but not yet stored: the receiver answers 503 (retry later) above its limit. */
  backlogBytes(): number;
}

/**
 * Appends the lines of each export; `append` keeps an existing file's lines, otherwise it is replaced.
 * A failed write (a full disk) rejects that export and every export already queued behind it; the file
 * is cut back to the last export stored whole (no half line for the next one to join) and reopened
 * for the next export, so a disk that frees up is written again.
 */
export class JsonlFileSink implements SpanSink {
  readonly label: string;
  private stream: WriteStream;
  private closed: Promise<void> | undefined;
  /** Settles when the newest write has reached the file (writes complete in order). */
  private lastWrite: Promise<void> = Promise.resolve();
  /** Bytes of the file that hold whole exports (a regular file; undefined for a device). */
  private committed: number | undefined;
  private broken = false;
  lines = 0;

  constructor(
    readonly path: string,
    append = false,
  ) {
    this.label = `file ${path}`;
    const existing = statOrUndefined(path);
    this.committed = existing === undefined || existing.isFile() ? (append ? (existing?.size ?? 0) : 0) : undefined;
    this.stream = this.open(append ? 'a' : 'w');
  }

  private open(flags: string): WriteStream {
    const stream = createWriteStream(this.path, { flags });
    // Reported through each write's callback; without a listener the error would end the process.
    stream.on('error', () => {
      this.broken = true;
    });
    return stream;
  }

  write(batch: ReceivedBatch): Promise<void> {
    if (this.broken) this.reopen();
    const text = batch.lines.map((l) => `${l}\n`).join('');
    const bytes = Buffer.byteLength(text);
    const stream = this.stream;
    // The write's own callback, not 'drain': 'drain' fires only after a write that filled the buffer,
    // so a flush waiting for it with a few KB pending never settled (and the CLI exited silently).
    const written = new Promise<void>((resolve, reject) =>
      stream.write(text, (err) => {
        if (err) {
          this.broken = true;
          reject(err);
          return;
        }
        if (this.committed !== undefined) this.committed += bytes;
        this.lines += batch.lines.length;
        resolve();
      }),
    );
    this.lastWrite = written.catch(() => undefined);
    return written;
  }

  /** After a failed write: drops what the failure left past the last whole export, and opens the file again. */
  private reopen(): void {
    this.broken = false;
    this.stream.destroy();
    if (this.committed !== undefined) {
      try {
        truncateSync(this.path, this.committed);
      } catch {
        // The write after this one reports what is wrong with the file.
      }
    }
    this.stream = this.open('a');
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
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}
