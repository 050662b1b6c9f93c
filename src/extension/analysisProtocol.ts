/**
 * The messages between the extension host and the analysis worker (analysisWorker.ts), and how errors
 * cross the thread boundary. A structured clone keeps an Error's message but drops its class and own
 * fields (InputError's file and line), so errors travel as tagged plain objects and are revived here.
 * No vscode and no DuckDB import: the host bundle and plain-Node tests both use this file.
 */
import { CancelledError, ContractError, InputError, OutOfMemoryError } from '../core/errors';
import type { Report } from '../core/report/model';
import { array, literal, model, nullable, number, object, string, tagged, type Infer, type Schema } from '../protocol/schema';

/** What the worker analyses (passed as `workerData`). */
export interface AnalysisRequest {
  run: readonly string[];
  spans: readonly string[];
  contract?: string;
  /** DuckDB's memory_limit (phasewise.duckdb.memoryLimit, checked by the host), e.g. '2GB'. */
  memoryLimit?: string;
  /** DuckDB's threads (phasewise.duckdb.threads; absent = one per core). */
  threads?: number;
}

/** Host → worker: stop (interrupt DuckDB and answer with a `cancelled` error). */
export const HOST_MESSAGE = tagged('type', { cancel: object({ type: literal('cancel') }) });

export type HostMessage = Infer<typeof HOST_MESSAGE>;

/** An error as it crosses the thread boundary. */
const serializedError = tagged('kind', {
  input: object({ kind: literal('input'), file: string, line: nullable(number), expected: string, found: nullable(string) }),
  contract: object({ kind: literal('contract'), file: string, lines: array(string), message: string }),
  cancelled: object({ kind: literal('cancelled') }),
  memory: object({
    kind: literal('memory'),
    memoryLimit: string,
    threads: nullable(number),
    file: nullable(string),
    document: nullable(object({ bytes: number, needs: number })),
  }),
  other: object({ kind: literal('other'), name: string, message: string, stack: nullable(string) }),
});

export type SerializedError = Infer<typeof serializedError>;

/** The fields of the Report the host reads itself (the rest is rendered as the core declares it). */
const report: Schema<Report> = model<Report>()({
  phasewise_version: string,
  verdict: object({ status: string, broken_phase: nullable(string), reasons: array(string) }) as unknown as Schema<Report['verdict']>,
  join: object({ client_requests: number, matched: number }) as unknown as Schema<Report['join']>,
});

/** Worker → host: progress while it runs, then one `result` or one `error`. */
export const WORKER_MESSAGE = tagged('type', {
  /** A phase message of the readers or the analysis (`fraction` when the reader knows it). */
  progress: object({ type: literal('progress'), message: string, fraction: nullable(number) }),
  /** A file starts loading: absolute path, size in bytes, which side it feeds, and the size of all the files. */
  file: object({ type: literal('file'), file: string, bytes: number, side: literal('client', 'server'), totalBytes: number }),
  /** Contract warnings, formatted `file:line:col: severity code message`. */
  notes: object({ type: literal('notes'), notes: array(string) }),
  /** The report, and its markdown rendered on the worker. */
  result: object({ type: literal('result'), report, markdown: string }),
  /** The analysis failed (or was cancelled). */
  error: object({ type: literal('error'), error: serializedError }),
});

export type WorkerMessage = Infer<typeof WORKER_MESSAGE>;

/** Worker side: any thrown value as a tagged plain object. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof CancelledError) return { kind: 'cancelled' };
  if (err instanceof InputError) {
    return { kind: 'input', file: err.file, line: err.line ?? null, expected: err.expected, found: err.found ?? null };
  }
  if (err instanceof ContractError) return { kind: 'contract', file: err.file, lines: err.lines, message: err.message };
  if (err instanceof OutOfMemoryError) {
    return { kind: 'memory', memoryLimit: err.memoryLimit, threads: err.threads ?? null, file: err.file ?? null, document: err.document ?? null };
  }
  if (err instanceof Error) {
    return { kind: 'other', name: err.name, message: err.message, stack: err.stack ?? null };
  }
  return { kind: 'other', name: 'Error', message: String(err), stack: null };
}

/** Host side: the error the command shows, with its class and fields back. */
export function reviveError(e: SerializedError): Error {
  switch (e.kind) {
    case 'cancelled':
      return new CancelledError();
    case 'input':
      return new InputError(e.file, e.line ?? undefined, e.expected, e.found ?? undefined);
    case 'contract':
      return new ContractError(e.file, e.lines);
    case 'memory':
      return new OutOfMemoryError(e.memoryLimit, e.threads ?? undefined, e.file ?? undefined, e.document ?? undefined);
    case 'other': {
      const err = new Error(e.message);
      err.name = e.name;
      if (e.stack !== null) err.stack = e.stack;
      return err;
    }
  }
}

/** Narrowing for messages arriving on the host's side of the port (checked against WORKER_MESSAGE). */
export function isWorkerMessage(value: unknown): value is WorkerMessage {
  return WORKER_MESSAGE.check(value, 'message') === undefined;
}

/** Narrowing for messages arriving on the worker's side of the port (checked against HOST_MESSAGE). */
export function isHostMessage(value: unknown): value is HostMessage {
  return HOST_MESSAGE.check(value, 'message') === undefined;
}
