/** The server-side query views (catalog.ts lists them all): server_roots and spans, attributes left out. */
import { METRICS, PHASES } from '../analysis/catalog/metrics';
import { vcol, type ViewColumn, type ViewDecl } from './declarations';

/** The root metrics a server root carries (root_breakdown), in report order. */
function rootMetricColumns(phaseColumns: readonly string[]): ViewColumn[] {
  return METRICS.flatMap((m): ViewColumn[] => {
    if (m === PHASES) return phaseColumns.map((c) => vcol(c, 'DOUBLE', `phase ${c.replace(/_ms$/, '')}`));
    if (!m.populations.includes('server')) return [];
    return [vcol(m.column, 'DOUBLE', typeof m.definition === 'string' ? m.definition : m.column)];
  });
}

export const SERVER_ROOTS: ViewDecl = {
  name: 'server_roots',
  meaning: 'One row per trace with exactly one root span (the server-only population), with its phase times.',
  columns: (ctx) => [
    vcol('trace_id', 'VARCHAR', 'trace ID'),
    vcol('root_span_id', 'VARCHAR', 'span ID of the root'),
    vcol('root_service', 'VARCHAR', 'service of the root'),
    vcol('root_name', 'VARCHAR', 'name of the root span'),
    vcol('root_status', 'VARCHAR', 'UNSET | OK | ERROR'),
    vcol('root_start_ns', 'BIGINT', 'root start, epoch ns (server clock)'),
    vcol('root_end_ns', 'BIGINT', 'root end, epoch ns'),
    vcol('span_count', 'BIGINT', 'spans of the trace'),
    vcol('root_fallback', 'BOOLEAN', 'no SERVER candidate: the span without a parent ID was taken as the root'),
    ...rootMetricColumns(ctx.phaseColumns),
    vcol('server_itl_ms', 'DOUBLE', 'mean interval between content events after the first one'),
    vcol('server_output_tokens', 'DOUBLE', 'output tokens over the root subtree'),
    vcol('matched', 'BOOLEAN', 'some client request joined this trace'),
  ],
  sql: (ctx) => {
    const metrics = rootMetricColumns(ctx.phaseColumns).map((c) => `r.${c.name}`);
    return `SELECT r.trace_id, r.root_span_id, r.root_service, r.root_name, r.status AS root_status, r.root_start_ns, r.root_end_ns,
       r.span_count, r.root_fallback, ${metrics.join(', ')}, r.server_itl_ms, r.server_output_tokens,
       r.trace_id IN (SELECT trace_id FROM ${ctx.table('request_breakdown')} WHERE matched) AS matched
FROM ${ctx.table('root_breakdown')} r`;
  },
};

export const SPANS: ViewDecl = {
  name: 'spans',
  meaning: 'One row per loaded span (attributes left out), with the phase that claims it.',
  columns: () => [
    vcol('source_id', 'INTEGER', 'the file it came from'),
    vcol('line', 'BIGINT', 'its line or element in that file (NULL for a clean large file)'),
    vcol('trace_id', 'VARCHAR', 'trace ID (lower-case hex; 64-bit IDs left-padded)'),
    vcol('span_id', 'VARCHAR', 'span ID'),
    vcol('parent_span_id', 'VARCHAR', 'parent span ID, NULL when it has none'),
    vcol('name', 'VARCHAR', 'span name'),
    vcol('kind', 'VARCHAR', 'SERVER | CLIENT | INTERNAL | PRODUCER | CONSUMER | UNSPECIFIED'),
    vcol('service', 'VARCHAR', 'service name'),
    vcol('start_ns', 'BIGINT', 'start, epoch ns'),
    vcol('end_ns', 'BIGINT', 'end, epoch ns'),
    vcol('duration_ms', 'DOUBLE', 'duration'),
    vcol('status', 'VARCHAR', 'UNSET | OK | ERROR'),
    vcol('indexed', 'BOOLEAN', 'kept in a trace tree (false: a repeated copy, or no IDs)'),
    vcol('phase', 'VARCHAR', 'the first phase (mapping order) whose selector picks it, NULL for none'),
  ],
  sql: (ctx) => {
    const phase = ctx.phaseColumns.length === 0
      ? 'NULL::VARCHAR'
      : `CASE ${ctx.phaseColumns.map((c, i) => `WHEN (p.phase_mask >> ${i}) & 1 = 1 THEN '${c.replace(/_ms$/, '')}'`).join(' ')} END`;
    return `SELECT s.source_id, s.line, s.trace_id, s.span_id, nullif(s.parent_span_id, '') AS parent_span_id, s.name, s.kind, s.service,
       s.start_ns, s.end_ns, s.duration_ms, s.status, i.node_id IS NOT NULL AS indexed, ${phase} AS phase
FROM ${ctx.table('spans')} s
LEFT JOIN ${ctx.table('span_index')} i ON i.node_id = s.rowid
LEFT JOIN ${ctx.table('span_phase')} p ON p.node_id = s.rowid`;
  },
};
