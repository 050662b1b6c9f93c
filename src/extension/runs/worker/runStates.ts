/**
 * The runs the worker holds: per run its database file, its last analysis (options, gates, Report)
 * and, while it is in use, an open DuckStore. Work on one run is serialised by its lock (one DuckDB
 * connection per store, and an analysis must not interleave with the receiver's loads); runs do not
 * wait for each other. At most MAX_OPEN stores stay open (each is a DuckDB instance with its own
 * memory_limit): the least recently used idle one is closed, its analysis kept, and reopened on use.
 */
import type { AnalysisOptions, GateSpec } from '../../../core/analysis/options';
import type { Report } from '../../../core/report/model';
import { DuckStore, type StoreOptions } from '../../../core/store/duckStore';

/** Two runs open at once: a report beside another run's, or the live run beside a file run. */
export const MAX_OPEN = 2;

/** A promise-chain mutex: `run` calls start one after the other, in call order. */
export class Lock {
  private tail: Promise<unknown> = Promise.resolve();
  private depth = 0;

  get busy(): boolean {
    return this.depth > 0;
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    this.depth++;
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result.finally(() => this.depth--);
  }
}

/** The analysis a run's views read (the last one that completed). */
export interface RunAnalysis {
  options: AnalysisOptions;
  gates: GateSpec[];
  contract: string | null;
  report: Report;
}

export type MemorySettings = Pick<StoreOptions, 'memoryLimit' | 'threads'>;

export interface RunState {
  key: string;
  dbPath: string;
  lock: Lock;
  analysis?: RunAnalysis;
  /** The receiver writes this run: its store is never closed to make room. */
  live: boolean;
  store?: DuckStore;
  storeSettings?: MemorySettings;
  /** Set when a cancel interrupted the store: it refuses every later query, so it is replaced. */
  interrupted: boolean;
  lastUsed: number;
}

export class RunStates {
  private readonly runs = new Map<string, RunState>();

  get(key: string): RunState | undefined {
    return this.runs.get(key);
  }

  /** The state of `key`, created (closed, not analysed) when the worker has not seen it. */
  ensure(key: string, dbPath: string, live = false): RunState {
    let s = this.runs.get(key);
    if (s === undefined) {
      s = { key, dbPath, lock: new Lock(), live, interrupted: false, lastUsed: 0 };
      this.runs.set(key, s);
    }
    s.live ||= live;
    return s;
  }

  /**
   * Runs `fn` on the run's open store under its lock. A store opened with other memory settings is
   * reopened with these (the settings changed). A store that `fn` interrupted (a cancel) refuses every
   * later query, so it is closed after `fn` and the next use opens a fresh one.
   */
  async withStore<T>(run: RunState, settings: MemorySettings, fn: (store: DuckStore) => Promise<T>): Promise<T> {
    return run.lock.run(async () => {
      if (run.store !== undefined && !sameSettings(run.storeSettings, settings)) await this.closeStore(run);
      if (run.store === undefined) {
        await this.makeRoom(run);
        run.store = new DuckStore({ database: run.dbPath, ...settings });
        run.storeSettings = { ...settings };
      }
      run.lastUsed = Date.now();
      try {
        return await fn(run.store);
      } finally {
        if (run.interrupted) await this.closeStore(run);
      }
    });
  }

  /**
   * Runs `fn` under the run's lock with its store closed (its analysis stays; the next use reopens
   * it): for a session that opens the database file itself (the read-only view session of Compare
   * Runs…, Query Run… and Export Pairs…), so no two DuckDB instances hold the file at once.
   */
  async withoutStore<T>(run: RunState, fn: () => Promise<T>): Promise<T> {
    return run.lock.run(async () => {
      await this.closeStore(run);
      return fn();
    });
  }

  /** Closes the run's store (its analysis stays) and forgets it when `drop`. */
  async close(key: string, drop: boolean): Promise<void> {
    const run = this.runs.get(key);
    if (run === undefined) return;
    await run.lock.run(() => this.closeStore(run));
    if (drop) this.runs.delete(key);
  }

  keys(): string[] {
    return [...this.runs.keys()];
  }

  async closeAll(): Promise<void> {
    for (const key of this.keys()) await this.close(key, true);
  }

  private async closeStore(run: RunState): Promise<void> {
    const store = run.store;
    run.store = undefined;
    run.storeSettings = undefined;
    run.interrupted = false;
    await store?.close().catch(() => undefined);
  }

  /** Closes least recently used idle stores until one more fits. */
  private async makeRoom(except: RunState): Promise<void> {
    const open = [...this.runs.values()].filter((r) => r.store !== undefined && r !== except);
    const closable = open.filter((r) => !r.live && !r.lock.busy).sort((a, b) => a.lastUsed - b.lastUsed);
    while (open.length >= MAX_OPEN && closable.length > 0) {
      const victim = closable.shift() as RunState;
      open.splice(open.indexOf(victim), 1);
      await this.closeStore(victim);
    }
  }
}

function sameSettings(a: MemorySettings | undefined, b: MemorySettings): boolean {
  return a !== undefined && a.memoryLimit === b.memoryLimit && a.threads === b.threads;
}
