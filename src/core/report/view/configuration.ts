/**
 * The configuration a run was evaluated with, stated for the report (options and gates as the
 * analysis received them), and each gate's place in its contract.
 */
import type { AnalysisOptions, GateSpec, SpanMatcher } from '../../analysis/options';
import type { GateLink, RunConfiguration } from './types';

function describeMatcher(m: SpanMatcher): string {
  const parts: string[] = [];
  if (m.names && m.names.length > 0) parts.push(`name in [${m.names.join(', ')}]`);
  for (const [k, v] of Object.entries(m.attributes ?? {})) parts.push(`${k} = ${v}`);
  for (const k of m.attributePresent ?? []) parts.push(`${k} present`);
  if (m.service !== undefined) parts.push(`service = ${m.service}`);
  return parts.length > 0 ? parts.join(' and ') : '(matches nothing)';
}

export function runConfiguration(options: AnalysisOptions, gates: readonly GateSpec[], contract: string | null): RunConfiguration {
  return {
    contract,
    window_size_ms: options.windowSizeMs,
    steady_window: { start_ms: options.steadyStartMs ?? null, end_ms: options.steadyEndMs ?? null },
    root: { service: options.root.service ?? null, span_name: options.root.spanName ?? null },
    phases: options.phases.map((p) => ({ name: p.name, selectors: p.anyOf.map(describeMatcher) })),
    timestamp_granularity_ms: options.timestampGranularityMs,
    first_token: { event: options.firstTokenEvent, span: options.firstTokenSpan },
    content_event: options.contentEvent ?? null,
    trace_id_tag: options.traceIdTag,
    slow_trace_count: options.slowTraceCount,
    calls_per_session: options.callsPerSession ?? null,
    tail_budget_ms: options.tailBudgetMs ?? null,
    gates: gates.map((g) => ({ id: g.id, rule: `${g.metric}.${g.stat} ${g.op} ${g.limit}`, origin: g.origin ?? null })),
  };
}

/**
 * Gate origins are `file:line` (or just `file`) as the contract layer writes them; `contractPath` is
 * the contract's path as the caller knows it (absolute in the editor), used in place of the file name.
 */
export function gateLinks(gates: readonly GateSpec[], contractPath: string | null): Record<string, GateLink> {
  const links: Record<string, GateLink> = {};
  for (const g of gates) {
    if (g.origin === undefined || g.origin.startsWith('--')) continue;
    const m = /^(.*):(\d+)$/.exec(g.origin);
    const file = m ? m[1] : g.origin;
    links[g.id] = { path: contractPath ?? file, line: m ? Number(m[2]) : null };
  }
  return links;
}
