import type { QueryRunner } from '../store/duckStore';

/**
 * The options-independent half of the breakdown, built once per loaded span set and kept in the
 * database, so that re-analysis (another contract, phase mapping, granularity, root service) only runs
 * the cheap options-dependent queries (DESIGN §6: ≤ 0.5 s at 100k requests).
 *
 * - `span_index`: one row per (trace_id, span_id), the first loaded copy (lowest spans.rowid, which is
 *   `node_id`; IDs, names and attributes are read from spans by that rowid, never copied), with an
 *   integer `trace_no`, times, output tokens, the parent resolved to an integer `parent_node` (NULL when
 *   the parent is not in the trace), and, from one walk down from every top-most span, `top_node` (the
 *   top-most span above it, itself for a top-most span; NULL for spans on a parent cycle), `depth` and
 *   `ancestors` (node IDs from the top down, itself excluded). "Is any ancestor selected for phase i"
 *   is then a join of the selected spans' ancestor lists with the selected spans, no recursion.
 *   Spans without a trace or span ID cannot take part in a tree and are left out (counted in
 *   span_index_meta.spans_without_ids).
 * - `trace_index`: one row per trace with spans: trace_no, trace_id, valid, span_count.
 * - `event_index`: distinct (node_id, top_node, name, time_ns) of span events whose span is indexed.
 * - `top_index`: the top-most spans (root candidates are among them) and the Σ of output tokens over
 *   each one's subtree.
 * - `client_index`: per client_requests row, in loaded order (read back with a POSITIONAL JOIN, so the
 *   client columns themselves are always the live ones): row_id, trace_valid, client_dup and the
 *   trace_no of its trace (NULL for an invalid ID or a trace without spans).
 * - `span_index_meta`: the stamp of the loaded rows it was built from.
 */

/** Output tokens of a span row `s` of spans (GenAI semantic conventions, or the older llm.* name). */
const OUTPUT_TOKENS_SQL = `TRY_CAST(coalesce(map_extract_value(s.attributes, 'gen_ai.usage.output_tokens'),
                              map_extract_value(s.attributes, 'llm.output_tokens')) AS DOUBLE)`;

/**
 * The descriptive columns of a span row `s` of spans that span_index leaves out, for a join
 * `span_index i JOIN spans s ON s.rowid = i.node_id` (node_id is the rowid of the kept copy).
 */
export const SPAN_COLUMNS = `s.span_id, nullif(s.parent_span_id, '') AS parent_span_id, s.name, s.kind, s.service, s.status`;

/** SQL boolean: a trace ID the join accepts (W3C: 32 lower-case hex digits, not all zero). */
export function validTraceIdSql(expr: string): string {
  return `coalesce(regexp_full_match(${expr}, '[0-9a-f]{32}') AND ${expr} <> '00000000000000000000000000000000', false)`;
}

/**
 * What the index (and the breakdown built on it) depends on: the loaded run. Readers only append, and
 * a reload deletes and re-appends with new `sources` rows, so the sources listing plus the row counts
 * and the highest rowid identify it. (An in-place UPDATE is not detected: nothing in Phasewise does that.)
 */
export const LOADED_RUN_STAMP_SQL = `(SELECT coalesce(string_agg(source_id || '|' || path || '|' || coalesce(bytes, -1) || '|' || coalesce(records, -1), ';' ORDER BY source_id), '') FROM sources) AS sources_key,
  (SELECT count(*) FROM spans) AS span_rows, (SELECT coalesce(max(rowid), -1) FROM spans) AS span_max_rowid,
  (SELECT count(*) FROM span_events) AS event_rows,
  (SELECT count(*) FROM client_requests) AS client_rows, (SELECT coalesce(max(rowid), -1) FROM client_requests) AS client_max_rowid`;

/** The columns LOADED_RUN_STAMP_SQL yields, as a SQL row constructor over table alias `t`. */
export function loadedRunStampRow(t: string): string {
  return `(${t}.sources_key, ${t}.span_rows, ${t}.span_max_rowid, ${t}.event_rows, ${t}.client_rows, ${t}.client_max_rowid)`;
}

/** Bump when the shape of any index table changes: a database written by another version is re-indexed. */
const SPAN_INDEX_VERSION = 3;

/** Builds the span index unless it exists for the loaded rows and this index version. Returns true when it was (re)built. */
export async function ensureSpanIndex(store: QueryRunner): Promise<boolean> {
  const [{ n }] = await store.all<{ n: number }>(
    // Looks for the version column itself: a meta table written before it existed means re-index.
    "SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'span_index_meta' AND column_name = 'index_version'",
  );
  if (n > 0) {
    const [meta] = await store.all<{ fresh: boolean }>(
      `SELECT m.index_version = $1 AND ${loadedRunStampRow('m')} = ${loadedRunStampRow('now')} AS fresh
       FROM span_index_meta m, (SELECT ${LOADED_RUN_STAMP_SQL}) now`,
      [SPAN_INDEX_VERSION],
    );
    if (meta?.fresh === true) return false;
  }
  await buildSpanIndex(store);
  return true;
}

