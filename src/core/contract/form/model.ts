/** Builds the form's model from one parse and its validation (the same diagnostics the text editor shows). */
import { DEFAULT_PHASES } from '../../analysis/options';
import { ContractContext } from '../rules/context';
import { normalizeMatcher } from '../parse/normalize';
import { GATE_DEFAULTS, isArrivalExecutor } from '../defaults';
import { schemaAt } from '../rules/schemaCheck';
import type { ParsedSource } from '../parse/sourceMap';
import type { ContractDiagnostic } from '../types';
import { budgetBreakdowns, SLO_METRICS, SLO_STATS, sloRows } from './budget';
import type { ContractFormModel, FormDiagnostic, FormField, GateRow, PhaseRow, PhaseSelector, PromptShapeRow } from './types';
import { fieldKind } from './values';
import { inFlightEstimate, sessionTail, workloadTimeline } from './workload';

/** Fields every contract form shows, present or not, with what applies when absent. */
const STATIC_FIELDS: [string, string?][] = [
  ['/name'],
  ['/claim/kind', 'slo_check'],
  ['/claim/statement'],
  ['/workload/model'],
  ['/workload/executor'],
  ['/workload/rate'],
  ['/workload/time_unit', '1s'],
  ['/workload/start_rate', '0'],
  ['/workload/vus'],
  ['/workload/ramp', '0'],
  ['/workload/plateau'],
  ['/workload/drain', '30s'],
  ['/workload/warmup_exclude', '0'],
  ['/workload/max_in_flight'],
  ['/workload/pre_allocated_vus', 'Little’s law at the SLO'],
  ['/workload/calls_per_session', '1'],
  ['/request/route'],
  ['/request/base_url'],
  ['/request/model_class'],
  ['/request/region'],
  ['/request/priority'],
  ['/request/streaming', 'false'],
  ['/request/first_content_event', 'first_token'],
  ['/request/timeout', '60s'],
  ['/request/retries', '0'],
  ['/trace/id_source', 'metadata'],
  ['/trace/id_tag', 'trace_id'],
  ['/trace/sampling', '1'],
  ['/trace/root/service'],
  ['/trace/root/span'],
  ['/windows/size', '30s'],
];

function display(raw: unknown): string {
  if (raw === null || raw === undefined) return '';
  return typeof raw === 'string' ? raw : Array.isArray(raw) || typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
}

function field(ctx: ContractContext, pointer: string, placeholder?: string): FormField | undefined {
  const kind = fieldKind(pointer);
  if (!kind) return undefined;
  const entry = ctx.entry(pointer);
  const raw = entry?.raw;
  const value = typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? raw : null;
  const out: FormField = { pointer, kind: kind.kind, present: entry !== undefined, display: display(raw), value };
  if (kind.options) out.options = kind.options;
  if (placeholder !== undefined) out.placeholder = placeholder;
  if (entry) out.line = ctx.source.lineCounter.linePos((entry.key ?? entry.value).start).line;
  return out;
}

function fields(ctx: ContractContext): Record<string, FormField> {
  const out: Record<string, FormField> = {};
  const add = (pointer: string, placeholder?: string): void => {
    const f = field(ctx, pointer, placeholder);
    if (f) out[pointer] = f;
  };
  for (const [p, placeholder] of STATIC_FIELDS) add(p, placeholder);
  for (const metric of SLO_METRICS) for (const stat of SLO_STATS) add(`/slo/${metric}/${stat}`);
  for (const k of Object.keys(GATE_DEFAULTS) as (keyof typeof GATE_DEFAULTS)[]) add(`/gates/${k}`, k === 'scheduler_lag_ms' ? 'no gate' : String(GATE_DEFAULTS[k]));
  const list = (pointer: string): number => (Array.isArray(ctx.get(pointer)) ? (ctx.get(pointer) as unknown[]).length : 0);
  for (let i = 0; i < list('/workload/stages'); i++) for (const k of ['target', 'duration']) add(`/workload/stages/${i}/${k}`);
  for (let i = 0; i < list('/budgets'); i++) {
    add(`/budgets/${i}/allocates`);
    for (const k of ['model_class', 'region', 'priority', 'rate', 'window']) add(`/budgets/${i}/when/${k}`);
    for (const phase of ctx.keys(`/budgets/${i}/phases`)) add(ctx.child(`/budgets/${i}/phases`, phase));
  }
  for (let i = 0; i < list('/request/prompt_shapes'); i++) {
    const base = `/request/prompt_shapes/${i}`;
    for (const k of ['id', 'weight']) add(`${base}/${k}`);
    for (const band of ['input_tokens', 'output_tokens']) for (const j of [0, 1]) add(`${base}/${band}/${j}`);
  }
  return out;
}

