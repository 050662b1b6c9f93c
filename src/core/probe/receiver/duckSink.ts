/**
 * The receiver's DuckDB sink: received exports become spans of a run in a Phasewise database, through
 * the ordinary OTLP reader (so a received span is loaded exactly as the same line in a file would be).
 * Lines are batched (every `intervalMs`, or sooner past `maxBatchBytes`), written to a chunk file,
 * loaded, and the chunk's rows moved under the receiver's one `sources` row, with their line numbers
 * shifted to the line they hold in the receiver's JSONL file when one is written beside it.
 * One load runs at a time; a load that fails is reported and its lines kept for the next try.
 */
import { mkdtemp, rm, writeFile } from 'fs/promises';
import * as os from 'os';
import * as path from 'path';
import { loadFiles } from '../../formats/loadFiles';
import type { QueryRunner } from '../../store/duckStore';
import type { ReceivedBatch, SpanSink } from './sinks';

export interface DuckSinkOptions {
  /** The `sources.path` of the received spans (the JSONL file written beside, or `otlp-receiver://host:port`). */
  sourcePath: string;
  intervalMs?: number;
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

export class DuckSink implements SpanSink {
  readonly label: string;
  private pending: string[] = [];
  private pendingBytes = 0;
  private linesStored = 0;
  private sourceId: number | undefined;
  private loading: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private error: Error | undefined;
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

  write(batch: ReceivedBatch): void {
    this.pending.push(batch.line);
    this.pendingBytes += batch.line.length + 1;
    if (this.pendingBytes >= (this.options.maxBatchBytes ?? 8 * 1024 * 1024)) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.intervalMs ?? 500);
  }

  /** Loads what is pending (after any load already running). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.pending;
    if (lines.length > 0) {
      this.pending = [];
      this.pendingBytes = 0;
      const exclusive = this.options.exclusive ?? ((load: () => Promise<void>) => load());
      this.loading = this.loading.then(() => exclusive(() => this.load(lines)));
    }
    return this.loading;
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  backlogBytes(): number {
    return this.pendingBytes;
  }

  takeError(): Error | undefined {
    const e = this.error;
    this.error = undefined;
    return e;
  }

  private async load(lines: string[]): Promise<void> {
    try {
      this.dir ??= await mkdtemp(path.join(os.tmpdir(), 'phasewise-receive-'));
      const chunk = path.join(this.dir, `chunk-${++this.chunkNo}.otlp.jsonl`);
      await writeFile(chunk, lines.join('\n') + '\n');
      const [loaded] = await loadFiles(this.store, [chunk], { expectSide: 'server' });
      await this.adopt(loaded.sourceId, loaded.records, loaded.skipped, loaded.bytes);
      await rm(chunk, { force: true });
      this.linesStored += lines.length;
      this.storedSpans += loaded.records;
      this.options.onStored?.(this.storedSpans);
    } catch (err) {
      this.error = err instanceof Error ? err : new Error(String(err));
      // Kept for the next flush: a transient failure (a busy database) must not lose spans.
      this.pending = lines.concat(this.pending);
      this.pendingBytes += lines.reduce((n, l) => n + l.length + 1, 0);
    }
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
    await this.store.run('UPDATE span_events SET source_id = $1 WHERE source_id = $2', [this.sourceId, chunkId]);
    if (chunkId !== this.sourceId) await this.store.run('DELETE FROM sources WHERE source_id = $1', [chunkId]);
  }
}
