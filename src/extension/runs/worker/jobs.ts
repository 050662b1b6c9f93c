/**
 * Cancellable jobs of the worker (a load, an analysis): the host numbers them and sends `runs/cancel`.
 * A cancel interrupts DuckDB's running query on every store the job works on (DuckStore.interrupt,
 * which also refuses every later query) and makes the job's next progress callback throw.
 */
import { CancelledError } from '../../../core/errors';
import type { DuckStore } from '../../../core/store/duckStore';
import type { RunState } from './runStates';

export class Job {
  cancelled = false;
  private readonly stores: { store: DuckStore; run?: RunState }[] = [];

  constructor(readonly id: number) {}

  /** The job works on `store` (of `run`, when it is the run's open store): a cancel interrupts it. */
  attach(store: DuckStore, run?: RunState): void {
    this.stores.push({ store, run });
    if (this.cancelled) this.interrupt(store, run);
  }

  /** Throws CancelledError once the job was cancelled (readers call progress between statements). */
  check(): void {
    if (this.cancelled) throw new CancelledError();
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const { store, run } of this.stores) this.interrupt(store, run);
  }

  private interrupt(store: DuckStore, run: RunState | undefined): void {
    if (run !== undefined) run.interrupted = true;
    void store.interrupt().catch(() => undefined);
  }
}

export class Jobs {
  private readonly jobs = new Map<number, Job>();
  /** Cancels that arrived before their job started (the host cancels as soon as the user asks). */
  private readonly early = new Set<number>();

  start(id: number): Job {
    const job = new Job(id);
    this.jobs.set(id, job);
    if (this.early.delete(id)) job.cancel();
    return job;
  }

  end(job: Job): void {
    this.jobs.delete(job.id);
  }

  cancel(id: number): void {
    const job = this.jobs.get(id);
    if (job !== undefined) job.cancel();
    // A cancel of a job that already ended lands here too: keep only the last few.
    else if (this.early.add(id).size > 64) this.early.delete(this.early.values().next().value as number);
  }

  /** Runs `fn` as job `id`; after a cancel, whatever DuckDB's interrupt broke is reported as cancelled. */
  async run<T>(id: number, fn: (job: Job) => Promise<T>): Promise<T> {
    const job = this.start(id);
    try {
      const value = await fn(job);
      job.check();
      return value;
    } catch (err) {
      if (job.cancelled) throw new CancelledError();
      throw err;
    } finally {
      this.end(job);
    }
  }
}
