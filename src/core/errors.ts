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

/** A DuckDB failure, with the SQL that caused it kept for the log (never shown with user data inlined). */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly sql: string,
  ) {
    super(message);
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
