/**
 * Test scaffolding for the report side: writes request_breakdown / root_breakdown / trace_roots rows
 * directly (shaped as the analysis contract describes them), plus an independent quantile in plain JS.
 * Derived columns are filled the way the contract defines them so that tests can state inputs as raw
 * durations; every expected figure is then recomputed by the test itself.
 */
import type { DuckStore } from '../../../src/core/store/duckStore';
import type { JoinSummary } from '../../../src/core/analysis/report';

export const PHASE_COLUMNS = ['gateway_ms', 'gpu_queue_ms', 'generation_ms'];

export interface FixtureRequest {
  offset_ms: number | null;
  outcome?: string;
  trace_id?: string | null;
  matched?: boolean;
  client_total_ms?: number | null;
  server_root_ms?: number | null;
  /** `<phase>_ms` → ms, for matched requests. */
  phases?: Record<string, number>;
  transport_setup_ms?: number | null;
  client_ttft_ms?: number | null;
  client_ttfb_ms?: number | null;
  is_streaming?: boolean | null;
  server_ttft_ms?: number | null;
  itl_ms?: number | null;
  output_tokens?: number | null;
  scheduler_lag_ms?: number | null;
}

/** numpy-default / quantile_cont: sort, then interpolate at position (n−1)·p. */
export function jsQuantile(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function close(actual: number | null | undefined, expected: number, tolerance = 1e-9): boolean {
  return actual !== null && actual !== undefined && Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected));
}

export async function createBreakdownTables(store: DuckStore, phaseColumns: readonly string[] = PHASE_COLUMNS): Promise<void> {
  const phaseDefs = phaseColumns.map((c) => `, ${c} DOUBLE`).join('');
  // Every client_requests column plus the contract's breakdown columns.
  await store.run('CREATE OR REPLACE TABLE request_breakdown AS SELECT * FROM client_requests LIMIT 0');
  for (const col of [
    'row_id BIGINT',
    'trace_valid BOOLEAN',
    'client_dup BOOLEAN',
    'matched BOOLEAN',
    'lost_root BOOLEAN',
    'offset_ms DOUBLE',
    'succeeded BOOLEAN',
    'server_root_ms DOUBLE',
    'network_envelope_ms DOUBLE',
    'transport_setup_ms DOUBLE',
    ...phaseColumns.map((c) => `${c} DOUBLE`),
    'unattributed_server_ms DOUBLE',
    'server_ttft_ms DOUBLE',
    'ttft_envelope_ms DOUBLE',
    'itl_ms DOUBLE',
    'generation_ms_per_output_token DOUBLE',
  ]) {
    await store.run(`ALTER TABLE request_breakdown ADD COLUMN ${col}`);
  }
  await store.run(
    `CREATE OR REPLACE TABLE root_breakdown (trace_id VARCHAR, server_root_ms DOUBLE${phaseDefs},
       unattributed_server_ms DOUBLE, server_ttft_ms DOUBLE, root_start_ns BIGINT, status VARCHAR)`,
  );
  await store.run(
    `CREATE OR REPLACE TABLE trace_roots (trace_id VARCHAR, valid BOOLEAN, span_count BIGINT, root_candidates BIGINT,
       root_span_id VARCHAR, root_start_ns BIGINT, server_root_ms DOUBLE, root_status VARCHAR, root_service VARCHAR,
       has_spans_without_root BOOLEAN)`,
  );
}

function traceIdFor(i: number): string {
  return (i + 1).toString(16).padStart(32, '0');
}

async function insertRows(store: DuckStore, table: string, rows: Array<Record<string, number | string | boolean | null>>): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  for (let at = 0; at < rows.length; at += 200) {
    const chunk = rows.slice(at, at + 200);
    const params: Array<number | string | boolean | null> = [];
    const tuples = chunk.map((r) => `(${columns.map((c) => (params.push(r[c] ?? null), `$${params.length}`)).join(', ')})`);
    await store.run(`INSERT INTO ${table} BY NAME SELECT * FROM (VALUES ${tuples.join(', ')}) t(${columns.join(', ')})`, params);
  }
}

