/**
 * Turns a schema-valid parsed contract into the typed `LoadContract`, with durations in ms and
 * defaults applied. Runs only when validation found no errors, so reads here can trust the shape.
 */
import type { ContractContext } from '../rules/context';
import { DEFAULT_TIME_UNIT_MS, DEFAULT_TIMEOUT_MS, DEFAULT_WINDOW_MS, GATE_DEFAULTS } from '../defaults';
import { parseDuration } from './durations';
import type { Budget, K6Executor, LoadContract, PhaseMatcherSpec, PromptShape, Slo, SloStat, TokenBand } from '../types';

type Raw = Record<string, unknown>;

function obj(v: unknown): Raw {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : {};
}

function ms(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const d = parseDuration(v);
  return d.ok ? d.ms : fallback;
}

function optMs(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const d = parseDuration(v);
  return d.ok ? d.ms : undefined;
}

function optNum(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function optStr(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function band(v: unknown): TokenBand {
  const a = Array.isArray(v) ? v : [];
  return { min: Number(a[0] ?? 0), max: Number(a[1] ?? 0) };
}

function normalizeSlo(raw: Raw): Slo {
  const slo: Slo = {};
  for (const metric of ['total_ms', 'ttft_ms', 'itl_ms'] as const) {
    const m = obj(raw[metric]);
    const stats: Partial<Record<SloStat, number>> = {};
    for (const stat of ['p50', 'p95', 'p99'] as const) {
      const v = optMs(m[stat]);
      if (v !== undefined) stats[stat] = v;
    }
    if (Object.keys(stats).length > 0) slo[metric] = stats;
  }
  return slo;
}

function normalizePhases(raw: Raw): Record<string, PhaseMatcherSpec[]> | undefined {
  const keys = Object.keys(raw);
  if (keys.length === 0) return undefined;
  const out: Record<string, PhaseMatcherSpec[]> = {};
  for (const k of keys) {
    const list = Array.isArray(raw[k]) ? (raw[k] as unknown[]) : [];
    out[k] = list.map(normalizeMatcher);
  }
  return out;
}

/** One selector of `trace.phases` as the analysis takes it (the contract form's phase preview uses it too). */
export function normalizeMatcher(m: unknown): PhaseMatcherSpec {
  const o = obj(m);
  const spec: PhaseMatcherSpec = {};
  if (Array.isArray(o.names)) spec.names = o.names.map(String);
  if (o.attributes) spec.attributes = Object.fromEntries(Object.entries(obj(o.attributes)).map(([a, b]) => [a, String(b)]));
  if (Array.isArray(o.attribute_present)) spec.attributePresent = o.attribute_present.map(String);
  if (typeof o.service === 'string') spec.service = o.service;
  return spec;
}

function normalizeBudgets(raw: unknown): Budget[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((b) => {
    const o = obj(b);
    const w = o.when === undefined ? undefined : obj(o.when);
    const phases: Record<string, number> = {};
    for (const [k, v] of Object.entries(obj(o.phases))) phases[k] = ms(v, 0);
    const budget: Budget = { allocates: String(o.allocates), phases };
    if (w) {
      budget.when = {
        modelClass: optStr(w.model_class),
        region: optStr(w.region),
        priority: optStr(w.priority),
        inputTokens: w.input_tokens !== undefined ? band(w.input_tokens) : undefined,
        rate: optNum(w.rate),
        window: optStr(w.window),
      };
    }
    return budget;
  });
}

export function normalizeContract(ctx: ContractContext): LoadContract {
  const root = obj(ctx.source.value);
  const claim = obj(root.claim);
  const w = obj(root.workload);
  const r = obj(root.request);
  const t = obj(root.trace);
  const g = obj(root.gates);
  const shapes: PromptShape[] = (Array.isArray(r.prompt_shapes) ? r.prompt_shapes : []).map((s) => {
    const o = obj(s);
    return { id: String(o.id), weight: Number(o.weight), inputTokens: band(o.input_tokens), outputTokens: band(o.output_tokens) };
  });
  const rootSel = t.root === undefined ? undefined : obj(t.root);
  return {
    version: Number(root.version),
    name: String(root.name),
    claim: { kind: (optStr(claim.kind) ?? 'slo_check') as LoadContract['claim']['kind'], statement: optStr(claim.statement) },
    workload: {
      model: String(w.model) as LoadContract['workload']['model'],
      executor: String(w.executor) as K6Executor,
      rate: optNum(w.rate),
      timeUnitMs: ms(w.time_unit, DEFAULT_TIME_UNIT_MS),
      startRate: optNum(w.start_rate),
      stages: Array.isArray(w.stages) ? w.stages.map((s) => ({ target: Number(obj(s).target), durationMs: ms(obj(s).duration, 0) })) : undefined,
      rampMs: ms(w.ramp, 0),
      plateauMs: ms(w.plateau, 0),
      drainMs: ms(w.drain, 30_000),
      warmupExcludeMs: ms(w.warmup_exclude, 0),
      maxInFlight: optNum(w.max_in_flight),
      preAllocatedVus: optNum(w.pre_allocated_vus),
      vus: optNum(w.vus),
      callsPerSession: optNum(w.calls_per_session),
    },
    request: {
      route: String(r.route),
      baseUrl: optStr(r.base_url),
      modelClass: optStr(r.model_class),
      region: optStr(r.region),
      priority: optStr(r.priority),
      streaming: r.streaming === true,
      firstContentEvent: optStr(r.first_content_event),
      timeoutMs: ms(r.timeout, DEFAULT_TIMEOUT_MS),
      retries: optNum(r.retries) ?? 0,
      promptShapes: shapes,
    },
    trace: {
      idSource: t.id_source === 'tag' ? 'tag' : t.id_source === 'request_id' ? 'request_id' : 'metadata',
      idTag: optStr(t.id_tag) ?? 'trace_id',
      idAttribute: optStr(t.id_attribute),
      root: rootSel ? { service: optStr(rootSel.service), span: optStr(rootSel.span) } : undefined,
      sampling: optNum(t.sampling) ?? 1,
      samplingDeclared: optNum(t.sampling) !== undefined,
      phases: normalizePhases(obj(t.phases)),
    },
    slo: normalizeSlo(obj(root.slo)),
    budgets: normalizeBudgets(root.budgets),
    gates: {
      errorRate: optNum(g.error_rate) ?? GATE_DEFAULTS.error_rate,
      droppedIterations: optNum(g.dropped_iterations) ?? GATE_DEFAULTS.dropped_iterations,
      // No default: k6 output carries no scheduler lag, so an implicit gate would read no data on every k6 run.
      schedulerLagMs: optMs(g.scheduler_lag_ms),
      joinCoverage: optNum(g.join_coverage) ?? GATE_DEFAULTS.join_coverage,
      negativeEnvelopeShare: optNum(g.negative_envelope_share) ?? GATE_DEFAULTS.negative_envelope_share,
      achievedRateRatio: optNum(g.achieved_rate_ratio) ?? GATE_DEFAULTS.achieved_rate_ratio,
    },
    windows: { sizeMs: ms(obj(root.windows).size, DEFAULT_WINDOW_MS), slideMs: optMs(obj(root.windows).slide) },
    report: {
      groupBy: Array.isArray(obj(root.report).group_by) ? (obj(root.report).group_by as unknown[]).map(String) : undefined,
      minGroupSize: optNum(obj(root.report).min_group_size),
    },
  };
}
