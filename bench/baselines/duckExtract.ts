/**
 * Baseline (c): DuckDB's bare extraction of only the fields the envelope needs, from the same files,
 * counted and thrown away: the practical ingest limit of this engine on this machine. Two reading paths
 * per format are available so the bench can show which is fastest (docs/performance.md: measure, don't assume):
 * - 'typed': read_json with an explicit narrow `columns` struct (DuckDB's own parser, projection pushdown);
 * - 'objects': read_ndjson_objects + json_transform into a narrow struct.
 * Run: node out/bench/baselines/duckExtract.js k6.ndjson spans.otlp.jsonl [typed|objects] [threads]
 */
import type { DuckDBConnection } from '@duckdb/node-api';

export type ExtractPath = 'typed' | 'objects';

export interface ExtractResult {
  k6Points: number;
  spans: number;
  k6Seconds: number;
  spansSeconds: number;
}

/** DuckDB's default; 256 MiB made it allocate 512 MiB read buffers and run out of memory at 100k. */
const MAX_OBJECT = 16 * 1024 * 1024;

/** k6 http_req_duration Points: trace_id + value. */
function k6Sql(path: ExtractPath): string {
  if (path === 'typed') {
    return `SELECT count(*) AS n, sum(value) AS s FROM (
      SELECT data.metadata.trace_id AS trace_id, data.value AS value
      FROM read_json($1, format = 'newline_delimited', maximum_object_size = ${MAX_OBJECT},
        columns = {type: 'VARCHAR', metric: 'VARCHAR', data: 'STRUCT(value DOUBLE, metadata STRUCT(trace_id VARCHAR))'})
      WHERE type = 'Point' AND metric = 'http_req_duration')`;
  }
  return `SELECT count(*) AS n, sum(d.data.value) AS s FROM (
      SELECT json_transform(json, '{"type":"VARCHAR","metric":"VARCHAR","data":{"value":"DOUBLE","metadata":{"trace_id":"VARCHAR"}}}') AS d
      FROM read_ndjson_objects($1, maximum_object_size = ${MAX_OBJECT}))
    WHERE d.type = 'Point' AND d.metric = 'http_req_duration'`;
}

const SPAN_STRUCT = `STRUCT(traceId VARCHAR, spanId VARCHAR, parentSpanId VARCHAR, startTimeUnixNano VARCHAR, endTimeUnixNano VARCHAR)`;
const SPAN_SHAPE = `{"traceId":"VARCHAR","spanId":"VARCHAR","parentSpanId":"VARCHAR","startTimeUnixNano":"VARCHAR","endTimeUnixNano":"VARCHAR"}`;

/** OTLP spans: trace/span/parent IDs, start and end as BIGINT nanoseconds. */
function spansSql(path: ExtractPath): string {
  const rows =
    path === 'typed'
      ? `SELECT unnest(flatten(flatten(list_transform(resourceSpans, lambda r: list_transform(r.scopeSpans, lambda s: s.spans))))) AS sp
         FROM read_json($1, format = 'newline_delimited', maximum_object_size = ${MAX_OBJECT},
           columns = {resourceSpans: 'STRUCT(scopeSpans STRUCT(spans ${SPAN_STRUCT}[])[])[]'})`
      : `SELECT unnest(flatten(flatten(list_transform(d.resourceSpans, lambda r: list_transform(r.scopeSpans, lambda s: s.spans))))) AS sp
         FROM (SELECT json_transform(json, '{"resourceSpans":[{"scopeSpans":[{"spans":[${SPAN_SHAPE}]}]}]}') AS d
               FROM read_ndjson_objects($1, maximum_object_size = ${MAX_OBJECT}))`;
  return `SELECT count(*) AS n, count(DISTINCT sp.traceId) AS traces,
            sum((TRY_CAST(sp.endTimeUnixNano AS BIGINT) - TRY_CAST(sp.startTimeUnixNano AS BIGINT)) / 1e6) AS s,
            count(sp.parentSpanId) AS parents, count(sp.spanId) AS ids
          FROM (${rows})`;
}

async function timed(conn: DuckDBConnection, sql: string, file: string): Promise<{ n: number; seconds: number }> {
  const t0 = performance.now();
  const reader = await conn.runAndReadAll(sql, [file]);
  const n = Number(reader.getRows()[0][0]);
  return { n, seconds: (performance.now() - t0) / 1000 };
}

export async function extract(conn: DuckDBConnection, k6File: string, otlpFile: string, k6Path: ExtractPath, spanPath: ExtractPath): Promise<ExtractResult> {
  const k6 = await timed(conn, k6Sql(k6Path), k6File);
  const spans = await timed(conn, spansSql(spanPath), otlpFile);
  return { k6Points: k6.n, spans: spans.n, k6Seconds: k6.seconds, spansSeconds: spans.seconds };
}

if (require.main === module) {
  void (async () => {
    const [k6File, otlpFile, which = 'typed', threads] = process.argv.slice(2);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const config: Record<string, string> = { memory_limit: '1500MB' };
    if (threads) config.threads = threads;
    const db = await DuckDBInstance.create(':memory:', config);
    const conn = await db.connect();
    const p = which as ExtractPath;
    const r = await extract(conn, k6File, otlpFile, p, p);
    process.stdout.write(`${JSON.stringify({ path: p, ...r, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
  })().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
