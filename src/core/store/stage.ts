/**
 * Stage names for the time accounting of a load and an analysis (QueryRunner.stage): each is called
 * where the work of that stage begins. The names are the rows of the bench's "where the time goes"
 * table (bench/run/stageClock.ts), one per stage docs/performance.md measures.
 */
import type { QueryRunner } from './duckStore';

/** Says that the work which follows on `store` belongs to stage `name` (a no-op on a plain store). */
export function enterStage(store: QueryRunner, name: string): void {
  store.stage?.(name);
}
