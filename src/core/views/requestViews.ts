/**
 * The per-request query views (catalog.ts lists them all): requests, pairs (what export writes) and
 * windows, over request_breakdown. Nothing here exposes URLs, bodies or attributes.
 */
import { METRICS, PHASES } from '../analysis/catalog/metrics';
import { vcol, type ViewColumn, type ViewContext, type ViewDecl } from './declarations';

/** The per-request metric columns a pair carries: every matched- or client-population metric, in report order. */
export function pairMetricColumns(phaseColumns: readonly string[]): ViewColumn[] {
  return METRICS.flatMap((m): ViewColumn[] => {
    if (m === PHASES) return phaseColumns.map((c) => vcol(c, 'DOUBLE', `phase ${c.replace(/_ms$/, '')}: time in the spans its selector picks (matched requests)`));
    if (!m.populations.includes('matched') && !m.populations.includes('client')) return [];
    return [vcol(m.column, 'DOUBLE', typeof m.definition === 'string' ? m.definition : `${m.column} (see the report's definitions)`)];
  });
}


/** The owners whose per-window p50/p95 the windows view gives (matched successes). */
function windowOwners(phaseColumns: readonly string[]): string[] {
  return ['client_total_ms', 'network_envelope_ms', 'server_root_ms', ...phaseColumns, 'unattributed_server_ms'];
}

const STATUS_CLASS_SQL = `CASE WHEN b.http_status IS NULL OR b.http_status <= 0 THEN 'none' ELSE CAST(b.http_status // 100 AS VARCHAR) || 'xx' END`;

/** The window index of a request: floor(offset / size), NULL without a finite offset. */
function windowSql(ctx: ViewContext): string {
  return `CASE WHEN isfinite(b.offset_ms) THEN CAST(floor(b.offset_ms / ${windowLiteral(ctx)}) AS BIGINT) END`;
}

/** The window size as a SQL literal (a number we validated, never user text). */
function windowLiteral(ctx: ViewContext): string {
  if (!(Number.isFinite(ctx.windowSizeMs) && ctx.windowSizeMs > 0)) throw new Error(`window size must be a positive number of ms, got ${ctx.windowSizeMs}`);
  return `${ctx.windowSizeMs}::DOUBLE`;
}

