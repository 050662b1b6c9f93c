import type { DuckDBConnection } from '@duckdb/node-api';
import { PHASEWISE_VERSION } from '../version';

/**
 * The marker of a Phasewise database: its first table, one row. `--db` refuses any database without
 * it (it is someone else's data) or with a newer schema_version (a newer Phasewise wrote it).
 * This versions the loaded tables below; the derived tables of the analysis keep their own stamps.
 * History: 1, the first marked schema (the tables below, with load_skips); 2, source_provenance and
 * client_requests.region/priority (a version-1 database gains them on its first writable open); 3,
 * spans.follows_from (an earlier version's database gains it the same way).
 */
export const MARKER_TABLE = 'phasewise_store';
export const STORE_NAME = 'phasewise-run';
export const STORE_SCHEMA_VERSION = 3;

/** load_state: 'empty' (new), 'loading' (a load began and did not end), 'complete'. */
const MARKER_SQL = `CREATE TABLE ${MARKER_TABLE} (
  name VARCHAR NOT NULL,
  schema_version INTEGER NOT NULL,
  written_by VARCHAR NOT NULL,
  load_state VARCHAR NOT NULL
)`;

/**
 * The Phasewise tables: the one contract between the readers (which fill them) and the analysis
 * (which only reads them). Every reader appends; analysis never writes these tables.
 *
 * Conventions
 * - Times on one machine's clock are epoch milliseconds (DOUBLE) or epoch nanoseconds (BIGINT, spans).
 *   Durations are milliseconds (DOUBLE), each measured by one observer.
 * - `trace_id` is stored lower-cased and trimmed, otherwise as found; the analysis validates it
 *   (32 hex, not all zero). The Jaeger and Zipkin readers left-pad shorter hex
 *   IDs (64-bit ones, and Jaeger's written without leading zeros) to 32 / 16; OTLP's base64 IDs are decoded.
 * - `line` is the 1-based line (NDJSON/CSV) or element index (JSON arrays) in the source file. It
 *   is NULL for rows of the large line-delimited files (k6 JSON, OTLP JSONL) that loaded clean
 *   through the readers' fast path: numbering lines keeps DuckDB's parse on one thread (≈ 2× the
 *   load time), and a clean file has nothing to cite. When anything in such a file is reported
 *   (a bad line, a duplicate, a doubtful value), the file is read with line numbers instead.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS sources (
  source_id INTEGER PRIMARY KEY,
  path VARCHAR NOT NULL,
  format VARCHAR NOT NULL,          -- k6-json | k6-csv | k6-summary | records-ndjson | records-csv | otlp-json | jaeger-json | zipkin-json
  side VARCHAR NOT NULL,            -- client | server | summary
  bytes BIGINT,
  records BIGINT,                   -- rows this file contributed to its table
  skipped BIGINT,                   -- units skipped, all kinds (load_skips has them by kind)
  position VARCHAR                  -- what the line columns of this file's rows count: line | element
);

-- Every skipped line or element, and every warning a reader has about a file.
CREATE TABLE IF NOT EXISTS load_issues (
  source_id INTEGER,
  line BIGINT,
  severity VARCHAR,                 -- error | warning | info
  code VARCHAR,                     -- e.g. malformed-json, truncated-line, missing-field, prompt-text-dropped
  message VARCHAR
);

-- What each file's reader skipped, counted by kind in the kind's unit (formats/skips.ts): lines,
-- elements, documents, spans or requests. Every skip also has its load_issues row(s), with lines.
CREATE TABLE IF NOT EXISTS load_skips (
  source_id INTEGER,
  code VARCHAR,                     -- a key of SKIP_KINDS
  unit VARCHAR,                     -- line | element | document | span | request
  count BIGINT
);

-- One row per client request that was started (sent or attempted). Generator-dropped iterations are
-- not requests: they go to run_counters as 'dropped_iterations'.
CREATE TABLE IF NOT EXISTS client_requests (
  source_id INTEGER,
  line BIGINT,
  request_id VARCHAR,               -- from per-request records, else NULL
  trace_id VARCHAR,
  start_ms DOUBLE,                  -- epoch ms the request was sent (k6: Point time − http_req_duration); NULL for offset-only records
  send_offset_ms DOUBLE,            -- ms since run start, when known (records) else start_ms − min(start_ms) is used
  scheduled_offset_ms DOUBLE,
  scheduler_lag_ms DOUBLE,
  client_total_ms DOUBLE,           -- k6 http_req_duration, or final_content − send for records
  blocked_ms DOUBLE,
  connecting_ms DOUBLE,
  tls_handshaking_ms DOUBLE,
  sending_ms DOUBLE,
  waiting_ms DOUBLE,
  receiving_ms DOUBLE,
  client_ttft_ms DOUBLE,            -- streaming: send → first content; NULL when unknown
  client_ttfb_ms DOUBLE,            -- k6 http_req_waiting (labelled TTFB, never TTFT)
  client_itl_ms DOUBLE,             -- client-observed mean inter-token latency when the source has it
  is_streaming BOOLEAN,
  http_status INTEGER,              -- NULL/0 when no HTTP response
  error_code INTEGER,               -- k6 error_code
  outcome VARCHAR NOT NULL,         -- succeeded | rejected | timed_out | transport_failed | canceled | failed
  input_tokens INTEGER,
  output_tokens INTEGER,
  retry_count INTEGER,
  route VARCHAR,
  model_class VARCHAR,
  prompt_shape_id VARCHAR,
  window_id VARCHAR,
  scenario VARCHAR,
  method VARCHAR,
  url VARCHAR,
  session_id VARCHAR,
  run_id VARCHAR,
  region VARCHAR,                   -- k6 tag / records field, when given (a group dimension)
  priority VARCHAR                  -- k6 tag / records field, when given (a group dimension)
);

-- Generator counters (k6 iterations, dropped_iterations, vus; records' dropped rows), summed per file.
CREATE TABLE IF NOT EXISTS run_counters (
  source_id INTEGER,
  metric VARCHAR,                   -- iterations | dropped_iterations | vus_peak (highest vus gauge value) | http_reqs | scheduled
  value DOUBLE
);

-- One row per span, whatever the export format.
CREATE TABLE IF NOT EXISTS spans (
  source_id INTEGER,
  line BIGINT,
  trace_id VARCHAR,
  span_id VARCHAR,
  parent_span_id VARCHAR,           -- NULL when the span has no parent
  name VARCHAR,
  kind VARCHAR,                     -- SERVER | CLIENT | INTERNAL | PRODUCER | CONSUMER | UNSPECIFIED
  service VARCHAR,
  start_ns BIGINT,                  -- epoch ns (µs sources are multiplied by 1000)
  end_ns BIGINT,
  duration_ms DOUBLE,               -- (end_ns − start_ns) / 1e6, exact to the source's resolution
  status VARCHAR,                   -- UNSET | OK | ERROR
  attributes MAP(VARCHAR, VARCHAR), -- Jaeger/Zipkin tags, values as strings (NULL for OTLP spans)
  events STRUCT(name VARCHAR, time_ns BIGINT)[], -- the span's events as loaded; span_events is the table to query
  otlp_attributes VARCHAR,          -- OTLP spans: the KeyValue list as JSON text, typed on demand.
                                    -- Read attributes only through spanAttributes.ts (either column).
  follows_from BOOLEAN              -- true: the parent is a Jaeger FOLLOWS_FROM reference (asynchronous); else NULL
);

CREATE TABLE IF NOT EXISTS span_events (
  source_id INTEGER,
  trace_id VARCHAR,
  span_id VARCHAR,
  name VARCHAR,
  time_ns BIGINT
);

-- What a later comparison needs to know about each file (formats/provenance.ts), one row per source.
CREATE TABLE IF NOT EXISTS source_provenance (
  source_id INTEGER,
  sha256 VARCHAR,                   -- of the file's bytes as loaded (hex)
  resources VARCHAR,                -- span files: JSON list of the distinct OTLP resources (service, SDK, schema URL)
  resources_read VARCHAR            -- how the resources were read ('all documents', 'the first N documents', why not)
);

-- k6 end-of-test summaries, long format: shown beside Phasewise's own figures, never used instead.
CREATE TABLE IF NOT EXISTS k6_summary (
  source_id INTEGER,
  metric VARCHAR,
  stat VARCHAR,                     -- avg | min | med | max | p(90) | p(95) | p(99) | count | rate | value | passes | fails
  value DOUBLE
);
`;

/** The tables readers fill (above), emptied together when a store is loaded again. */
export const LOADED_TABLES = ['sources', 'load_issues', 'load_skips', 'client_requests', 'run_counters', 'spans', 'span_events', 'k6_summary', 'source_provenance'] as const;

