import type { QueryRunner } from '../../store/duckStore';
import { metricDecl, metricsHeldBy } from '../catalog/metrics';
import type { AnalysisOptions } from '../options';
import { SqlParams } from '../sql/params';
import { exec } from '../sql/statement';
import { metricSelect, type MetricSqlMap } from './metricSql';
import type { PhaseColumn } from './phaseSelect';
import { buildPhaseSelection, traceExtrasSql, tracePhasesSql } from './phaseTimes';

/**
 * `root_breakdown`: one row per trace with exactly one root (the server-only population).
 * unattributed_server_ms = server_root_ms − Σ phases, not clamped: phases overlapping each other
 * (a gateway span running during generation) show up as a negative value instead of being hidden.
 *
 * A view over trace_roots and two narrow persisted tables (numbers only, keyed by the root's node
 * ID): `root_figures`, what no phase mapping changes (first token, ITL, output tokens), and
 * `root_phase_figures`, what the mapping decides (the phase times, the unattributed rest). Another
 * mapping rebuilds only the second. The root's IDs, names and status already live in trace_roots,
 * and writing them a second time into a persisted table cost more than computing every figure
 * (≈ 0.4 s at 100k requests).
 */
/**
 * The SQL of each metric computed per root (source `root_figures` in catalog/metrics.ts), over `r`
 * (trace_roots), `p` (trace_phase_ms: the phase columns; root_phase_figures only) and `x`
 * (trace_extras: first token, ITL, output tokens; root_figures only). The phase columns are
 * `p.<phase>_ms`. A metric the catalog declares without an entry here is an error.
 */
const ROOT_METRIC_SQL: MetricSqlMap = {
  unattributed_server_ms: (phases) => `r.server_root_ms - (${phases.length > 0 ? phases.map((p) => `p.${p.column}`).join(' + ') : '0'})`,
  server_ttft_ms: () => 'x.server_ttft_ms',
};

/** `root_figures`: the phase-independent per-root figures. */
export async function buildRootFigures(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const params = new SqlParams();
  const traceExtras = traceExtrasSql(options, params);
  const metricSql = metricsHeldBy('root_figures', []).map((c) => metricSelect(ROOT_METRIC_SQL, 'root_figures', c, []));
  await exec(
    store,
    'root_figures',
    `CREATE OR REPLACE TABLE root_figures AS
     WITH trace_extras AS (${traceExtras})
     SELECT r.root_node_id, ${metricSql.join(',\n            ')},
            x.server_itl_ms, x.content_events, x.server_output_tokens
     FROM trace_roots r
     LEFT JOIN trace_extras x ON x.root_node = r.root_node_id
     WHERE r.root_candidates = 1
     ORDER BY r.root_node_id`,
    params.values,
  );
}

/** `root_phase_figures`: the phase times per root (through the temp phase_sel) and what is computed from them. */
export async function buildRootPhaseFigures(store: QueryRunner, phases: readonly PhaseColumn[], options: AnalysisOptions): Promise<void> {
  await buildPhaseSelection(store, phases);
  const params = new SqlParams();
  const tracePhases = tracePhasesSql(phases, options, params);
  const phaseColumns = phases.map((p) => p.column);
  const metricSql = metricsHeldBy('root_phase_figures', phaseColumns).map((c) =>
    phaseColumns.includes(c) ? `p.${c}` : metricSelect(ROOT_METRIC_SQL, 'root_phase_figures', c, phases),
  );
  await exec(
    store,
    'root_phase_figures',
    `CREATE OR REPLACE TABLE root_phase_figures AS
     WITH trace_phase_ms AS (${tracePhases})
     SELECT r.root_node_id, ${metricSql.join(',\n            ')}, p.concurrent_phase_spans
     FROM trace_roots r
     JOIN trace_phase_ms p ON p.root_node = r.root_node_id
     WHERE r.root_candidates = 1
     ORDER BY r.root_node_id`,
    params.values,
  );
  await exec(store, 'drop phase_sel', 'DROP TABLE IF EXISTS phase_sel');
}

/** The view `root_breakdown`: every metric of the root, trace_roots' own (server_root_ms) and both tables'. */
export async function buildRootBreakdownView(store: QueryRunner, phases: readonly PhaseColumn[]): Promise<void> {
  const phaseColumns = phases.map((p) => p.column);
  const phasePart = new Set(metricsHeldBy('root_phase_figures', phaseColumns));
  const viewMetrics = metricsHeldBy('root_breakdown', phaseColumns).map((c) => (metricDecl(c)?.source === 'trace_roots' ? `r.${c}` : phasePart.has(c) ? `p.${c}` : `f.${c}`));
  await exec(
    store,
    'root_breakdown',
    `CREATE OR REPLACE VIEW root_breakdown AS
     SELECT r.trace_id, ${viewMetrics.join(', ')},
            f.server_itl_ms, f.content_events, f.server_output_tokens,
            r.root_start_ns, r.root_end_ns, r.root_status AS status, r.root_service, r.root_name, r.root_span_id,
            r.span_count, r.root_fallback, p.concurrent_phase_spans, r.root_node_id
     FROM root_figures f JOIN root_phase_figures p ON p.root_node_id = f.root_node_id
     JOIN trace_roots r ON r.root_node_id = f.root_node_id`,
  );
}