/** The innermost entry whose key, else value, holds the diagnostic's range. */
function pointerOf(source: ParsedSource, d: ContractDiagnostic): string {
  let best: { pointer: string; len: number; onKey: boolean } | undefined;
  for (const [pointer, e] of source.entries) {
    for (const [r, onKey] of [[e.key, true], [e.value, false]] as const) {
      if (!r || d.range.start < r.start || d.range.end > r.end) continue;
      const len = r.end - r.start;
      if (!best || (onKey && !best.onKey) || (onKey === best.onKey && len < best.len)) best = { pointer, len, onKey };
    }
  }
  return best?.pointer ?? '';
}

function diagnostics(source: ParsedSource, list: readonly ContractDiagnostic[]): FormDiagnostic[] {
  return list.map((d, index) => ({
    index,
    code: d.code,
    severity: d.severity,
    message: d.message,
    line: d.line,
    column: d.column,
    pointer: pointerOf(source, d),
    ...(d.fix ? { fix: d.fix.title } : {}),
  }));
}

function band(v: unknown): [number, number] | null {
  return Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number' ? [v[0], v[1]] : null;
}

function promptShapes(ctx: ContractContext): PromptShapeRow[] {
  const shapes = ctx.get('/request/prompt_shapes');
  if (!Array.isArray(shapes)) return [];
  const weights = shapes.map((_, i) => ctx.num(`/request/prompt_shapes/${i}/weight`));
  const total = weights.every((w) => w !== undefined && w > 0) ? (weights as number[]).reduce((a, b) => a + b, 0) : undefined;
  return shapes.map((_, i) => {
    const base = `/request/prompt_shapes/${i}`;
    const weight = weights[i];
    return {
      index: i,
      pointer: base,
      id: ctx.str(`${base}/id`) ?? null,
      weight: weight ?? null,
      share: weight !== undefined && total !== undefined && total > 0 ? weight / total : null,
      input: band(ctx.get(`${base}/input_tokens`)),
      output: band(ctx.get(`${base}/output_tokens`)),
    };
  });
}

function gates(ctx: ContractContext): GateRow[] {
  const arrival = isArrivalExecutor(ctx.str('/workload/executor'));
  return (Object.keys(GATE_DEFAULTS) as (keyof typeof GATE_DEFAULTS)[]).map((key) => {
    const pointer = `/gates/${key}`;
    const declared = ctx.has(pointer);
    const fallback = key === 'scheduler_lag_ms' ? null : String(GATE_DEFAULTS[key]);
    return {
      key,
      pointer,
      declared,
      effective: declared ? display(ctx.get(pointer)) : fallback,
      applies: key !== 'achieved_rate_ratio' || arrival,
      description: String(schemaAt(pointer)?.description ?? ''),
    };
  });
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

function selector(raw: unknown): PhaseSelector {
  const o = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const attrs = o.attributes !== null && typeof o.attributes === 'object' && !Array.isArray(o.attributes) ? (o.attributes as Record<string, unknown>) : {};
  return {
    names: strings(o.names),
    attributes: Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, String(v)])),
    attributePresent: strings(o.attribute_present),
    service: typeof o.service === 'string' ? o.service : null,
  };
}

function phases(ctx: ContractContext): { rows: PhaseRow[]; declared: boolean } {
  const names = ctx.keys('/trace/phases');
  if (names.length === 0) {
    return {
      declared: false,
      rows: DEFAULT_PHASES.map((p) => ({
        name: p.name,
        pointer: null,
        selectors: p.anyOf.map((m) => selector({ names: m.names, attributes: m.attributes, attribute_present: m.attributePresent, service: m.service })),
        anyOf: p.anyOf.map((m) => ({ ...m })),
      })),
    };
  }
  return {
    declared: true,
    rows: names.map((name) => {
      const pointer = ctx.child('/trace/phases', name);
      const list = ctx.get(pointer);
      const items = Array.isArray(list) ? list : [];
      return { name, pointer, selectors: items.map(selector), anyOf: items.map(normalizeMatcher) };
    }),
  };
}

/** The form's model of one text: fields, diagnostics (those of `validation`, for this same parse) and the derived figures. */
export function buildFormModel(source: ParsedSource, validation: readonly ContractDiagnostic[], fileName: string): ContractFormModel {
  const ctx = new ContractContext(source);
  const budgets = budgetBreakdowns(ctx);
  const p = phases(ctx);
  return {
    fileName,
    json: ctx.isJson,
    name: ctx.str('/name') ?? null,
    fields: fields(ctx),
    diagnostics: diagnostics(source, validation),
    slo: sloRows(ctx, budgets),
    budgets,
    timeline: workloadTimeline(ctx),
    inFlight: inFlightEstimate(ctx) ?? null,
    sessionTail: sessionTail(ctx),
    promptShapes: promptShapes(ctx),
    gates: gates(ctx),
    phases: p.rows,
    phasesDeclared: p.declared,
  };
}
