/** Bad input: a file we cannot read as any format we know, or a line we cannot use. CLI exit code 4. */
export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly expected: string,
    readonly found?: string,
  ) {
    super(
      `${file}${line !== undefined ? `:${line}` : ''}: expected ${expected}` + (found !== undefined ? `, found ${found}` : ''),
    );
    this.name = 'InputError';
  }
}

/**
 * A DuckDB failure, with the SQL that caused it kept for the log (never shown with user data inlined)
 * and, for the analysis's statements, the statement's name (analysis/sql/statement.ts), which the
 * message then starts with.
 */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly sql: string,
    readonly statement?: string,
  ) {
    super(statement !== undefined ? `${statement}: ${message}` : message);
    this.name = 'StoreError';
  }
}

/** The user (or the editor) cancelled a long operation. */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

/**
 * The load contract has errors; `lines` are the formatted diagnostics (`file:line:col: severity code
 * message`). Exit 4. Kept here, beside InputError, so that catching it never loads the contract library.
 */
export class ContractError extends Error {
  constructor(
    readonly file: string,
    readonly lines: string[],
  ) {
    super(`${file}: the load contract has errors`);
    this.name = 'ContractError';
  }
}
