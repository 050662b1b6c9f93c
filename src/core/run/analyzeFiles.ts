/**
 * Files in, Report out: the whole pipeline for callers that hold no store of their own (the editor's
 * "Analyze Run…" command). The caller gets the store through `onStore` so it can interrupt it.
 */
import { analyzeRun } from '../analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions, type GateSpec } from '../analysis/options';
import type { Report } from '../report/model';
import type { ProgressSink } from '../formats/types';
import { DuckStore, type StoreOptions } from '../store/duckStore';
import { loadRun } from './loadRun';

export interface AnalyzeFilesRequest {
  run: readonly string[];
  spans: readonly string[];
  contract?: string;
  /** DuckDB's memory limit and threads (the editor's phasewise.duckdb.* settings); DuckStore's defaults otherwise. */
  store?: Pick<StoreOptions, 'memoryLimit' | 'threads'>;
}

export interface AnalyzeFilesHooks {
  progress?: ProgressSink;
  onFile?: (file: string, bytes: number, side: 'client' | 'server', totalBytes: number) => void;
  /** Receives the store before any work starts, so a cancel button can call `store.interrupt()`. */
  onStore?: (store: DuckStore) => void;
  /** Contract warnings (formatted `file:line:col: severity code message`). */
  onContractNotes?: (notes: string[]) => void;
}

/** Options and gates for a request: defaults, overridden by the contract when one is given. */
export async function analysisFor(contract: string | undefined): Promise<{ options: AnalysisOptions; gates: GateSpec[]; notes: string[] }> {
  if (contract === undefined) return { options: { ...DEFAULT_ANALYSIS_OPTIONS }, gates: [], notes: [] };
  // Loaded only with a contract: the contract library (yaml, ajv) costs 0.1–0.3 s to load.
  const { readContractInput } = await import('./contractInput');
  const input = await readContractInput(contract);
  return { options: { ...DEFAULT_ANALYSIS_OPTIONS, ...input.options }, gates: input.gates, notes: input.notes };
}

/** What the progress says once the files are loaded (the analysis reports no fraction). */
export const ANALYSING_MESSAGE = 'analysing the run (join, phases, windows, figures)';

/** Loads the files into a fresh in-memory store, analyses them and closes the store. */
export async function analyzeFiles(request: AnalyzeFilesRequest, hooks: AnalyzeFilesHooks = {}): Promise<Report> {
  const { options, gates, notes } = await analysisFor(request.contract);
  if (notes.length > 0) hooks.onContractNotes?.(notes);
  const store = new DuckStore({ ...request.store });
  hooks.onStore?.(store);
  try {
    await loadRun(store, request, { traceIdTag: options.traceIdTag, progress: hooks.progress, onFile: hooks.onFile });
    hooks.progress?.(ANALYSING_MESSAGE);
    return await analyzeRun(store, options, gates);
  } finally {
    await store.close();
  }
}
