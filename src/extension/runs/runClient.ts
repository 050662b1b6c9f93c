/**
 * The host's side of the run worker (runWorker.ts): starts the thread on first use (activation never
 * does), sends requests and relays progress, cancels jobs, and revives the worker's errors as the
 * core's error classes. If the worker dies, pending requests reject and the next request starts a new
 * one (its runs are then reopened from their databases: `generation` tells callers it happened).
 * No vscode import: plain-Node tests and the bench drive it too.
 */
import * as path from 'path';
import type { Worker } from 'worker_threads';
import { startWorker } from '../workerThread';
import { Endpoint, type NotificationType, type RequestType } from '../../protocol/ipc';
import { reviveError } from './workerErrors';
import * as P from './workerProtocol';

/** What the trace receiver did (relayed to the receiver's status bar item and live run). */
export interface ReceiverEventMessage {
  kind: 'export' | 'refused' | 'error' | 'stored';
  message: string;
  accepted_spans: number;
  stored_spans: number;
}

export interface RunClientOptions {
  /** The worker script; defaults to runWorker.js next to this module (dist/, or out/src/extension/runs/). */
  workerFile?: string;
  onLog?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  onReceiverEvent?: (e: ReceiverEventMessage) => void;
  /** The worker stopped unexpectedly (it is restarted on the next request). */
  onExit?: (detail: string) => void;
}

export interface ProgressEvent {
  message: string;
  fraction: number | null;
  file: string | null;
  bytes: number | null;
  total_bytes: number | null;
}

/** Something a user can cancel (VS Code's CancellationToken fits). */
export interface CancelSignal {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

interface Live {
  worker: Worker;
  endpoint: Endpoint;
}

export function defaultRunWorkerFile(): string {
  return path.join(__dirname, 'runWorker.js');
}

export class RunClient {
  private live: Live | undefined;
  private nextJob = 1;
  private readonly progress = new Map<number, (e: ProgressEvent) => void>();
  private disposed = false;
  /** Incremented each time a worker starts: runs opened in an earlier one must be reopened. */
  generation = 0;

  constructor(private readonly options: RunClientOptions = {}) {}

  /** True once the worker thread runs (tests: activation must not start it). */
  get started(): boolean {
    return this.live !== undefined;
  }

  /** Sends a request and returns its value; throws the worker's error revived (InputError, ContractError, CancelledError…). */
  async call<Q, T>(type: RequestType<string, Q, P.Answer<T>>, params: Q): Promise<T> {
    const answer = await this.ensure().endpoint.request(type, params);
    if (answer.error !== undefined) throw reviveError(answer.error);
    return answer.value as T;
  }

  /** A request that is a cancellable job with progress (`job` is filled in here). */
  async job<Q extends { job: number }, T>(type: RequestType<string, Q, P.Answer<T>>, params: Omit<Q, 'job'>, onProgress?: (e: ProgressEvent) => void, cancel?: CancelSignal): Promise<T> {
    const job = this.nextJob++;
    if (onProgress) this.progress.set(job, onProgress);
    const sub = cancel?.onCancellationRequested(() => this.notify(P.Cancel, { job }));
    try {
      if (cancel?.isCancellationRequested) this.notify(P.Cancel, { job });
      return await this.call(type, { ...params, job } as Q);
    } finally {
      sub?.dispose();
      this.progress.delete(job);
    }
  }

  private notify<Q>(type: NotificationType<string, Q>, params: Q): void {
    this.live?.endpoint.notify(type, params);
  }

  private ensure(): Live {
    if (this.disposed) throw new Error('the Phasewise run worker was shut down');
    if (this.live !== undefined) return this.live;
    const worker = startWorker(this.options.workerFile ?? defaultRunWorkerFile(), {
      // The host's own flags (an inspector port in a debugging session) are not valid for a worker.
      execArgv: [],
    });
    const endpoint = new Endpoint({
      side: 'host',
      post: (m) => worker.postMessage(m),
      // Loads of large runs take minutes: no reply timeout (a dead worker rejects everything instead).
      requestTimeoutMs: 0,
      onProblem: (p) => this.options.onLog?.('warn', `run worker protocol: ${p.method}: ${p.message}`),
    });
    endpoint.onNotification(P.Progress, (p) => this.progress.get(p.job)?.(p));
    endpoint.onNotification(P.Log, (p) => this.options.onLog?.(p.level, p.message));
    endpoint.onNotification(P.ReceiverEvent, (e) => this.options.onReceiverEvent?.(e));
    worker.on('message', (m: unknown) => endpoint.receive(m));
    const live: Live = { worker, endpoint };
    const gone = (detail: string): void => {
      if (this.live !== live) return;
      this.live = undefined;
      endpoint.dispose();
      if (!this.disposed) this.options.onExit?.(detail);
    };
    worker.on('error', (err) => gone(`the run worker failed: ${err.message}`));
    worker.on('exit', (code) => gone(`the run worker exited (code ${code})`));
    this.live = live;
    this.generation++;
    return live;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const live = this.live;
    this.live = undefined;
    if (live === undefined) return;
    live.endpoint.dispose();
    await live.worker.terminate();
  }
}
