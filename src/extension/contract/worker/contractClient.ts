/**
 * Host side of the contract worker: starts contractWorker.js on first use, matches answers to requests
 * by id, and starts a fresh thread if the worker dies (its pending requests reject; the next request
 * starts again). No vscode import: the bench and plain-Node tests drive this class as the editor does.
 */
import * as path from 'path';
import { Worker } from 'worker_threads';
import { CONTRACT_REQUESTS, WORKER_TO_HOST, type HostToWorker, type RequestName, type Requests, type WorkerToHost } from './workerProtocol';

/** The worker script next to this module: dist/contractWorker.js (bundled) or out/src/extension/contract/ (tsc). */
export function defaultContractWorkerFile(): string {
  return path.join(__dirname, 'contractWorker.js');
}

interface Pending {
  type: RequestName;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class ContractWorkerClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private disposed = false;

  constructor(
    private readonly workerFile: string = defaultContractWorkerFile(),
    private readonly onLog: (message: string) => void = () => undefined,
  ) {}

  request<K extends RequestName>(type: K, params: Requests[K]['params']): Promise<Requests[K]['result']> {
    if (this.disposed) return Promise.reject(new Error('the contract worker was stopped'));
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { type, resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ type, id, params } as HostToWorker);
    });
  }

  /** Stops the thread; pending requests reject. */
  dispose(): void {
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.failPending('the contract worker was stopped');
    void worker?.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.workerFile, { execArgv: [] });
    this.worker = worker;
    worker.on('message', (raw: unknown) => {
      if (WORKER_TO_HOST.check(raw, 'reply') !== undefined) return;
      const m = raw as WorkerToHost;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.type === 'error') return p.reject(new Error(m.message));
      const bad = CONTRACT_REQUESTS[p.type].result.check(m.result, `${p.type} result`);
      if (bad !== undefined) p.reject(new Error(bad));
      else p.resolve(m.result);
    });
    const lost = (why: string): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.onLog(`contract worker ${why}; a new one starts with the next request`);
      this.failPending(`the contract worker ${why}`);
    };
    worker.on('error', (err) => lost(`failed: ${err.message}`));
    worker.on('exit', (code) => lost(`exited with code ${code}`));
    return worker;
  }

  private failPending(message: string): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(new Error(message));
  }
}
