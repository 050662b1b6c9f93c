/**
 * `request_dimensions`: one row per client request, in loaded order, with the value of every group
 * dimension (groups/dimensions.ts says where each comes from) and the request's matched root; and the
 * view `request_groups` that puts them beside request_breakdown. The server side is read once per
 * loaded run: the attributes of the spans under the matched roots, each span's attribute list typed
 * once for all keys (index/firstAttributes.ts), the shallowest span with a key giving its value.
 */
import type { QueryRunner } from '../../store/duckStore';
import { firstAttributeValuesSql } from '../index/firstAttributes';
import { SqlParams } from '../sql/params';
import { exec } from '../sql/statement';
import { SERVER_KEYS } from './dimensions';

/** The path of an absolute URL (`http://host:8080/v1/chat?x` → `/v1/chat`), NULL otherwise. */
function urlPathSql(url: string): string {
  return `nullif(regexp_extract(${url}, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*(/[^?#]*)', 1), '')`;
}

/** Builds request_dimensions from the loaded client rows and the index (catalog/groupRelations.ts). */
export async function buildRequestDimensions(store: QueryRunner): Promise<void> {
  // The matched root of each client row, in loaded order: request_join's rule (breakdown/requestFigures.ts),
  // restated here rather than read from request_figures, whose stamp follows the phase mapping (a
  // re-analysis with another mapping would rebuild this table for nothing). A test holds the two equal.
  await exec(
    store,
    'dim_roots',
    `CREATE OR REPLACE TEMP TABLE dim_roots AS
     SELECT ci.row_id, CASE WHEN ci.trace_valid AND NOT ci.client_dup AND r.root_candidates = 1 THEN r.root_node_id END AS root_node
     FROM client_index ci LEFT JOIN trace_roots r ON r.trace_no = ci.trace_no
     ORDER BY ci.row_id`,
  );
  const params = new SqlParams();
  const groups = Object.values(SERVER_KEYS);
  const keys: string[] = [...new Set<string>(groups.flat())];
  // Per root, each key's value on the shallowest span that has one (firstAttributes.ts), ranked by an
  // integer (depth, node) key; then per dimension the first of its keys that has a value.
  const first = (group: readonly string[]): string => `coalesce(${group.map((k) => `max(val) FILTER (WHERE k = ${keys.indexOf(k) + 1})`).join(', ')})`;
  await exec(
    store,
    'dim_server',
    `CREATE OR REPLACE TEMP TABLE dim_server AS
     SELECT top_node AS root_node, ${first(SERVER_KEYS.model)} AS model, ${first(SERVER_KEYS.route)} AS route,
            ${first(SERVER_KEYS.region)} AS region, ${first(SERVER_KEYS.priority)} AS priority,
            ${first(SERVER_KEYS.streaming)} AS streaming, TRY_CAST(${first(SERVER_KEYS.inputTokens)} AS DOUBLE) AS input_tokens
     FROM (${firstAttributeValuesSql(
       params,
       `SELECT i.top_node, i.depth::BIGINT * 4294967296 + i.node_id AS rank, s.attributes, s.otlp_attributes
        FROM span_index i JOIN spans s ON s.rowid = i.node_id
        WHERE i.top_node IN (SELECT root_node FROM dim_roots WHERE root_node IS NOT NULL)`,
       keys,
     )})
     GROUP BY top_node`,
    params.values,
  );
  const streaming = (flag: string): string => `CASE WHEN ${flag} THEN 'streaming' WHEN NOT ${flag} THEN 'non_streaming' END`;
  await exec(
    store,
    'request_dimensions',
    `CREATE OR REPLACE TABLE request_dimensions AS
     SELECT d.row_id, d.root_node AS dim_root_node_id,
            coalesce(nullif(c.route, ''), ${urlPathSql('c.url')}, sv.route, t.name) AS dim_route,
            coalesce(nullif(c.model_class, ''), sv.model) AS dim_model,
            coalesce(nullif(c.region, ''), sv.region) AS dim_region,
            coalesce(nullif(c.priority, ''), sv.priority) AS dim_priority,
            -- A client that says streaming wins; k6's false only means no TTFT Trend, so the server's flag comes first.
            coalesce(CASE WHEN c.is_streaming THEN 'streaming' END, ${streaming("lower(sv.streaming) IN ('true', '1')")},
                     CASE WHEN NOT c.is_streaming THEN 'non_streaming' END) AS dim_streaming,
            nullif(c.prompt_shape_id, '') AS dim_prompt_shape,
            coalesce(c.input_tokens::DOUBLE, sv.input_tokens) AS dim_input_tokens,
            coalesce(c.output_tokens::DOUBLE, t.output_tokens) AS dim_output_tokens,
            CASE WHEN c.http_status BETWEEN 100 AND 599 THEN (c.http_status // 100)::VARCHAR || 'xx' ELSE 'no_status' END AS dim_status_class
     FROM (SELECT route, url, model_class, region, priority, is_streaming, prompt_shape_id, input_tokens, output_tokens, http_status FROM client_requests) c
       POSITIONAL JOIN dim_roots d
       LEFT JOIN dim_server sv ON sv.root_node = d.root_node
       LEFT JOIN top_index t ON t.top_node = d.root_node
     ORDER BY d.row_id`,
  );
  await exec(store, 'drop dim_roots', 'DROP TABLE IF EXISTS dim_roots');
  await exec(store, 'drop dim_server', 'DROP TABLE IF EXISTS dim_server');
}

/** The view beside request_breakdown (its own step: it follows the phase mapping, request_dimensions does not). */
export async function buildRequestGroups(store: QueryRunner): Promise<void> {
  await exec(
    store,
    'request_groups',
    'CREATE OR REPLACE VIEW request_groups AS SELECT b.*, d.* EXCLUDE (row_id) FROM request_breakdown b POSITIONAL JOIN request_dimensions d',
  );
}
