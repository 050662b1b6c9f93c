import type { QueryRunner } from '../../store/duckStore';
import type { PhaseDefinition } from '../options';
import { query } from '../sql/statement';
import { selectedSpansSql } from './spanPhases';

/** What one phase's selectors pick in a run: spans, traces with at least one, the commonest names. */
export interface PhasePick {
  spans: number;
  traces: number;
  /** The commonest span names picked, most first (ties by name), at most `topNames`. */
  names: { name: string; count: number }[];
}

/**
 * What each phase's selectors pick among the run's indexed spans, counted with the analysis's own
 * selection (spanPhases.ts selectedSpansSql, the rows span_phase would hold for these phases) and
 * nothing written but the attribute cache of a key not looked up before. A span two phases pick counts
 * in both. Needs an analysed run (a current span index). Every phase has an entry, zero when it picks
 * nothing.
 */
export async function previewPhases(store: QueryRunner, phases: readonly PhaseDefinition[], topNames = 5): Promise<Record<string, PhasePick>> {
  const out: Record<string, PhasePick> = {};
  for (const p of phases) out[p.name] = { spans: 0, traces: 0, names: [] };
  if (phases.length === 0) return out;
  // The mask is one BIGINT, as in span_phase (phaseSelect.ts phaseColumns says the same).
  if (phases.length > 62) throw new Error(`at most 62 phases are supported, got ${phases.length}`);
  const selected = await selectedSpansSql(store, phases);
  // One row per (picked span, phase bit it has): the bit numbers are phase indices, never user text.
  const picked = `WITH sel AS (${selected.sql}),
    picked AS (
      SELECT b.bit, s.name, s.trace_id
      FROM sel JOIN spans s ON s.rowid = sel.node_id, range(${phases.length}) b(bit)
      WHERE (sel.phase_mask >> b.bit::INTEGER) & 1 = 1
    )`;
  const totals = await query<{ bit: number; spans: number; traces: number }>(
    store,
    'phase preview',
    `${picked} SELECT bit, count(*) AS spans, count(DISTINCT trace_id) AS traces FROM picked GROUP BY bit`,
    selected.params,
  );
  const names = await query<{ bit: number; name: string | null; count: number }>(
    store,
    'phase preview names',
    `${picked}, byname AS (SELECT bit, name, count(*) AS count FROM picked GROUP BY bit, name)
     SELECT bit, name, count FROM (
       SELECT *, row_number() OVER (PARTITION BY bit ORDER BY count DESC, name) AS rank FROM byname
     ) WHERE rank <= ${Math.max(0, Math.floor(topNames))} ORDER BY bit, rank`,
    selected.params,
  );
  for (const t of totals) {
    const pick = out[phases[Number(t.bit)].name];
    pick.spans = Number(t.spans);
    pick.traces = Number(t.traces);
  }
  for (const n of names) out[phases[Number(n.bit)].name].names.push({ name: n.name ?? '(no name)', count: Number(n.count) });
  return out;
}