/** Writes requests (and a root_breakdown row for every matched one) the way buildBreakdown would. */
export async function insertRequests(
  store: DuckStore,
  requests: readonly FixtureRequest[],
  phaseColumns: readonly string[] = PHASE_COLUMNS,
  firstRowId = 0,
): Promise<void> {
  const rows = requests.map((r, i) => {
    const id = firstRowId + i;
    const outcome = r.outcome ?? 'succeeded';
    const matched = r.matched ?? true;
    const total = r.client_total_ms ?? null;
    const root = matched ? (r.server_root_ms ?? null) : null;
    const phaseSum = phaseColumns.reduce((s, c) => s + (r.phases?.[c] ?? 0), 0);
    const row: Record<string, number | string | boolean | null> = {
      row_id: id,
      source_id: 1,
      line: id + 1,
      trace_id: r.trace_id === undefined ? traceIdFor(id) : r.trace_id,
      outcome,
      succeeded: outcome === 'succeeded',
      matched,
      trace_valid: true,
      client_dup: false,
      lost_root: false,
      offset_ms: r.offset_ms,
      send_offset_ms: r.offset_ms,
      client_total_ms: total,
      server_root_ms: root,
      network_envelope_ms: matched && total !== null && root !== null ? total - root : null,
      unattributed_server_ms: matched && root !== null ? root - phaseSum : null,
      transport_setup_ms: r.transport_setup_ms ?? null,
      client_ttft_ms: r.client_ttft_ms ?? null,
      client_ttfb_ms: r.client_ttfb_ms ?? null,
      is_streaming: r.is_streaming ?? null,
      server_ttft_ms: matched ? (r.server_ttft_ms ?? null) : null,
      ttft_envelope_ms: matched && r.client_ttft_ms != null && r.server_ttft_ms != null ? r.client_ttft_ms - r.server_ttft_ms : null,
      itl_ms: r.itl_ms ?? null,
      output_tokens: r.output_tokens ?? null,
      generation_ms_per_output_token:
        matched && outcome === 'succeeded' && r.output_tokens && r.phases?.generation_ms !== undefined ? r.phases.generation_ms / r.output_tokens : null,
      scheduler_lag_ms: r.scheduler_lag_ms ?? null,
    };
    for (const c of phaseColumns) row[c] = matched ? (r.phases?.[c] ?? 0) : null;
    return row;
  });
  await insertRows(store, 'request_breakdown', rows);
  const roots = rows
    .filter((r) => r.matched === true)
    .map((r) => {
      const root: Record<string, number | string | boolean | null> = {
        trace_id: r.trace_id,
        server_root_ms: r.server_root_ms,
        unattributed_server_ms: r.unattributed_server_ms,
        server_ttft_ms: r.server_ttft_ms,
        status: 'OK',
      };
      for (const c of phaseColumns) root[c] = r[c];
      return root;
    });
  await insertRows(store, 'root_breakdown', roots);
}

export async function insertCounter(store: DuckStore, metric: string, value: number): Promise<void> {
  await store.run('INSERT INTO run_counters VALUES (1, $1, $2)', [metric, value]);
}

/** A JoinSummary for hand-made tables: `matched` of `clientRequests`, every client ID valid. */
export function joinSummary(clientRequests: number, matched: number): JoinSummary {
  return {
    client_requests: clientRequests,
    with_trace_id: clientRequests,
    valid_trace_ids: clientRequests,
    invalid_trace_ids: 0,
    matched,
    coverage: clientRequests > 0 ? matched / clientRequests : null,
    coverage_of_valid: clientRequests > 0 ? matched / clientRequests : null,
    unmatched_client: clientRequests - matched,
    orphan_server_roots: 0,
    lost_roots: 0,
    duplicate_trace_ids: 0,
    client_duplicate_trace_ids: 0,
    server_multi_root_traces: 0,
    server_traces: matched,
    server_spans: matched * 4,
  };
}
