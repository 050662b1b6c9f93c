import type { Params, QueryRunner } from './duckStore';

/**
 * Runs `body` with DuckDB's preserve_insertion_order off, then turns it back on (the store's
 * setting, which the numbered readers' line numbers and the analysis's POSITIONAL JOINs rely on).
 *
 * Why: with it on, an insert whose source cannot hand out batch indexes (read_ndjson_objects,
 * read_json, hash joins, aggregates, windows) runs on one thread to keep the order. Use it only for
 * statements whose row order carries no meaning: the readers' fast paths (no line numbers; bench 100k
 * OTLP file: 7.6 CPU s in 7.3 s wall ordered, 6.7 CPU s in 3.4 s wall unordered) and analysis tables
 * read only by key (at 100k requests the span index statements ran with wall ≈ CPU, i.e. on one
 * core). An explicit ORDER BY is kept either way.
 */
export async function unordered<T>(store: QueryRunner, body: () => Promise<T>): Promise<T> {
  await store.run('SET preserve_insertion_order = false');
  try {
    return await body();
  } finally {
    await store.run('SET preserve_insertion_order = true');
  }
}

/** One INSERT/CREATE … AS SELECT run `unordered`; `onFraction` gets DuckDB's progress estimate while it runs. */
export async function runUnordered(store: QueryRunner, sql: string, params?: Params, onFraction?: (fraction: number | undefined) => void): Promise<void> {
  await unordered(store, () => runScan(store, sql, params, onFraction));
}

/** `store.run`, with progress reported when the caller wants it and the runner can give it. */
export async function runScan(store: QueryRunner, sql: string, params?: Params, onFraction?: (fraction: number | undefined) => void): Promise<void> {
  if (onFraction !== undefined && store.runWithProgress !== undefined) await store.runWithProgress(sql, params, onFraction);
  else await store.run(sql, params);
}
