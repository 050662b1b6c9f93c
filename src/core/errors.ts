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
 * A DuckDB failure. The message (DuckDB's own text) and `sql` are for the log and a bug report only
 * (PHASEWISE_DEBUG), never for the user (DESIGN §7). For the analysis's statements, `statement` is
 * the statement's name (analysis/sql/statement.ts), which the message then starts with; `context`
 * says what Phasewise was doing ("while loading FILE"), in words the user may see.
 */
export class StoreError extends Error {
  constructor(
    readonly duckdbMessage: string,
    readonly sql: string,
    readonly statement?: string,
    readonly context?: string,
  ) {
    super(statement !== undefined ? `${statement}: ${duckdbMessage}` : duckdbMessage);
    this.name = 'StoreError';
  }

  /** The same failure, with what Phasewise was doing when it happened. */
  withContext(context: string): StoreError {
    return new StoreError(this.duckdbMessage, this.sql, this.statement, context);
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