export async function buildSpanIndex(store: QueryRunner): Promise<void> {
  // First loaded copy of each (trace_id, span_id): a hash aggregate on the two IDs only.
  await store.run(
    `CREATE OR REPLACE TEMP TABLE span_keep AS
     SELECT min(rowid) AS node_id, trace_id, span_id FROM spans
     WHERE trace_id IS NOT NULL AND trace_id <> '' AND span_id IS NOT NULL AND span_id <> ''
     GROUP BY trace_id, span_id`,
  );
  await store.run(
    `CREATE OR REPLACE TABLE trace_index AS
     SELECT row_number() OVER ()::INTEGER AS trace_no, trace_id, ${validTraceIdSql('trace_id')} AS valid, span_count
     FROM (SELECT trace_id, count(*) AS span_count FROM span_keep GROUP BY trace_id)`,
  );
  // Parent links resolved once by string IDs into integers; everything after joins integers. The
  // per-span figures every later step needs (times, output tokens) are read in the same join with
  // spans, so spans is joined by rowid once here and once for the top-most spans (top_index).
  await store.run(
    `CREATE OR REPLACE TEMP TABLE span_links AS
     SELECT k.node_id, t.trace_no, p.node_id AS parent_node, s.start_ns, s.end_ns, s.duration_ms,
            ${OUTPUT_TOKENS_SQL} AS output_tokens
     FROM span_keep k JOIN trace_index t USING (trace_id)
     JOIN spans s ON s.rowid = k.node_id
     LEFT JOIN span_keep p ON p.trace_id = k.trace_id AND p.span_id = nullif(s.parent_span_id, '')`,
  );
  // One set-based walk down from the top-most spans over integer pairs only. Span IDs are unique per
  // trace, so it is a forest and cannot loop; the depth cap only guards against pathological inputs.
  await store.run(
    `CREATE OR REPLACE TEMP TABLE span_walk AS
     WITH RECURSIVE walk(node_id, top_node, depth, ancestors) AS (
       SELECT node_id, node_id, 0, []::BIGINT[] FROM span_links WHERE parent_node IS NULL
       UNION ALL
       SELECT c.node_id, w.top_node, w.depth + 1, list_append(w.ancestors, w.node_id)
       FROM walk w JOIN span_links c ON c.parent_node = w.node_id
       WHERE w.depth < 100000
     )
     SELECT * FROM walk`,
  );
  // Narrow on purpose: no IDs, names or attributes (copying those wide columns was most of the cost);
  // whoever needs them joins spans on rowid = node_id (spanColumnsSql).
  await store.run(
    `CREATE OR REPLACE TABLE span_index AS
     SELECT l.node_id, l.trace_no, l.start_ns, l.end_ns, l.duration_ms, l.output_tokens,
            l.parent_node, l.parent_node IS NULL AS parent_missing,
            w.top_node, w.depth, w.ancestors
     FROM span_links l LEFT JOIN span_walk w USING (node_id)`,
  );
  await store.run(
    `CREATE OR REPLACE TABLE top_index AS
     -- Only spans that carry a token count (few) take part: a subtree without any keeps NULL, as sum() over NULLs gives.
     WITH tok AS (
       SELECT top_node, sum(output_tokens) AS output_tokens FROM span_index
       WHERE top_node IS NOT NULL AND output_tokens IS NOT NULL GROUP BY top_node
     )
     SELECT i.node_id AS top_node, i.trace_no, ${SPAN_COLUMNS}, i.start_ns, i.end_ns, i.duration_ms, tok.output_tokens
     FROM span_index i JOIN spans s ON s.rowid = i.node_id LEFT JOIN tok ON tok.top_node = i.node_id
     WHERE i.parent_missing`,
  );
  await store.run(
    `CREATE OR REPLACE TABLE event_index AS
     SELECT DISTINCT k.node_id, i.top_node, e.name, e.time_ns
     FROM span_events e JOIN span_keep k ON k.trace_id = e.trace_id AND k.span_id = e.span_id
     JOIN span_index i ON i.node_id = k.node_id`,
  );
  // client_dup is only set for valid IDs: an all-zero or malformed ID repeated on many rows is already
  // unmatched as invalid, and counting it as a collision too would double-report one problem.
  await store.run(
    `CREATE OR REPLACE TABLE client_index AS
     WITH c AS (
       SELECT row_number() OVER ()::BIGINT AS row_id, trace_id, ${validTraceIdSql('trace_id')} AS trace_valid FROM client_requests
     ),
     dups AS (SELECT trace_id FROM c WHERE trace_valid GROUP BY trace_id HAVING count(*) > 1)
     SELECT c.row_id, c.trace_valid, dups.trace_id IS NOT NULL AS client_dup, t.trace_no
     FROM c LEFT JOIN dups ON dups.trace_id = CASE WHEN c.trace_valid THEN c.trace_id END
     LEFT JOIN trace_index t ON t.trace_id = CASE WHEN c.trace_valid THEN c.trace_id END
     ORDER BY c.row_id`,
  );
  await store.run(
    `CREATE OR REPLACE TABLE span_index_meta AS
     SELECT $1::INTEGER AS index_version, ${LOADED_RUN_STAMP_SQL},
            (SELECT count(*) FROM spans WHERE coalesce(trace_id, '') = '' OR coalesce(span_id, '') = '') AS spans_without_ids,
            (SELECT count(*) FROM span_keep) AS indexed_spans`,
    [SPAN_INDEX_VERSION],
  );
  for (const t of ['span_keep', 'span_links', 'span_walk']) await store.run(`DROP TABLE IF EXISTS ${t}`);
}
