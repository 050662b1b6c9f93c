/**
 * Runs one probe job on a fresh worker thread (probeWorker.ts) and relays its stages; a cancel asks
 * the worker to stop (the request resolves as canceled) and terminates it if it does not answer.
 */
import * as path from 'path';
import { startWorker } from '../workerThread';
import { probeWorkerMessage, type CancelMessage, type ProbeJob, type ProbeWorkerMessage } from './probeProtocol';

export type ProbeAnswer = Extract<ProbeWorkerMessage, { type: 'probe' | 'series' }>;

export function runProbeJob(job: ProbeJob, onStage: (text: string) => void, cancel: { onCancel(listener: () => void): void }): Promise<ProbeAnswer> {
  // dist/probeWorker.js beside dist/extension.js; out/src/extension/probe/probeWorker.js under tsc.
  const file = path.join(__dirname, 'probeWorker.js');
  const worker = startWorker(file, { workerData: job, execArgv: [] });
  return new Promise<ProbeAnswer>((resolve, reject) => {
    let done = false;
    cancel.onCancel(() => {
      const message: CancelMessage = { type: 'cancel' };
      worker.postMessage(message);
      setTimeout(() => void worker.terminate(), 5000).unref();
    });
    worker.on('message', (received: unknown) => {
      const wrong = probeWorkerMessage.check(received, 'probe worker message');
      if (wrong !== undefined) return finish(() => reject(new TypeError(wrong)));
      const m = received as ProbeWorkerMessage;
      if (m.type === 'stage') onStage(m.text);
      else if (m.type === 'error') finish(() => reject(new Error(m.message)));
      else finish(() => resolve(m));
    });
    worker.on('error', (err) => finish(() => reject(err)));
    worker.on('exit', (code) => finish(() => reject(new Error(`the probe worker stopped (exit ${code}) without an answer`))));
    function finish(settle: () => void): void {
      if (done) return;
      done = true;
      settle();
      void worker.terminate();
    }
  });
}
