/**
 * The options-independent half of the breakdown (catalog stage `index`), built once per loaded span
 * set and kept in the database: trace_index, span_index, top_index, event_index, client_index and
 * span_index_counts (their columns are declared in catalog/relations.ts). Top-most spans and their
 * children are placed by one integer self-join; a recursive walk runs only when some span is deeper
 * (or on a cycle). "Is any ancestor selected for phase i" is then a join of the selected spans'
 * ancestor lists with the selected spans, no recursion. Spans without a trace or span ID cannot take
 * part in a tree and are left out (counted in span_index_counts).
 */
import type { QueryRunner } from '../../store/duckStore';
import { unordered } from '../../store/insertOrder';
import { SqlParams } from '../sql/params';
import { exec, query } from '../sql/statement';
import { scanCacheColumns } from './attributeCache';
import { type AttributeReader, ProjectedAttributeLookups } from './attributeLookups';
import { buildSpanDrop, HAS_IDS_SQL } from './spanDrop';
import { buildClientIndex } from './clientIndex';
import type { JoinKey } from '../options';

/** Output tokens of a span row `s` of spans (GenAI semantic conventions, or the older llm.* name). */
function outputTokensSql(attrs: AttributeReader): string {
  return `TRY_CAST(coalesce(${attrs.value('gen_ai.usage.output_tokens')}, ${attrs.value('llm.output_tokens')}) AS DOUBLE)`;
}

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
 * The phase mask as a per-span SQL expression over a spans row `s`, computed in the index's own scan of
 * spans: reading the attributes (OTLP: JSON text) is the costly part of that scan, and the first
 * analysis then reads them once for the output tokens and the selectors (attributeLookups.ts).
 */
export type SpanPhaseMask = (attrs: AttributeReader, params: SqlParams) => string;

/** What the index's scan leaves in the temporary table span_links for the next steps (pipeline.ts). */
export interface SpanIndexScan {
  /** span_links has a phase_mask column (the mask given to buildSpanIndex). */
  phaseMask: boolean;
  /** The attribute keys whose cache columns span_links carries (attributeCache.ts cacheEntryColumn), in key-number order. */
  cachedKeys: string[];
}

/**
 * Builds the index tables. With `phaseMask`, span_links (TEMP: the indexed spans, with a phase_mask
 * column and the attribute-cache columns of the keys the mask looks up) is left for the next steps;
 * without it, span_links is dropped here.
 */
export async function buildSpanIndex(store: QueryRunner, phaseMask?: SpanPhaseMask, joinKey?: JoinKey): Promise<SpanIndexScan> {
  // Every table but client_index is keyed, not ordered: written with parallel inserts (insertOrder.ts).
  const scan = await unordered(store, () => buildSpanTables(store, phaseMask));
  await buildClientIndex(store, joinKey);
  await exec(
    store,
    'span_index_counts',
    `CREATE OR REPLACE TABLE span_index_counts AS
     SELECT (SELECT count(*) FROM spans) AS span_rows,
            (SELECT count(*) FROM spans WHERE coalesce(trace_id, '') = '' OR coalesce(span_id, '') = '') AS spans_without_ids,
            (SELECT count(*) FROM span_index) AS indexed_spans`,
  );
  for (const t of ['span_dup_hash', 'span_drop', ...(phaseMask ? [] : ['span_links'])]) await exec(store, `drop ${t}`, `DROP TABLE IF EXISTS ${t}`);
  return phaseMask ? scan : { phaseMask: false, cachedKeys: [] };
}