/** Columns an earlier release's tables may lack: [table, column definition]. */
export const LEGACY_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['spans', 'events STRUCT(name VARCHAR, time_ns BIGINT)[]'],
  ['spans', 'otlp_attributes VARCHAR'],
  ['sources', 'position VARCHAR'],
  // The group dimensions (schema version 2): NULL for the requests loaded before.
  ['client_requests', 'region VARCHAR'],
  ['client_requests', 'priority VARCHAR'],
  // Asynchronous parents (schema version 3): NULL for the spans loaded before.
  ['spans', 'follows_from BOOLEAN'],
];

/**
 * The marker and the loaded tables created in the attached database `database` (qualified names), so
 * that the columns and types DuckDB gives them can be compared with a file's (databaseFile.ts).
 */
export function schemaSqlIn(database: string): string {
  return `${MARKER_SQL};\n${SCHEMA_SQL}`.replace(/CREATE TABLE (?:IF NOT EXISTS )?(\w+) \(/g, `CREATE TABLE ${database}.main.$1 (`);
}

/**
 * Creates the tables in a store that is ours: a new database (the marker is written first, in the
 * same transaction: a database file without it is never one of ours, see databaseFile.ts), one that
 * databaseFile.ts found marked with a schema version this code reads, or (`legacy`) one it recognised
 * as an earlier release's, which is marked here and gains the tables and columns added since.
 */
export async function createSchema(conn: DuckDBConnection, isNew: boolean, legacy = false): Promise<void> {
  await conn.run('BEGIN TRANSACTION');
  try {
    if (isNew || legacy) {
      // A legacy database (an earlier release's, see databaseFile.ts) holds a complete run: marked so.
      await conn.run(MARKER_SQL);
      await conn.run(`INSERT INTO ${MARKER_TABLE} VALUES ($1, $2, $3, $4)`, [STORE_NAME, STORE_SCHEMA_VERSION, `phasewise ${PHASEWISE_VERSION}`, legacy ? 'complete' : 'empty']);
    }
    await conn.run(SCHEMA_SQL);
    // Columns added since the earliest releases whose databases are still read (databaseFile.ts).
    for (const [table, column] of LEGACY_COLUMNS) await conn.run(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${column}`);
    // A database of an earlier schema version gains what was added since (the tables and
    // columns above) and says so: a Phasewise that reads only up to that version then refuses it.
    if (!isNew && !legacy) await conn.run(`UPDATE ${MARKER_TABLE} SET schema_version = $1 WHERE schema_version < $1`, [STORE_SCHEMA_VERSION]);
    await conn.run('COMMIT');
  } catch (err) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
