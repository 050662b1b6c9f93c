/**
 * What the extension layer needs from the core on its own thread, built as its own bundle
 * (dist/core.js) and loaded on first use by lazyCore.ts (parsing the core at activation took
 * 70–90 ms; target: activation ≤ 50 ms). Analyses run on a worker thread (analysisWorker.ts), and
 * so does the contract core (contract/worker/contractWorker.ts).
 */
export * as probe from '../core/probe/hostApi';