const REQUEST_COLUMNS: readonly ViewColumn[] = [
  vcol('request_no', 'BIGINT', '1-based position of the request in the loaded client rows (the key of requests and pairs)'),
  vcol('source_id', 'INTEGER', 'the file it came from (sources.source_id)'),
  vcol('line', 'BIGINT', 'its line or element in that file (NULL for rows of a clean large file read without line numbers)'),
  vcol('request_id', 'VARCHAR', "the generator's request ID, when it records one"),
  vcol('trace_id', 'VARCHAR', 'the W3C trace ID the client recorded, as loaded (lower-cased)'),
  vcol('start_ms', 'DOUBLE', 'send time, epoch ms (NULL when the source has only offsets)'),
  vcol('offset_ms', 'DOUBLE', "send time in ms since the run's first send"),
  vcol('scheduled_offset_ms', 'DOUBLE', 'planned start in ms since the run start (per-request records)'),
  vcol('scheduler_lag_ms', 'DOUBLE', 'planned start → actual send'),
  vcol('outcome', 'VARCHAR', 'succeeded | rejected | timed_out | transport_failed | canceled | failed (docs/metrics.md §2)'),
  vcol('http_status', 'INTEGER', 'HTTP status; NULL or 0 when there was no response'),
  vcol('error_code', 'INTEGER', "the generator's error code (k6 error_code)"),
  vcol('status_class', 'VARCHAR', "'2xx', '4xx', '5xx', … from http_status, 'none' without a response"),
  vcol('route', 'VARCHAR', 'route label'),
  vcol('model_class', 'VARCHAR', 'model or model class'),
  vcol('prompt_shape_id', 'VARCHAR', 'prompt shape label'),
  vcol('scenario', 'VARCHAR', 'k6 scenario (or the benchmark a tool ran the request in)'),
  vcol('method', 'VARCHAR', 'HTTP method'),
  vcol('session_id', 'VARCHAR', 'user session ID, when recorded'),
  vcol('run_id', 'VARCHAR', 'run ID, when recorded'),
  vcol('window_id', 'VARCHAR', "the generator's own window label, when recorded"),
  vcol('is_streaming', 'BOOLEAN', 'streamed response (NULL when the source does not say)'),
  vcol('client_total_ms', 'DOUBLE', 'full request duration on the client (k6 http_req_duration)'),
  vcol('blocked_ms', 'DOUBLE', 'k6 http_req_blocked'),
  vcol('connecting_ms', 'DOUBLE', 'k6 http_req_connecting'),
  vcol('tls_handshaking_ms', 'DOUBLE', 'k6 http_req_tls_handshaking'),
  vcol('sending_ms', 'DOUBLE', 'k6 http_req_sending'),
  vcol('waiting_ms', 'DOUBLE', 'k6 http_req_waiting'),
  vcol('receiving_ms', 'DOUBLE', 'k6 http_req_receiving'),
  vcol('client_ttft_ms', 'DOUBLE', 'client send → first content (streaming)'),
  vcol('client_ttfb_ms', 'DOUBLE', 'time to first byte (k6 http_req_waiting on non-streaming requests)'),
  vcol('client_itl_ms', 'DOUBLE', 'inter-token latency the client measured'),
  vcol('input_tokens', 'INTEGER', 'input tokens'),
  vcol('output_tokens', 'INTEGER', 'output tokens'),
  vcol('retry_count', 'INTEGER', 'client retries'),
  vcol('matched', 'BOOLEAN', 'joined to exactly one server root (valid key, no client duplicate, one root)'),
  vcol('key_valid', 'BOOLEAN', 'its trace ID is a valid W3C trace ID (the join key)'),
  vcol('key_duplicate', 'BOOLEAN', 'another client row carries the same key (a collision)'),
  vcol('lost_root', 'BOOLEAN', 'its trace has spans but no root candidate'),
  vcol('root_candidates', 'BIGINT', 'root candidates of its trace (0 without spans; more than 1 is a collision)'),
];

const REQUEST_SELECT = `b.row_id AS request_no, b.source_id, b.line, b.request_id, b.trace_id, b.start_ms, b.offset_ms,
       b.scheduled_offset_ms, b.scheduler_lag_ms, b.outcome, b.http_status, b.error_code, ${STATUS_CLASS_SQL} AS status_class,
       b.route, b.model_class, b.prompt_shape_id, b.scenario, b.method, b.session_id, b.run_id, b.window_id, b.is_streaming,
       b.client_total_ms, b.blocked_ms, b.connecting_ms, b.tls_handshaking_ms, b.sending_ms, b.waiting_ms, b.receiving_ms,
       b.client_ttft_ms, b.client_ttfb_ms, b.client_itl_ms, b.input_tokens, b.output_tokens, b.retry_count,
       b.matched, b.trace_valid AS key_valid, b.client_dup AS key_duplicate, b.lost_root, b.root_candidates`;

/** The dimensions a pair is grouped by, in order. */
const PAIR_DIMENSIONS: readonly ViewColumn[] = [
  vcol('route', 'VARCHAR', 'route label'),
  vcol('model_class', 'VARCHAR', 'model or model class'),
  vcol('prompt_shape_id', 'VARCHAR', 'prompt shape label'),
  vcol('scenario', 'VARCHAR', 'k6 scenario (or the benchmark a tool ran the request in)'),
  vcol('is_streaming', 'BOOLEAN', 'streamed response (NULL when the source does not say)'),
];

