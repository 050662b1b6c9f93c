/**
 * Host side of the analysis worker: starts analysisWorker.js on a worker thread, relays its progress,
 * turns its answer back into a Report or a revived error, and cancels it. No vscode import (the
 * command adapts this to withProgress) and no DuckDB import: the host's event loop never waits on
 * DuckDB, which only the worker loads (DESIGN §6: the extension host is never blocked for > 50 ms).
 *
 * One worker per analysis, terminated once it has answered: a thread start costs a few milliseconds
 * off the host's thread against an analysis of seconds, DuckDB's memory and the worker's heap are
 * returned as soon as the report is out, and a worker stuck in native code can be killed without
 * touching the next analysis.
 */
import * as path from 'path';
import { Worker } from 'worker_threads';
import type { Report } from '../core/report/model';
import { CancelledError } from '../core/errors';
import { isWorkerMessage, reviveError, type AnalysisRequest, type HostMessage } from './analysisProtocol';

export type { AnalysisRequest } from './analysisProtocol';

export interface AnalysisHandlers {
  /** Phase messages of the readers and the analysis (`fraction` when the reader knows it). */
  onProgress?: (message: string, fraction: number | null) => void;
  /** A file starts loading: absolute path, size in bytes, which side it feeds, and the size of all the files. */
  onFile?: (file: string, bytes: number, side: 'client' | 'server', totalBytes: number) => void;
  /** Contract warnings, formatted `file:line:col: severity code message`. */
  onNotes?: (notes: string[]) => void;
}

export interface AnalysisOutcome {
  report: Report;
  /** The markdown report, rendered in the worker. */
  markdown: string;
}

export interface ClientOptions {
  /** The worker script; defaults to analysisWorker.js next to this file (dist/ or out/src/extension/). */
  workerFile?: string;
  /** How long a cancelled worker may take to answer before it is terminated. */
  cancelGraceMs?: number;
}

export interface RunningAnalysis {
  /** The report, or InputError / ContractError-shaped / CancelledError / Error as the worker threw it. */
  readonly result: Promise<AnalysisOutcome>;
  /** Settles with the worker's exit code once the thread has ended. */
  readonly exited: Promise<number>;
  /** Asks the worker to interrupt DuckDB; `result` then rejects with CancelledError. */
  cancel(): void;
}

const DEFAULT_CANCEL_GRACE_MS = 3000;

/** The worker script next to this module, however it was built (lazyCore.ts does the same for core.js). */
export function defaultWorkerFile(): string {
  return path.join(__dirname, 'analysisWorker.js');
}

/** Starts one analysis on a fresh worker thread. */
export function startAnalysis(request: AnalysisRequest, handlers: AnalysisHandlers = {}, options: ClientOptions = {}): RunningAnalysis {
  const worker = new Worker(options.workerFile ?? defaultWorkerFile(), {
    workerData: {
      run: [...request.run],
      spans: [...request.spans],
      contract: request.contract,
      memoryLimit: request.memoryLimit,
      threads: request.threads,
    } satisfies AnalysisRequest,
    // The host's own flags (e.g. an inspector port in a debugging session) are not valid for a worker.
    execArgv: [],
  });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));

  let settled = false;
  let cancelTimer: NodeJS.Timeout | undefined;
  let resolveResult!: (outcome: AnalysisOutcome) => void;
  let rejectResult!: (err: Error) => void;
  const result = new Promise<AnalysisOutcome>((resolve, reject) => {
    resolveResult = resolve;
    rejectResult = reject;
  });
  const settle = (outcome: { ok: AnalysisOutcome } | { err: Error }): void => {
    if (settled) return;
    settled = true;
    if (cancelTimer !== undefined) clearTimeout(cancelTimer);
    if ('ok' in outcome) resolveResult(outcome.ok);
    else rejectResult(outcome.err);
    // The worker has closed its store before answering; ending the thread now frees its heap at once.
    void worker.terminate();
  };

  worker.on('message', (message: unknown) => {
    if (!isWorkerMessage(message)) return;
    switch (message.type) {
      case 'progress':
        handlers.onProgress?.(message.message, message.fraction);
        return;
      case 'file':
        handlers.onFile?.(message.file, message.bytes, message.side, message.totalBytes);
        return;
      case 'notes':
        handlers.onNotes?.(message.notes);
        return;
      case 'result':
        settle({ ok: { report: message.report, markdown: message.markdown } });
        return;
      case 'error':
        settle({ err: reviveError(message.error) });
        return;
    }
  });
  // An exception outside the analysis promise (e.g. the worker script failed to load); after a cancel,
  // whatever broke was broken by the interrupt.
  worker.on('error', (err: Error) => settle({ err: cancelTimer !== undefined ? new CancelledError() : err }));
  worker.on('exit', (code) =>
    settle({ err: cancelTimer !== undefined ? new CancelledError() : new Error(`the analysis worker exited with code ${code} before answering`) }),
  );

  return {
    result,
    exited,
    cancel(): void {
      if (settled || cancelTimer !== undefined) return;
      worker.postMessage({ type: 'cancel' } satisfies HostMessage);
      cancelTimer = setTimeout(() => settle({ err: new CancelledError() }), options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS);
    },
  };
}
