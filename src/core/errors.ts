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
 * (PHASEWISE_DEBUG), never for the user (docs/metrics.md §7). For the analysis's statements, `statement` is
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

/**
 * DuckDB ran out of memory in a step that cannot spill to its temp directory. Never DuckDB's own text:
 * the message says what happened and which setting to change. The CLI exits 4 (a setting too small
 * for this input, like a usage error); the editor names its settings instead of the flags.
 */
export class OutOfMemoryError extends Error {
  constructor(
    /** The memory limit in force, as the user would write it ('1200MB'). */
    readonly memoryLimit: string,
    /** DuckDB's threads, or undefined for one per core. */
    readonly threads: number | undefined,
    /** The file being loaded, when it happened during a load. */
    readonly file?: string,
    /** Set when a single JSON document was refused up front: its size and the memory its read needs (bytes). */
    readonly document?: { bytes: number; needs: number },
  ) {
    super(outOfMemoryMessage({ memoryLimit, threads, file, document }, 'cli'));
    this.name = 'OutOfMemoryError';
  }

  /** The same error, naming the file that was being loaded. */
  withFile(file: string): OutOfMemoryError {
    return new OutOfMemoryError(this.memoryLimit, this.threads, file, this.document);
  }
}

/** The out-of-memory message for the CLI (flags) or the editor (settings). */
export function outOfMemoryMessage(e: Pick<OutOfMemoryError, 'memoryLimit' | 'threads' | 'file' | 'document'>, where: 'cli' | 'editor'): string {
  if (e.document !== undefined) {
    const mb = (n: number): string => `${Math.ceil(n / 1e6)}MB`;
    const raise = where === 'cli' ? `--memory-limit ${mb(e.document.needs * 1.1)}` : `the phasewise.duckdb.memoryLimit setting ("${mb(e.document.needs * 1.1)}")`;
    return `${e.file ?? 'the file'} is one JSON document of ${mb(e.document.bytes)}: reading a single document takes about ${mb(e.document.needs)} of memory at once, which cannot spill to disk, more than the memory limit of ${e.memoryLimit}; raise it with ${raise}, or write the spans one request per line (NDJSON), which is read within any limit`;
  }
  const during = e.file !== undefined ? `while loading ${e.file}` : 'while analysing the run';
  const threads = e.threads === undefined ? 'one thread per core' : `${e.threads} thread${e.threads === 1 ? '' : 's'}`;
  const raise = where === 'cli' ? '--memory-limit (e.g. --memory-limit 4GB)' : 'the phasewise.duckdb.memoryLimit setting (e.g. "4GB")';
  const fewer = where === 'cli' ? '--threads 1' : 'phasewise.duckdb.threads: 1';
  return `out of memory ${during}: DuckDB needed more than its memory limit of ${e.memoryLimit} (${threads}) for a step that cannot spill to disk; raise it with ${raise}, or use fewer threads (${fewer})`;
}
