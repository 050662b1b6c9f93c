/**
 * What the extension layer needs from the core on its own thread, built as its own bundle
 * (dist/core.js) and loaded on first use by lazyCore.ts: the contract features (yaml, ajv) are
 * ~0.5 MB of JavaScript, and parsing the core at activation took 70–90 ms (target: activation
 * ≤ 50 ms). Analyses do not come through here: they run on a worker thread (analysisWorker.ts).
 */
export * as contract from '../core/contract';
export * as probe from '../core/probe/hostApi';
