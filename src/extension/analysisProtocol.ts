/**
 * The messages between the extension host and the analysis worker (analysisWorker.ts), and how errors
 * cross the thread boundary. A structured clone keeps an Error's message but drops its class and own
 * fields (InputError's file and line), so errors travel as tagged plain objects and are revived here.
 * No vscode and no DuckDB import: the host bundle and plain-Node tests both use this file.
 */
import type { Report } from '../core/report/model';
import { CancelledError, ContractError, InputError } from '../core/errors';

/** What the worker analyses (passed as `workerData`). */
export interface AnalysisRequest {
  run: readonly string[];
  spans: readonly string[];
  contract?: string;
}

/** Host → worker. */
export type HostMessage = { type: 'cancel' };

/** An error as it crosses the thread boundary. */
export type SerializedError =
  | { kind: 'input'; file: string; line: number | null; expected: string; found: string | null }
  | { kind: 'contract'; file: string; lines: string[]; message: string }
  | { kind: 'cancelled' }
  | { kind: 'other'; name: string; message: string; stack: string | null };

/** Worker → host. */
export type WorkerMessage =
  | { type: 'progress'; message: string; fraction: number | null }
  | { type: 'file'; file: string; bytes: number; side: 'client' | 'server' }
  | { type: 'notes'; notes: string[] }
  | { type: 'result'; report: Report; markdown: string }
  | { type: 'error'; error: SerializedError };

/** Worker side: any thrown value as a tagged plain object. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof CancelledError) return { kind: 'cancelled' };
  if (err instanceof InputError) {
    return { kind: 'input', file: err.file, line: err.line ?? null, expected: err.expected, found: err.found ?? null };
  }
  if (err instanceof ContractError) return { kind: 'contract', file: err.file, lines: err.lines, message: err.message };
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
    case 'other': {
      const err = new Error(e.message);
      err.name = e.name;
      if (e.stack !== null) err.stack = e.stack;
      return err;
    }
  }
}

/** Narrowing for messages arriving on a port (typed only by convention). */
export function isWorkerMessage(value: unknown): value is WorkerMessage {
  if (value === null || typeof value !== 'object') return false;
  const type = (value as { type?: unknown }).type;
  return type === 'progress' || type === 'file' || type === 'notes' || type === 'result' || type === 'error';
}

export function isHostMessage(value: unknown): value is HostMessage {
  return value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'cancel';
}
