/**
 * How errors cross a worker thread's boundary (the run worker, runWorker.ts). A structured clone keeps
 * an Error's message but drops its class and own fields (InputError's file and line), so errors travel
 * as tagged plain objects and are revived on the host as the core's error classes. No vscode and no
 * DuckDB import: the host bundle, the worker and plain-Node tests all use this file.
 */
import { CancelledError, ContractError, InputError, OutOfMemoryError } from '../../core/errors';

/** An error as it crosses the thread boundary. */
export type SerializedError =
  | { kind: 'input'; file: string; line: number | null; expected: string; found: string | null }
  | { kind: 'contract'; file: string; lines: string[]; message: string }
  | { kind: 'cancelled' }
  | { kind: 'memory'; memoryLimit: string; threads: number | null; file: string | null; document: { bytes: number; needs: number } | null }
  | { kind: 'other'; name: string; message: string; stack: string | null };

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
