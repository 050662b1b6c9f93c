/**
 * The analysis worker thread (dist/analysisWorker.js, or out/src/extension/analysisWorker.js under
 * tsc). Loading DuckDB (dlopen + instance start ≈ 290 ms) and every await on it happen on this thread,
 * so the extension host's event loop stays free while a run of millions of spans loads. It analyses
 * the files given as `workerData`, renders the markdown report here too (rendering a large report is
 * itself JavaScript work), and answers with one `result` or one `error` message (analysisProtocol.ts).
 */
import { parentPort, workerData } from 'worker_threads';
import { analyzeFiles } from '../core/run/analyzeFiles';
import { renderMarkdownReport } from '../core/report/markdown';
import { CancelledError } from '../core/errors';
import type { DuckStore } from '../core/store/duckStore';
import { isHostMessage, serializeError, type AnalysisRequest, type WorkerMessage } from './analysisProtocol';

function main(): void {
  const port = parentPort;
  if (port === null) throw new Error('analysisWorker.js runs only as a worker thread (see analysisClient.ts)');
  const request = workerData as AnalysisRequest;
  const post = (message: WorkerMessage): void => port.postMessage(message);

  let store: DuckStore | undefined;
  let cancelled = false;
  // The store refuses every query after interrupt() (duckStore.ts), so one call is enough.
  const interrupt = (): void => void store?.interrupt().catch(() => undefined);
  // Reading files between queries is JavaScript too: stop at the next callback once cancelled.
  const checkCancelled = (): void => {
    if (cancelled) throw new CancelledError();
  };

  port.on('message', (message: unknown) => {
    if (!isHostMessage(message) || cancelled) return;
    cancelled = true;
    interrupt();
  });

  analyzeFiles(
    {
      run: request.run,
      spans: request.spans,
      contract: request.contract,
      store: { ...(request.memoryLimit !== undefined ? { memoryLimit: request.memoryLimit } : {}), ...(request.threads !== undefined ? { threads: request.threads } : {}) },
    },
    {
      onStore: (s) => {
        store = s;
        // A cancel that arrived before the store existed.
        if (cancelled) interrupt();
      },
      onFile: (file, bytes, side, totalBytes) => {
        checkCancelled();
        post({ type: 'file', file, bytes, side, totalBytes });
      },
      progress: (message, fraction) => {
        checkCancelled();
        post({ type: 'progress', message, fraction: fraction ?? null });
      },
      onContractNotes: (notes) => post({ type: 'notes', notes }),
    },
  )
    .then((report) => {
      // A report that finished despite the cancel is not shown: the user asked for nothing.
      if (cancelled) throw new CancelledError();
      post({ type: 'result', report, markdown: renderMarkdownReport(report) });
    })
    .catch((err: unknown) => {
      // After a cancel, DuckDB's "INTERRUPT Error" (or any failure it caused) means "cancelled".
      post({ type: 'error', error: cancelled ? { kind: 'cancelled' } : serializeError(err) });
    })
    .finally(() => {
      // Unref (not close, which could drop the answer just posted) lets the thread end on its own; the
      // host terminates it as well once it has the answer.
      port.unref();
    });
}

main();
