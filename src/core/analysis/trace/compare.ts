/**
 * Deltas between two traces of the same route: per figure of the breakdown (client total, envelope,
 * each phase, unattributed) and per span name (Σ of the durations of the spans of that name, nested
 * spans of one name each counted: the figure says where the time went, not what it adds up to).
 */
import type { FigureDelta, TraceModel } from './types';

function delta(name: string, slow: number | null | undefined, typical: number | null | undefined): FigureDelta {
  const s = slow ?? null;
  const t = typical ?? null;
  return { name, slow_ms: s, typical_ms: t, delta_ms: s !== null && t !== null ? s - t : null };
}

function durationByName(model: TraceModel): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of model.spans) out.set(s.name, (out.get(s.name) ?? 0) + s.duration_ms);
  return out;
}

/** Breakdown deltas in the waterfall's order, then span-name deltas by largest |delta| (names on one side only count as 0 on the other). */
export function compareTraces(slow: TraceModel, typical: TraceModel): { phases: FigureDelta[]; span_names: FigureDelta[] } {
  const a = slow.breakdown;
  const b = typical.breakdown;
  const phases: FigureDelta[] = [
    delta('client_total', a.client_total_ms, b.client_total_ms),
    delta('network_envelope', a.network_envelope_ms, b.network_envelope_ms),
    ...slow.phases.map((p) => delta(p, a.phases[`${p}_ms`], b.phases[`${p}_ms`])),
    delta('unattributed_server', a.unattributed_server_ms, b.unattributed_server_ms),
  ];
  const sa = durationByName(slow);
  const sb = durationByName(typical);
  const names = new Set([...sa.keys(), ...sb.keys()]);
  const span_names = [...names]
    .map((n) => delta(n, sa.get(n) ?? 0, sb.get(n) ?? 0))
    .sort((x, y) => Math.abs(y.delta_ms ?? 0) - Math.abs(x.delta_ms ?? 0) || x.name.localeCompare(y.name));
  return { phases, span_names };
}
