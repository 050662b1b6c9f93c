import type { TraceBreakdown } from '../../report/model';
import type { QueryRunner } from '../../store/duckStore';
import { ensureBreakdown } from '../breakdown/pipeline';
import { phaseColumns } from '../breakdown/phaseSelect';
import type { AnalysisOptions } from '../options';
import { query } from '../sql/statement';

/** A slow-trace row as SQL returns it: the TraceBreakdown figures, with phases still as `<phase>_ms` columns. */
type SlowRow = Omit<TraceBreakdown, 'phases'> & Record<string, unknown>;

/** The slowest matched successful requests by client_total_ms (ties by row order). */
export async function slowTraces(store: QueryRunner, options: AnalysisOptions, limit: number): Promise<TraceBreakdown[]> {
  await ensureBreakdown(store, options);
  return slowTracesOfBreakdown(store, options, limit);
}

/** slowTraces on breakdown tables the caller has just ensured for these options (analyzeRun). */
export async function slowTracesOfBreakdown(store: QueryRunner, options: AnalysisOptions, limit: number): Promise<TraceBreakdown[]> {
  const phases = phaseColumns(options.phases);
  const rows = await query<SlowRow>(
    store,
    'slow traces',
    `SELECT trace_id, outcome, start_ms, client_total_ms, server_root_ms, network_envelope_ms, transport_setup_ms,
            unattributed_server_ms, client_ttft_ms, server_ttft_ms
            ${phases.map((p) => `, ${p.column}`).join('')}
     FROM request_breakdown WHERE matched AND succeeded AND client_total_ms IS NOT NULL
     ORDER BY client_total_ms DESC, row_id LIMIT $1`,
    [Math.max(0, Math.floor(limit))],
  );
  return rows.map((r) => {
    const phaseMs: Record<string, number> = {};
    for (const p of phases) {
      const v = r[p.column];
      if (typeof v === 'number') phaseMs[p.column] = v;
    }
    return {
      trace_id: r.trace_id,
      outcome: r.outcome,
      start_ms: r.start_ms,
      client_total_ms: r.client_total_ms,
      server_root_ms: r.server_root_ms,
      network_envelope_ms: r.network_envelope_ms,
      transport_setup_ms: r.transport_setup_ms,
      phases: phaseMs,
      unattributed_server_ms: r.unattributed_server_ms,
      client_ttft_ms: r.client_ttft_ms,
      server_ttft_ms: r.server_ttft_ms,
    };
  });
}
