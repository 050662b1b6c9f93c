/**
 * The receiver's DuckDB sink: received exports become spans of a run in a Phasewise database, through
 * the ordinary OTLP reader (so a received span is loaded exactly as the same line in a file would be).
 * Exports that arrive while a load runs are loaded together by the next one (a short gather delay
 * before the first), written to a chunk file, loaded, and the chunk's rows moved under the receiver's
 * one `sources` row, with their line numbers shifted to the line they hold in the receiver's JSONL
 * file when one is written beside it.
 *
 * Each load is one transaction, and marks the run complete: the database holds whole exports only,
 * and is a run `analyze --db` opens whenever the receiver stops (SIGTERM, Ctrl-C) or is killed. A load
 * that fails is rolled back and rejects the writes it held: their exports are answered 503 and the
 * exporter sends them again (they are not kept and retried here, where one export too large to load
 * refused every later export).
 */
import { mkdtemp, rm, writeFile } from 'fs/promises';
import * as path from 'path';
import { loadFiles } from '../../formats/loadFiles';
import type { QueryRunner } from '../../store/duckStore';
import { MARKER_TABLE } from '../../store/schema';
import { processTempDirectory } from '../../tempDirectory';
import type { ReceivedBatch, SpanSink } from './sinks';

export interface DuckSinkOptions {
  /** The `sources.path` of the received spans (the JSONL file written beside, or `otlp-receiver://host:port`). */
  sourcePath: string;
  /** How long the first export waits for others to join its load (ms). */
  intervalMs?: number;
  /** A load takes queued exports up to this many bytes (at least one export). */
  maxBatchBytes?: number;
  /** Called after each load with the spans stored so far (a live run grows with it). */
  onStored?: (storedSpans: number) => void;
  /**
   * Runs each load (several statements: the chunk's rows, then their move under the receiver's
   * source row) with nothing else on the store in between: an owner that also analyses the store
   * (the editor's live run) passes its lock, so an analysis never sees a chunk half moved.
   */
  exclusive?: (load: () => Promise<void>) => Promise<void>;
}

interface QueuedWrite {
  lines: string[];
  bytes: number;
  resolve(): void;
  reject(err: Error): void;
}

export class DuckSink implements SpanSink {
  readonly label: string;
  private queue: QueuedWrite[] = [];
  private queuedBytes = 0;
  private linesStored = 0;
  private sourceId: number | undefined;
  /** Settles when the loads running or scheduled are done. */
  private pumping: Promise<void> | undefined;
  private dir: string | undefined;
  private chunkNo = 0;
  storedSpans = 0;

  constructor(
    private readonly store: QueryRunner,
    private readonly options: DuckSinkOptions,
    label = 'database',
  ) {
    this.label = label;
  }

  write(batch: ReceivedBatch): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const bytes = batch.lines.reduce((n, l) => n + l.length + 1, 0);
      this.queue.push({ lines: batch.lines, bytes, resolve, reject });
      this.queuedBytes += bytes;
      this.pumping ??= this.pump();
    });
  }

  /** Loads queued exports until none is left; one pump at a time. */
  private async pump(): Promise<void> {
    try {
      await new Promise((resolve) => setTimeout(resolve, this.options.intervalMs ?? 100));
      while (this.queue.length > 0) {
        const limit = this.options.maxBatchBytes ?? 64 * 1024 * 1024;
        const taken: QueuedWrite[] = [];
        let bytes = 0;
        while (this.queue.length > 0 && (taken.length === 0 || bytes + this.queue[0].bytes <= limit)) {
          const w = this.queue.shift()!;
          taken.push(w);
          bytes += w.bytes;
        }
        this.queuedBytes -= bytes;
        const exclusive = this.options.exclusive ?? ((load: () => Promise<void>) => load());
        try {
          await exclusive(() => this.load(taken.flatMap((w) => w.lines)));
          for (const w of taken) w.resolve();
        } catch (err) {
          const error = err instanceof Error ? err : new Error(String(err));
          for (const w of taken) w.reject(error);
        }
      }
    } finally {
      this.pumping = undefined;
    }
  }

  /** Resolves once every export written so far is stored or refused. */
  async flush(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  backlogBytes(): number {
    return this.queuedBytes;
  }

  /** One transaction: the chunk's rows, their move under the receiver's source row, the run marked complete. */
  private async load(lines: string[]): Promise<void> {
    this.dir ??= await mkdtemp(path.join(processTempDirectory(), 'receive-'));
    const chunk = path.join(this.dir, `chunk-${++this.chunkNo}.otlp.jsonl`);
    const sourceBefore = this.sourceId;
    await writeFile(chunk, lines.join('\n') + '\n');
    await this.store.run('BEGIN TRANSACTION');
    try {
      const [loaded] = await loadFiles(this.store, [chunk], { expectSide: 'server' });
      await this.adopt(loaded.sourceId, loaded.records, loaded.skipped, loaded.bytes);
      await this.store.run(`UPDATE ${MARKER_TABLE} SET load_state = 'complete' WHERE load_state = 'empty'`);
      await this.store.run('COMMIT');
      this.linesStored += lines.length;
      this.storedSpans += loaded.records;
    } catch (err) {
      await this.store.run('ROLLBACK').catch(() => undefined);
      this.sourceId = sourceBefore;
      throw err;
    } finally {
      await rm(chunk, { force: true });
    }
    this.options.onStored?.(this.storedSpans);
  }

  /** Moves a chunk's rows under the receiver's source row (created from the first chunk). */
  private async adopt(chunkId: number, records: number, skipped: number, bytes: number): Promise<void> {
    const base = this.linesStored;
    if (this.sourceId === undefined) {
      this.sourceId = chunkId;
      await this.store.run('UPDATE sources SET path = $1 WHERE source_id = $2', [this.options.sourcePath, chunkId]);
      if (base === 0) return;
    } else {
      await this.store.run(
        'UPDATE sources SET records = records + $1, skipped = skipped + $2, bytes = bytes + $3 WHERE source_id = $4',
        [records, skipped, bytes, this.sourceId],
      );
    }
    for (const table of ['spans', 'load_issues'] as const) {
      await this.store.run(`UPDATE ${table} SET source_id = $1, line = line + $2 WHERE source_id = $3`, [this.sourceId, base, chunkId]);
    }
    for (const table of ['span_events', 'load_skips'] as const) {
      await this.store.run(`UPDATE ${table} SET source_id = $1 WHERE source_id = $2`, [this.sourceId, chunkId]);
    }
    if (chunkId !== this.sourceId) await this.store.run('DELETE FROM sources WHERE source_id = $1', [chunkId]);
  }
}
