import type { DuckDBValue } from '@duckdb/node-api';

/**
 * Collects bound parameters while a SQL text is being assembled, so that user values (phase span
 * names, attribute keys, service names from a contract) never end up interpolated into SQL.
 */
export class SqlParams {
  readonly values: DuckDBValue[] = [];

  /** Appends a value and returns its placeholder (`$1`, `$2`, …). */
  bind(value: DuckDBValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** `x IN ($1, $2, …)` for a non-empty list of strings; `false` for an empty one. */
  inList(expr: string, values: readonly string[]): string {
    if (values.length === 0) return 'false';
    return `${expr} IN (${values.map((v) => this.bind(v)).join(', ')})`;
  }
}

const IDENTIFIER = /^[a-z][a-z0-9_]*$/;

/**
 * Validates a name that becomes part of SQL text (a column or table name, a phase column such as
 * `gpu_queue_ms`). `what` names a user-given name in the error (a phase name from a contract); without
 * it the name is ours, and a bad one is a bug.
 */
export function sqlIdentifier(name: string, what?: string): string {
  if (IDENTIFIER.test(name)) return name;
  if (what === undefined) throw new Error(`not a plain SQL identifier: ${JSON.stringify(name)}`);
  throw new Error(`${what} "${name}" is not a valid name: expected lower-case letters, digits and _ (starting with a letter)`);
}