export const PAIRS: ViewDecl = {
  name: 'pairs',
  meaning: "One row per client request: its outcome, group dimensions, window and every owner's duration (the raw pairs behind every quantile).",
  columns: (ctx) => [
    vcol('request_no', 'BIGINT', 'requests.request_no'),
    vcol('trace_id', 'VARCHAR', 'the W3C trace ID the client recorded (for a matched request, the trace it joined)'),
    vcol('request_id', 'VARCHAR', "the generator's request ID, when it records one"),
    vcol('outcome', 'VARCHAR', 'succeeded | rejected | timed_out | transport_failed | canceled | failed'),
    vcol('status_class', 'VARCHAR', "'2xx', '4xx', '5xx', … from the HTTP status, 'none' without a response"),
    vcol('matched', 'BOOLEAN', 'joined to exactly one server root: the decomposition columns are set'),
    ...PAIR_DIMENSIONS,
    vcol('offset_ms', 'DOUBLE', "send time in ms since the run's first send"),
    vcol('window_index', 'BIGINT', `fixed window index: floor(offset_ms / ${ctx.windowSizeMs} ms)`),
    ...pairMetricColumns(ctx.phaseColumns),
  ],
  sql: (ctx) => {
    const metrics = pairMetricColumns(ctx.phaseColumns).map((c) => `b.${c.name}`);
    return `SELECT b.row_id AS request_no, b.trace_id, b.request_id, b.outcome, ${STATUS_CLASS_SQL} AS status_class, b.matched,
       ${PAIR_DIMENSIONS.map((d) => `b.${d.name}`).join(', ')}, b.offset_ms, ${windowSql(ctx)} AS window_index,
       ${metrics.join(', ')}
FROM ${ctx.table('request_breakdown')} b`;
  },
};

export const WINDOWS: ViewDecl = {
  name: 'windows',
  meaning: "One row per fixed window of send time with requests: started, succeeded and failed requests, and each owner's p50/p95 over its matched successes.",
  columns: (ctx) => [
    vcol('window_index', 'BIGINT', `window index: floor(offset_ms / ${ctx.windowSizeMs} ms)`),
    vcol('start_offset_ms', 'DOUBLE', 'window start, ms since the first send'),
    vcol('end_offset_ms', 'DOUBLE', 'window end (exclusive)'),
    vcol('started', 'BIGINT', 'requests sent in the window'),
    vcol('succeeded', 'BIGINT', 'of them, succeeded'),
    vcol('errors', 'BIGINT', 'of them, any other outcome'),
    vcol('matched_successes', 'BIGINT', 'succeeded and joined: the population of the owner quantiles'),
    vcol('client_total_p95_all_ms', 'DOUBLE', 'client_total_ms p95 over every success of the window (joined or not)'),
    ...windowOwners(ctx.phaseColumns).flatMap((o) => [
      vcol(`${o.replace(/_ms$/, '')}_p50_ms`, 'DOUBLE', `${o} p50 over the matched successes`),
      vcol(`${o.replace(/_ms$/, '')}_p95_ms`, 'DOUBLE', `${o} p95 over the matched successes`),
    ]),
  ],
  sql: (ctx) => {
    const size = windowLiteral(ctx);
    const owners = windowOwners(ctx.phaseColumns).flatMap((o) => {
      const name = o.replace(/_ms$/, '');
      return [50, 95].map((p) => `quantile_cont(${o}, ${p / 100}) FILTER (WHERE matched AND succeeded) AS ${name}_p${p}_ms`);
    });
    return `SELECT window_index, window_index * ${size} AS start_offset_ms, (window_index + 1) * ${size} AS end_offset_ms,
       count(*) AS started, count(*) FILTER (WHERE succeeded) AS succeeded, count(*) FILTER (WHERE NOT succeeded) AS errors,
       count(*) FILTER (WHERE matched AND succeeded) AS matched_successes,
       quantile_cont(client_total_ms, 0.95) FILTER (WHERE succeeded) AS client_total_p95_all_ms,
       ${owners.join(',\n       ')}
FROM (SELECT ${windowSql(ctx)} AS window_index, b.* FROM ${ctx.table('request_breakdown')} b WHERE isfinite(b.offset_ms))
GROUP BY window_index ORDER BY window_index`;
  },
};


export const REQUESTS: ViewDecl = {
  name: 'requests',
  meaning: 'One row per client request that was started, with its timings, labels and join flags.',
  columns: () => [...REQUEST_COLUMNS],
  sql: (ctx) => `SELECT ${REQUEST_SELECT}\nFROM ${ctx.table('request_breakdown')} b`,
};