async function buildSpanTables(store: QueryRunner, phaseMask: SpanPhaseMask | undefined): Promise<SpanIndexScan> {
  const dropped = await buildSpanDrop(store);
  // The later copies of duplicated spans are left out; the filter is only written when there are any
  // (an anti-join against an empty table still costs a pass at 100k spans).
  const kept = dropped > 0 ? `AND s.rowid NOT IN (SELECT node_id FROM span_drop)` : '';
  await exec(
    store,
    'trace_index',
    `CREATE OR REPLACE TABLE trace_index AS
     SELECT min(s.rowid) AS trace_no, trace_id, ${validTraceIdSql('trace_id')} AS valid, count(*) AS span_count
     FROM spans s WHERE ${HAS_IDS_SQL} ${kept} GROUP BY trace_id`,
  );
  // Parent links resolved once by the string span IDs, within a trace by its integer trace_no (the
  // trace_id join with trace_index is cheap; a join keyed on both string IDs with the span figures as
  // payload cost twice as much at 100k). The figures every later step needs (times, output tokens) are
  // read in the same scan of spans, computed before the join so the attributes never travel
  // through it; the parent side is narrow. Each key is looked up once per span (ProjectedAttributeLookups).
  const params = new SqlParams();
  const attrs = new ProjectedAttributeLookups(params, 's');
  const tokens = outputTokensSql(attrs);
  // The keys the phase selectors look up are kept per span for later phase mappings (attributeCache.ts).
  const used = new Set<string>();
  const recording: AttributeReader = { value: (k) => (used.add(k), attrs.value(k)), has: (k) => (used.add(k), attrs.has(k)) };
  const maskSql = phaseMask ? phaseMask(recording, params) : undefined;
  const { keys: cachedKeys, select: cacheSql, carry: cacheCols } = scanCacheColumns(attrs, 'k', [...used]);
  await exec(
    store,
    'span_links',
    `CREATE OR REPLACE TEMP TABLE span_links AS
     WITH k AS (
       SELECT s.node_id, t.trace_no, s.span_id, nullif(s.parent_span_id, '') AS parent_span_id,
              s.start_ns, s.end_ns, s.duration_ms, ${tokens} AS output_tokens${maskSql !== undefined ? `, ${maskSql} AS phase_mask` : ''}${cacheSql}
       FROM ${attrs.from(`SELECT s.rowid AS node_id, s.trace_id, s.span_id, s.parent_span_id, s.start_ns, s.end_ns, s.duration_ms,
                s.name, s.service, s.attributes, s.otlp_attributes
         FROM spans s WHERE ${HAS_IDS_SQL} ${kept}`)} JOIN trace_index t USING (trace_id)
     ),
     p AS (
       SELECT s.rowid AS node_id, t.trace_no, s.span_id
       FROM spans s JOIN trace_index t USING (trace_id)
       WHERE ${HAS_IDS_SQL} ${kept}
     )
     SELECT k.node_id, k.trace_no, p.node_id AS parent_node, k.start_ns, k.end_ns, k.duration_ms, k.output_tokens${maskSql !== undefined ? ', k.phase_mask' : ''}${cacheCols}
     FROM k LEFT JOIN p ON p.trace_no = k.trace_no AND p.span_id = k.parent_span_id`,
    params.values,
  );
  // Top-most spans (depth 0) and children of a top-most span (depth 1) are placed by one integer
  // self-join (PLACED_SQL). Only the rest (deeper spans, spans on a parent cycle) need a walk: the
  // index is written without it and rebuilt with it only when some span is left unplaced, since the
  // recursive query costs ≈ 0.8 s at 100k even with nothing to walk (flat exports: a root and its children).
  await exec(store, 'span_index', `CREATE OR REPLACE TABLE span_index AS ${spanIndexSelectSql(false)}`);
  const [{ unplaced }] = await query<{ unplaced: number }>(store, 'unplaced spans', 'SELECT count(*) AS unplaced FROM span_index WHERE top_node IS NULL');
  if (unplaced > 0) await exec(store, 'span_index (walk)', `CREATE OR REPLACE TABLE span_index AS ${spanIndexSelectSql(true)}`);
  await exec(
    store,
    'top_index',
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
  // Events are keyed by string IDs: matched to any loaded copy of their span, then to the kept copy.
  await exec(
    store,
    'event_index',
    `CREATE OR REPLACE TABLE event_index AS
     SELECT DISTINCT i.node_id, i.top_node, e.name, e.time_ns
     FROM span_events e JOIN spans s ON s.trace_id = e.trace_id AND s.span_id = e.span_id
     ${dropped > 0 ? 'LEFT JOIN span_drop d ON d.node_id = s.rowid' : ''}
     JOIN span_index i ON i.node_id = ${dropped > 0 ? 'coalesce(d.keep_node, s.rowid)' : 's.rowid'}`,
  );
  return { phaseMask: maskSql !== undefined, cachedKeys };
}

/**
 * span_links with each span placed when its parent is top-most or it has no parent: top_node and depth
 * (NULL for a span that needs the walk).
 */
const PLACED_SQL = `SELECT l.*,
         CASE WHEN l.parent_node IS NULL THEN l.node_id WHEN p.parent_node IS NULL THEN l.parent_node END AS placed_top,
         CASE WHEN l.parent_node IS NULL THEN 0 WHEN p.parent_node IS NULL THEN 1 END AS placed_depth
       FROM span_links l LEFT JOIN span_links p ON p.node_id = l.parent_node`;

/**
 * The SELECT that writes span_index from span_links. With `walk`, the spans not placed directly get
 * their top_node, depth and ancestors from one set-based walk over integer pairs, down from the
 * placed spans they hang off. Span IDs are unique per trace, so apart from parent cycles it is a
 * forest; spans on a cycle are never reached (NULL top_node, depth, ancestors). The depth cap only
 * guards against pathological inputs.
 */
function spanIndexSelectSql(walk: boolean): string {
  // Where the walk found nothing (or did not run), a span that was not placed keeps NULLs.
  const w = walk ? { top: 'w.top_node', depth: 'w.depth', ancestors: 'w.ancestors' } : { top: 'NULL', depth: 'NULL', ancestors: 'NULL' };
  const columns = `node_id, trace_no, start_ns, end_ns, duration_ms, output_tokens,
            parent_node, parent_node IS NULL AS parent_missing,
            coalesce(placed_top, ${w.top}) AS top_node, coalesce(placed_depth, ${w.depth}) AS depth,
            CASE placed_depth WHEN 0 THEN []::BIGINT[] WHEN 1 THEN [parent_node] ELSE ${w.ancestors} END AS ancestors`;
  if (!walk) return `SELECT ${columns} FROM (${PLACED_SQL})`;
  return `WITH RECURSIVE placed AS MATERIALIZED (${PLACED_SQL}),
     deep AS (SELECT node_id, parent_node FROM placed WHERE placed_top IS NULL),
     walk(node_id, top_node, depth, ancestors) AS (
       SELECT node_id, placed_top, placed_depth, CASE WHEN placed_depth = 0 THEN []::BIGINT[] ELSE [parent_node] END
       FROM placed WHERE placed_top IS NOT NULL AND node_id IN (SELECT parent_node FROM deep)
       UNION ALL
       SELECT c.node_id, w.top_node, w.depth + 1, list_append(w.ancestors, w.node_id)
       FROM walk w JOIN deep c ON c.parent_node = w.node_id
       WHERE w.depth < 100000
     ),
     walked AS (SELECT w.* FROM walk w JOIN deep USING (node_id))
     SELECT ${columns} FROM placed LEFT JOIN walked w USING (node_id)`;
}
