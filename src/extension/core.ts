/**
 * Everything the extension layer needs from the core, built as its own bundle (dist/core.js) and
 * loaded on first use by lazyCore.ts: the core with yaml, ajv and the DuckDB client is ~0.8 MB of
 * JavaScript, and parsing it at activation alone took 70–90 ms (target: activation ≤ 50 ms).
 */
export { analyzeFiles } from '../core/report/analyzeFiles';
export { renderMarkdownReport } from '../core/report/markdown';
export { CancelledError, InputError } from '../core/errors';
export * as contract from '../core/contract';
