/**
 * Starting a worker thread that may run DuckDB (the run worker, the probe worker): it gets a
 * temporary directory of its own (core/tempDirectory.ts), made here and removed when the worker
 * exits, terminate() included, since a terminated worker runs none of its own cleanup.
 */
import { rmSync } from 'fs';
import { Worker, type WorkerOptions } from 'worker_threads';
import { WORKER_TEMP_ENV, workerTempDirectory } from '../core/tempDirectory';

export function startWorker(file: string, options: WorkerOptions = {}): Worker {
  const temp = workerTempDirectory();
  const worker = new Worker(file, { ...options, env: { ...process.env, [WORKER_TEMP_ENV]: temp } });
  worker.once('exit', () => rmSync(temp, { recursive: true, force: true }));
  return worker;
}
