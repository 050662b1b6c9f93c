/**
 * The options an editor analysis runs with, and the analysis itself. Precedence: the engine's defaults,
 * then the user's settings (window size, phase mapping, slow-trace count), then the run's load
 * contract, which is the frozen claim of the run and so wins for everything it declares.
 */
import { analyzeRun, REPORT_PART_LABELS } from '../../../core/analysis/analyze';
import { DEFAULT_PHASES, type AnalysisOptions, type GateSpec } from '../../../core/analysis/options';
import { parseDuration } from '../../../core/contract/parse/durations';
import { InputError } from '../../../core/errors';
import { analysisFor } from '../../../core/run/analyzeFiles';
import type { QueryRunner } from '../../../core/store/duckStore';
import { summarizeReport } from './summary';
import type { RunSettings, RunSummary } from '../workerProtocol';
import type { RunAnalysis } from './runStates';

export interface ResolvedOptions {
  options: AnalysisOptions;
  gates: GateSpec[];
  /** The contract's warnings (`file:line:col: severity code message`), for the log. */
  notes: string[];
}

export async function resolveOptions(contract: string | null, settings: RunSettings): Promise<ResolvedOptions> {
  const { options, gates, notes } = await analysisFor(contract ?? undefined);
  if (contract === null && settings.windowSize !== undefined && settings.windowSize.trim() !== '') options.windowSizeMs = windowSizeMs(settings.windowSize);
  // A contract without trace.phases gets the engine's defaults (that very array, contract/toAnalysis.ts):
  // the user's default mapping replaces those, never phases a contract declares.
  if (settings.phases !== undefined && settings.phases.length > 0 && options.phases === DEFAULT_PHASES) options.phases = settings.phases;
  options.slowTraceCount = settings.slowTraceCount;
  return { options, gates, notes };
}

function windowSizeMs(text: string): number {
  const d = parseDuration(text);
  if (!d.ok || d.ms <= 0) throw new InputError('phasewise.analysis.windowSize', undefined, 'a window size such as 30s, 1m or 500ms', `'${text}'${d.ok ? '' : ` (${d.reason})`}`);
  return d.ms;
}

/**
 * Analyses the run; `progress` hears each part of the report as it is ready (the verdict, join and
 * owners of the p95 first, then each later section: analyze.ts ReportPart).
 */
export async function analyse(store: QueryRunner, contract: string | null, resolved: ResolvedOptions, title?: string, progress?: (message: string) => void): Promise<{ analysis: RunAnalysis; summary: RunSummary }> {
  const report = await analyzeRun(store, resolved.options, resolved.gates, (p) => progress?.(`analysing: ${REPORT_PART_LABELS[p.part]} ready`));
  const analysis: RunAnalysis = { options: resolved.options, gates: resolved.gates, contract, report };
  const summary = summarizeReport(report, {
    phases: resolved.options.phases.map((p) => p.name),
    windowSizeMs: resolved.options.windowSizeMs,
    contract,
    title,
  });
  return { analysis, summary };
}
