/**
 * The vocabulary of the query views (catalog.ts): what a view and its columns say. The views are the
 * documented surface a user queries with `phasewise sql` and exports with `phasewise export`; the
 * tables under them (store/schema.ts, analysis/catalog/) may change between versions, the views keep
 * their names, columns and meanings within a VIEWS_VERSION.
 */

/** Where a view's SQL reads the run's tables, and the options that shape its columns. */
export interface ViewContext {
  /** A run table by its internal name, qualified for this session (e.g. `run.main.spans`). */
  table(name: string): string;
  /** The phase columns of the mapping (`gateway_ms`, …), validated identifiers, in options order. */
  phaseColumns: readonly string[];
  /** The fixed window size (ms) the `window` columns use: a finite positive number. */
  windowSizeMs: number;
}

/** One column of a view: its name, DuckDB type and meaning (what `--help` and phasewise_columns print). */
export interface ViewColumn {
  name: string;
  type: 'BIGINT' | 'INTEGER' | 'DOUBLE' | 'BOOLEAN' | 'VARCHAR';
  meaning: string;
}

export interface ViewDecl {
  name: string;
  /** One line: what a row is. */
  meaning: string;
  /** The columns in order; a function when they follow the phase mapping. */
  columns(ctx: ViewContext): ViewColumn[];
  /** The SELECT that defines it; its output columns are exactly `columns(ctx)` (a test checks). */
  sql(ctx: ViewContext): string;
}

export function vcol(name: string, type: ViewColumn['type'], meaning: string): ViewColumn {
  return { name, type, meaning };
}
