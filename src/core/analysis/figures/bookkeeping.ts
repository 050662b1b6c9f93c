/**
 * The report's bookkeeping sections read straight from the loaded tables: input files, load issues
 * (nothing is skipped silently), k6's own end-of-test summaries (shown beside our figures, never used
 * instead of them) and the definitions printed beside figures whose meaning varies.
 */
import type { QueryRunner } from '../../store/duckStore';
import type { AnalysisOptions } from '../options';
import { finiteOrNull } from './quantileSql';
import type { K6SummaryComparison, LoadIssue, Report, SourceSummary } from '../../report/model';

/** Examples listed in the report; the rest are counted by code. */
export const MAX_ISSUE_EXAMPLES = 20;

export async function readInputs(store: QueryRunner): Promise<SourceSummary[]> {
  const rows = await store.all<{ path: string; format: string; side: string; bytes: unknown; records: unknown; skipped: unknown }>(
    'SELECT path, format, side, bytes, records, skipped FROM sources ORDER BY source_id',
  );
  return rows.map((r) => ({
    path: r.path,
    format: r.format,
    side: r.side === 'server' || r.side === 'summary' ? r.side : 'client',
    bytes: finiteOrNull(r.bytes) ?? 0,
    records: finiteOrNull(r.records) ?? 0,
    skipped: finiteOrNull(r.skipped) ?? 0,
  }));
}

export async function readLoadIssues(store: QueryRunner): Promise<Report['load_issues']> {
  const codes = await store.all<{ code: string | null; n: number }>(
    'SELECT code, count(*) AS n FROM load_issues GROUP BY code ORDER BY n DESC, code',
  );
  const examples = await store.all<{ path: string | null; line: unknown; severity: string | null; code: string | null; message: string | null }>(
    // Errors first: they are what the user has to fix; then in file order.
    `SELECT s.path, i.line, i.severity, i.code, i.message
     FROM load_issues i LEFT JOIN sources s USING (source_id)
     ORDER BY CASE i.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, i.source_id, i.line NULLS LAST
     LIMIT $1`,
    [MAX_ISSUE_EXAMPLES],
  );
  const byCode: Record<string, number> = {};
  let total = 0;
  for (const c of codes) {
    byCode[c.code ?? 'unknown'] = c.n;
    total += c.n;
  }
  return {
    total,
    by_code: byCode,
    examples: examples.map(
      (e): LoadIssue => ({
        path: e.path ?? '(unknown source)',
        line: finiteOrNull(e.line),
        severity: e.severity === 'error' || e.severity === 'info' ? e.severity : 'warning',
        code: e.code ?? 'unknown',
        message: e.message ?? '',
      }),
    ),
  };
}

export async function readK6Summaries(store: QueryRunner): Promise<K6SummaryComparison[]> {
  const rows = await store.all<{ path: string; metric: string; stat: string; value: unknown }>(
    `SELECT s.path, k.metric, k.stat, k.value FROM k6_summary k JOIN sources s USING (source_id)
     ORDER BY k.source_id, k.metric, k.stat`,
  );
  const byPath = new Map<string, K6SummaryComparison>();
  for (const r of rows) {
    const value = finiteOrNull(r.value);
    if (value === null) continue;
    let entry = byPath.get(r.path);
    if (!entry) {
      entry = { path: r.path, metrics: {} };
      byPath.set(r.path, entry);
    }
    (entry.metrics[r.metric] ??= {})[r.stat] = value;
  }
  return [...byPath.values()];
}

export function definitions(options: AnalysisOptions): Record<string, string> {
  const itlSource = options.contentEvent
    ? `server side from the span events named "${options.contentEvent}" when a trace has them, else the client's own measurement`
    : 'the client-observed value (no content event name was configured for server spans)';
  return {
    quantiles:
      'p50/p95/p99 use linear interpolation between closest ranks at position (n−1)·p (DuckDB quantile_cont, numpy default, k6 Trend percentiles), over successful requests only; each figure carries its n.',
    populations:
      'metrics: matched successful requests (client record whose trace ID has exactly one root span); client_only: every successful client request; server_only: every trace with exactly one root.',
    itl_ms: `Inter-token latency: mean interval between consecutive content events after the first one (TTFT excluded); ${itlSource}.`,
    client_ttft_ms: 'Time to first token: client send → first response event that contains output content (streaming requests only).',
    client_ttfb_ms:
      "Time to first byte: k6 http_req_waiting on non-streaming requests. It is labelled TTFB, not TTFT: the first byte of a non-streamed response arrives with the whole generation.",
    network_envelope_ms:
      'client_total_ms − server_root_ms per matched request, never clamped: negatives are counted with their share and most negative value.',
    unattributed_server_ms: 'server_root_ms − Σ phases per trace: server time no phase claims (a missing phase or a wrong boundary), never assigned to the network.',
    tail: 'Tail ratio p95/p50, tail share above the budget and tail attribution are over matched successful requests; tail attribution averages each owner over the requests above the client_total_ms p95.',
    session_tail_probability: '1 − (1 − tail_share)^k for k calls per session.',
  };
}
