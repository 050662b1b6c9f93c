/**
 * Maps a contract to what the analysis engine consumes: option overrides and gate specs. The engine
 * evaluates the gates and decides the verdict; this file only says which gates the contract declares.
 */
import { DEFAULT_PHASES, DEFAULT_REQUEST_ID_ATTRIBUTE } from '../analysis/options';
import type { AnalysisOptions, GateSpec, PhaseDefinition, StageWindow, TokenBands } from '../analysis/options';
import { isArrivalExecutor } from './defaults';
import { steadyWindowOf } from './form/workload';
import type { LoadContract, SloStat } from './types';

const SLO_METRIC: Record<string, string> = { total_ms: 'client_total_ms', ttft_ms: 'client_ttft_ms', itl_ms: 'itl_ms' };

function origin(contract: LoadContract, pointer: string): string | undefined {
  const src = contract.source;
  if (!src) return undefined;
  const line = src.lines[pointer];
  return line !== undefined ? `${src.fileName}:${line}` : src.fileName;
}

/** The steady window in ms since the first send: after ramp and warm-up, until the end of the plateau. */
export function steadyWindow(contract: LoadContract): { startMs: number; endMs: number } | undefined {
  const w = contract.workload;
  return steadyWindowOf({ rampMs: w.rampMs, plateauMs: w.plateauMs, warmupExcludeMs: w.warmupExcludeMs, stagesMs: (w.stages ?? []).reduce((a, s) => a + s.durationMs, 0) });
}

/** Declared start rate in requests per second (hybrid: sessions × calls per session). */
export function declaredRequestRatePerSecond(contract: LoadContract): number | undefined {
  const w = contract.workload;
  if (!isArrivalExecutor(w.executor) || w.rate === undefined || w.stages) return undefined;
  const perSecond = (w.rate / w.timeUnitMs) * 1000;
  return w.model === 'hybrid' ? perSecond * (w.callsPerSession ?? 1) : perSecond;
}

function phasesOf(contract: LoadContract): readonly PhaseDefinition[] {
  const phases = contract.trace.phases;
  if (!phases) return DEFAULT_PHASES;
  return Object.entries(phases).map(([name, matchers]) => ({ name, anyOf: matchers.map((m) => ({ ...m })) }));
}

function options(contract: LoadContract): Partial<AnalysisOptions> {
  const out: Partial<AnalysisOptions> = {
    phases: phasesOf(contract),
    root: { service: contract.trace.root?.service, spanName: contract.trace.root?.span },
    windowSizeMs: contract.windows.sizeMs,
    traceIdTag: contract.trace.idTag,
  };
  if (contract.trace.idSource === 'request_id') {
    out.joinKey = { by: 'request_id', attribute: contract.trace.idAttribute ?? DEFAULT_REQUEST_ID_ATTRIBUTE };
  }
  const steady = steadyWindow(contract);
  if (steady) {
    out.steadyStartMs = steady.startMs;
    out.steadyEndMs = steady.endMs;
  }
  if (contract.request.firstContentEvent) out.firstTokenEvent = contract.request.firstContentEvent;
  if (contract.workload.callsPerSession !== undefined) out.callsPerSession = contract.workload.callsPerSession;
  const totalP95 = contract.slo.total_ms?.p95;
  if (totalP95 !== undefined) out.tailBudgetMs = totalP95;
  if (contract.windows.slideMs !== undefined && contract.windows.slideMs < contract.windows.sizeMs) out.windowSlideMs = contract.windows.slideMs;
  if (contract.report.groupBy !== undefined) {
    out.groupBy = contract.report.groupBy;
    out.groupBySource = 'contract';
  }
  if (contract.report.minGroupSize !== undefined) out.minGroupSize = contract.report.minGroupSize;
  // What the groups, the censored total, the join-bias note and the stage series read from the contract.
  out.timeoutMs = contract.request.timeoutMs;
  // Only a declared ratio: the parser's default of 1 is not something the user said.
  if (contract.trace.samplingDeclared) out.declaredSampling = contract.trace.sampling;
  const bands = tokenBands(contract);
  if (bands) out.tokenBands = bands;
  const stages = stageWindows(contract);
  if (stages.length > 0) out.stages = stages;
  return out;
}

/** The prompt shapes' token bands (distinct, by lower bound), for the input_band/output_band groups. */
function tokenBands(contract: LoadContract): TokenBands | undefined {
  const shapes = contract.request.promptShapes;
  if (shapes.length === 0) return undefined;
  const distinct = (list: Array<{ min: number; max: number }>): Array<{ min: number; max: number }> =>
    [...new Map(list.map((b) => [`${b.min}:${b.max}`, { min: b.min, max: b.max }])).values()].sort((a, b) => a.min - b.min || a.max - b.max);
  return { input: distinct(shapes.map((s) => s.inputTokens)), output: distinct(shapes.map((s) => s.outputTokens)) };
}

