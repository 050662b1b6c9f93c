/**
 * Statements with a name: the analysis runs every statement through these, so a DuckDB failure says
 * which statement failed (StoreError.statement), not only what DuckDB said.
 */
import { StoreError } from '../../errors';
import type { Params, QueryRunner, Row } from '../../store/duckStore';

function named(err: unknown, name: string): unknown {
  return err instanceof StoreError && err.statement === undefined ? new StoreError(err.message, err.sql, name) : err;
}

/** Runs a statement that returns nothing (CREATE … AS, INSERT, DROP). */
export async function exec(store: QueryRunner, name: string, sql: string, params?: Params): Promise<void> {
  try {
    await store.run(sql, params);
  } catch (err) {
    throw named(err, name);
  }
}

/** Runs a query and returns its rows. */
export async function query<T extends Row = Row>(store: QueryRunner, name: string, sql: string, params?: Params): Promise<T[]> {
  try {
    return await store.all<T>(sql, params);
  } catch (err) {
    throw named(err, name);
  }
}
