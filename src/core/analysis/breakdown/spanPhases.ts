import type { QueryRunner } from '../../store/duckStore';
import { CachedAttributeReader, ensureCachedKeys } from '../index/attributeCache';
import type { AnalysisOptions, PhaseDefinition } from '../options';
import { SqlParams } from '../sql/params';
import { exec, query } from '../sql/statement';
import { phaseMaskSql } from './phaseSelect';

/**
 * `span_phase`: the phase bits of every indexed span that some phase selector picks (spans no
 * selector picks are left out: most are, and every later step only looks at selected spans). Narrow
 * (node_id, phase_mask): the tree position and times are read from span_index where needed (writing
 * them a second time into this persisted table cost more than the join that reads them).
 *
 * The selectors are the one per-span evaluation that depends on the options; it runs in one pass over
 * spans (names and services live there, not in the narrow span_index), and only the few selected rows
 * are joined to span_index by rowid, which also drops duplicate copies and spans without IDs. Attribute
 * clauses read the per-key attribute cache (attributeCache.ts: the same has()/value() results, kept
 * for the indexed spans); a key not cached yet is looked up in spans once and added to it, so a phase
 * mapping over known keys never re-reads the OTLP attribute text (bench 100k: ≈ 0.8 s).
 */
export async function buildSpanPhases(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const selected = await selectedSpansSql(store, options.phases);
  // The statement as the golden files have it (test/core/analysis/breakdown/breakdownSql.test.ts).
  await exec(store, 'span_phase', `CREATE OR REPLACE TABLE span_phase AS
     ${selected.sql}`, selected.params);
}

/**
 * The SELECT of span_phase's rows for these phases (node_id, phase_mask <> 0), with its bound values:
 * what buildSpanPhases writes, and what the contract form's phase preview counts (phasePreview.ts)
 * without writing it. Needs a current span index and attribute cache; a selector's attribute key not
 * cached yet is added to the cache first.
 */
export async function selectedSpansSql(store: QueryRunner, phases: readonly PhaseDefinition[]): Promise<{ sql: string; params: SqlParams['values'] }> {
  const params = new SqlParams();
  const attrs = new CachedAttributeReader('s');
  const mask = phaseMaskSql(phases, params, attrs);
  const keyNumbers = await ensureCachedKeys(store, attrs.registeredKeys());
  // When every loaded span is indexed (no duplicate copies, none without IDs: the usual case), the
  // join with span_index keeps every row, and is left out (bench 100k: ≈ 0.2 s for ≈ 600k selected spans).
  const [{ all_indexed }] = await query<{ all_indexed: boolean }>(
    store,
    'all spans indexed',
    'SELECT coalesce(bool_and(indexed_spans = span_rows), false) AS all_indexed FROM span_index_counts',
  );
  const selected = `SELECT * FROM (
         SELECT s.node_id, ${mask} AS phase_mask
         FROM ${attrs.from('SELECT s.rowid AS node_id, s.name, s.service FROM spans s', keyNumbers)}
       ) WHERE phase_mask <> 0`;
  return { sql: `SELECT m.node_id, m.phase_mask FROM (${selected}) m ${all_indexed ? '' : 'JOIN span_index i USING (node_id)'}`, params: params.values };
}

/**
 * span_phase from the span_links that buildSpanIndex left with its phase_mask column (the same
 * expression over the same rows: span_links holds exactly the indexed spans), then drops span_links.
 */
export async function buildSpanPhasesFromLinks(store: QueryRunner): Promise<void> {
  await exec(store, 'span_phase', 'CREATE OR REPLACE TABLE span_phase AS SELECT node_id, phase_mask FROM span_links WHERE phase_mask <> 0');
  await exec(store, 'drop span_links', 'DROP TABLE IF EXISTS span_links');
}

