/**
 * A user's query over the views: one SELECT (or a WITH … SELECT), never a statement that writes.
 * The file is attached READ_ONLY already (session.ts); this also refuses anything that is not a
 * SELECT before it runs (DuckDB's json_serialize_sql parses the text and serialises SELECTs only), so
 * `CREATE TABLE`, `COPY … TO`, `ATTACH`, `SET` or `INSTALL` never reach the engine.
 */
import { InputError, StoreError } from '../errors';
import type { DuckStore } from '../store/duckStore';

/** What a query returned: its columns (in order, duplicates kept), their DuckDB types and the rows. */
export interface QueryResult {
  columns: string[];
  types: string[];
  rows: unknown[][];
  /** True when more rows exist than were read (a row limit was given). */
  truncated: boolean;
}

/** Why a query was refused before it ran: a syntax error (with its position) or a statement that is not a SELECT. */
export class QueryRefused extends InputError {
  constructor(readonly reason: string) {
    super('query', undefined, 'one read-only SELECT over the views (see phasewise sql --help)', reason);
    this.name = 'QueryRefused';
  }
}

interface Serialized {
  error: boolean;
  error_type?: string;
  error_message?: string;
  position?: string;
  statements?: unknown[];
}

/** Throws QueryRefused unless `sql` is exactly one SELECT statement. */
export async function checkSelect(store: DuckStore, sql: string): Promise<void> {
  if (sql.trim() === '') throw new QueryRefused('an empty query');
  const [row] = await store.all<{ j: string }>('SELECT json_serialize_sql($1::VARCHAR) AS j', [sql]);
  const parsed = JSON.parse(row.j) as Serialized;
  if (parsed.error) {
    if (parsed.error_type === 'parser') {
      const at = parsed.position !== undefined ? ` at character ${Number(parsed.position) + 1}` : '';
      throw new QueryRefused(`a syntax error${at} (${clean(parsed.error_message ?? '')})`);
    }
    throw new QueryRefused('a statement that is not a SELECT (the run is opened read-only: only SELECT and WITH … SELECT queries run)');
  }
  const count = parsed.statements?.length ?? 0;
  if (count !== 1) throw new QueryRefused(`${count} statements (give one SELECT)`);
}

/**
 * Runs one checked SELECT. With `limit`, at most that many rows are read and `truncated` says whether
 * there were more. A failure of the query itself (an unknown column, a type error) is the user's:
 * an InputError with DuckDB's first line, the one message that says what to fix in their own SQL.
 */
export async function runSelect(store: DuckStore, sql: string, limit?: number): Promise<QueryResult> {
  await checkSelect(store, sql);
  try {
    const result = await store.table(sql, limit === undefined ? undefined : Math.max(0, Math.floor(limit)) + 1);
    const truncated = limit !== undefined && result.rows.length > limit;
    return { ...result, rows: truncated ? result.rows.slice(0, limit) : result.rows, truncated };
  } catch (err) {
    if (err instanceof StoreError) throw new QueryRefused(refusalText(err));
    throw err;
  }
}

/** Why DuckDB could not run a user's query: its first line, the one message that says what to fix in their SQL. */
export function refusalText(err: StoreError): string {
  return `a query DuckDB could not run: ${clean(err.message.split('\n')[0])}`;
}

/** No control characters from the engine's text reach the terminal. */
function clean(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim();
}
