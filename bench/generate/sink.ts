import { createWriteStream, type WriteStream } from 'fs';
import { once } from 'events';
import { createGzip, type Gzip } from 'zlib';

const FLUSH_BYTES = 1 << 20;

/**
 * An output file written line by line with bounded memory: lines are gathered into ~1 MiB chunks,
 * and the producer awaits `drain` (backpressure) before the next chunk. Optionally gzipped.
 */
export class LineSink {
  private parts: string[] = [];
  private pending = 0;
  private readonly file: WriteStream;
  private readonly head: WriteStream | Gzip;
  bytesWritten = 0;
  lines = 0;

  constructor(readonly path: string, gzip: boolean) {
    this.file = createWriteStream(path);
    if (gzip) {
      const gz = createGzip({ level: 6 });
      gz.pipe(this.file);
      this.head = gz;
    } else {
      this.head = this.file;
    }
  }

  /** Appends one line (without its newline). */
  line(text: string): void {
    this.parts.push(text + '\n');
    this.pending += text.length + 1;
    this.lines++;
  }

  /** Appends one line made of a head, comma-separated items and a tail (avoids one big join). */
  lineParts(head: string, items: readonly string[], tail: string): void {
    let size = head.length + tail.length + 1;
    this.parts.push(head);
    for (let i = 0; i < items.length; i++) {
      this.parts.push(i === 0 ? items[i] : ',' + items[i]);
      size += items[i].length + 1;
    }
    this.parts.push(tail + '\n');
    this.pending += size;
    this.lines++;
  }

  get needsFlush(): boolean {
    return this.pending >= FLUSH_BYTES;
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.pending = 0;
    this.bytesWritten += buf.length;
    if (!this.head.write(buf)) await once(this.head, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    const finished = once(this.file, 'close');
    this.head.end();
    await finished;
  }
}