/** The declared stages as windows, ms since the first send (`stage 2 (40/s)`). */
function stageWindows(contract: LoadContract): StageWindow[] {
  const w = contract.workload;
  let start = 0;
  // Requests per second of a target (hybrid: sessions × calls per session), for the stage table's target rate.
  const perSecond = (target: number): number => (target / w.timeUnitMs) * 1000 * (w.model === 'hybrid' ? (w.callsPerSession ?? 1) : 1);
  let from = w.startRate ?? 0;
  return (w.stages ?? []).map((s, i) => {
    // k6 ramps linearly to each stage's target: the label names the target the stage ends at.
    const unit = isArrivalExecutor(w.executor) ? `/${w.timeUnitMs === 1000 ? 's' : `${w.timeUnitMs} ms`}` : ' VUs';
    const window: StageWindow = { label: `stage ${i + 1} (→ ${s.target}${unit})`, startMs: start, endMs: start + s.durationMs };
    if (isArrivalExecutor(w.executor)) {
      window.targetFromPerS = perSecond(from);
      window.targetToPerS = perSecond(s.target);
    }
    from = s.target;
    start += s.durationMs;
    return window;
  });
}

function gates(contract: LoadContract): GateSpec[] {
  const out: GateSpec[] = [];
  const ids = new Map<string, number>();
  const push = (g: GateSpec): void => {
    const n = (ids.get(g.id) ?? 0) + 1;
    ids.set(g.id, n);
    out.push(n === 1 ? g : { ...g, id: `${g.id}#${n}` });
  };
  for (const [metric, stats] of Object.entries(contract.slo)) {
    for (const [stat, limit] of Object.entries(stats ?? {})) {
      push({ id: `slo.${metric}.${stat}`, category: 'slo', metric: SLO_METRIC[metric], stat: stat as SloStat, op: '<=', limit, population: 'matched', origin: origin(contract, `/slo/${metric}/${stat}`) });
    }
  }
  contract.budgets.forEach((b, i) => {
    const stat = b.allocates.split('.')[1] as SloStat;
    for (const [phase, limit] of Object.entries(b.phases)) {
      push({ id: `budget.${phase}_ms.${stat}`, category: 'budget', metric: `${phase}_ms`, stat, op: '<=', limit, phase, population: 'matched', origin: origin(contract, `/budgets/${i}/phases/${phase}`) });
    }
  });
  const g = contract.gates;
  const gate = (key: string, category: GateSpec['category'], metric: string, stat: GateSpec['stat'], op: GateSpec['op'], limit: number | undefined): void => {
    if (limit !== undefined) push({ id: `gates.${key}`, category, metric, stat, op, limit, origin: origin(contract, `/gates/${key}`) });
  };
  gate('error_rate', 'quality', 'error_rate', 'value', '<=', g.errorRate);
  gate('dropped_iterations', 'workload', 'dropped_iterations', 'value', '<=', g.droppedIterations);
  gate('scheduler_lag_ms', 'workload', 'scheduler_lag_ms', 'p95', '<=', g.schedulerLagMs);
  gate('join_coverage', 'coverage', 'join_coverage', 'value', '>=', g.joinCoverage);
  gate('negative_envelope_share', 'instrumentation', 'negative_envelope_share', 'value', '<=', g.negativeEnvelopeShare);
  const rate = declaredRequestRatePerSecond(contract);
  if (rate !== undefined && g.achievedRateRatio !== undefined) {
    push({ id: 'workload.achieved_start_rate', category: 'workload', metric: 'achieved_start_rate', stat: 'value', op: '>=', limit: rate * g.achievedRateRatio, origin: origin(contract, '/workload/rate') });
  }
  const steady = steadyWindow(contract);
  if (steady) {
    // The last arrival lands one interval before the plateau ends, so allow that much (at least 1 s).
    const interval = rate ? 1000 / rate : 0;
    const declared = steady.endMs - steady.startMs;
    push({ id: 'workload.steady_window_ms', category: 'workload', metric: 'steady_window_ms', stat: 'value', op: '>=', limit: Math.max(0, declared - Math.max(1000, interval)), origin: origin(contract, '/workload/plateau') });
  }
  return out;
}

/** Analysis options and gates declared by a contract. */
export function contractToAnalysis(contract: LoadContract): { options: Partial<AnalysisOptions>; gates: GateSpec[] } {
  return { options: options(contract), gates: gates(contract) };
}
