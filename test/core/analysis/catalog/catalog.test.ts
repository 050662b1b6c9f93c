import * as assert from 'assert';
import * as path from 'path';
import { columnsOf, RESERVED_COLUMNS, schemaColumns } from '../../../../src/core/analysis/catalog/columns';
import { METRIC_DECLS, metricColumns, POPULATION_RELATION, reportDefinitions, REPORT_DEFINITIONS } from '../../../../src/core/analysis/catalog/metrics';
import { LOADED_TABLES, RELATIONS } from '../../../../src/core/analysis/catalog/relations';
import { ensureBreakdown, STEPS } from '../../../../src/core/analysis/breakdown/pipeline';
import { phaseColumns } from '../../../../src/core/analysis/breakdown/phaseSelect';
import { DEFAULT_ANALYSIS_OPTIONS, DEFAULT_PHASES, type AnalysisOptions } from '../../../../src/core/analysis/options';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore, type QueryRunner } from '../../../../src/core/store/duckStore';
import { MARKER_TABLE } from '../../../../src/core/store/schema';
import { repoRoot } from '../../../helpers/paths';
import { createBreakdownTables, PHASE_COLUMNS } from '../../../fixtures/analysis/tables';

/**
 * The catalog (catalog/relations.ts, metrics.ts) against what the SQL really builds: every stored
 * relation has exactly the declared columns and types, the build steps write each relation once in
 * catalog order, and the loaded tables' columns read from store/schema.ts are DuckDB's.
 */
const samples = path.join(repoRoot, 'samples');

async function liveColumns(store: QueryRunner, name: string): Promise<string[]> {
  const rows = await store.all<{ c: string }>(
    `SELECT column_name || ' ' || data_type AS c FROM duckdb_columns()
     WHERE table_name = $1 AND schema_name = 'main' AND database_name = current_database() ORDER BY column_index`,
    [name],
  );
  return rows.map((r) => r.c);
}

function declared(name: string, phases: readonly string[]): string[] {
  return columnsOf(name, phases).map((c) => `${c.name} ${c.type}`);
}

async function withSamples<T>(fn: (store: DuckStore) => Promise<T>): Promise<T> {
  const store = new DuckStore();
  try {
    await loadFiles(store, [path.join(samples, 'k6.ndjson'), path.join(samples, 'spans.otlp.jsonl')]);
    return await fn(store);
  } finally {
    await store.close();
  }
}

describe('analysis catalog', function () {
  this.timeout(120_000);

  it('reads the loaded tables from store/schema.ts as DuckDB creates them', async () => {
    const store = new DuckStore();
    try {
      for (const table of LOADED_TABLES) {
        const live = (await liveColumns(store, table)).map((c) => c.split(' ')[0]);
        assert.deepStrictEqual(schemaColumns(table).map((c) => c.name), live, table);
      }
    } finally {
      await store.close();
    }
  });

  for (const [label, phases] of [
    ['3 phases', DEFAULT_PHASES],
    ['0 phases', []],
  ] as const) {
    it(`declares every relation the pipeline builds, column by column (${label})`, () =>
      withSamples(async (store) => {
        const options: AnalysisOptions = { ...DEFAULT_ANALYSIS_OPTIONS, phases };
        await ensureBreakdown(store, options);
        const cols = phaseColumns(phases).map((p) => p.column);
        for (const r of RELATIONS) assert.deepStrictEqual(await liveColumns(store, r.name), declared(r.name, cols), r.name);
        const kinds = await store.all<{ name: string; kind: string }>(
          `SELECT table_name AS name, 'table' AS kind FROM duckdb_tables() WHERE NOT temporary
           UNION ALL SELECT view_name, 'view' FROM duckdb_views() WHERE NOT internal AND NOT temporary`,
        );
        for (const r of RELATIONS) assert.strictEqual(kinds.find((k) => k.name === r.name)?.kind, r.kind, r.name);
        // Nothing else is left behind: the loaded tables, the catalog's relations, derived_meta and the store's marker.
        const expected = [...LOADED_TABLES, ...RELATIONS.map((r) => r.name), 'derived_meta', MARKER_TABLE].sort();
        assert.deepStrictEqual(kinds.map((k) => k.name).sort(), expected);
      }));
  }

  it('builds the test fixtures from the same declarations (types included)', async () => {
    const store = new DuckStore();
    try {
      await createBreakdownTables(store);
      for (const name of ['request_breakdown', 'root_breakdown', 'trace_roots']) {
        // The real relations' types (checked above) are the declared ones; the fixture's must be too.
        assert.deepStrictEqual(await liveColumns(store, name), declared(name, PHASE_COLUMNS), name);
      }
    } finally {
      await store.close();
    }
  });

  it('builds each relation in exactly one step, in catalog order', () => {
    const written = STEPS.flatMap((s) => s.outputs);
    assert.deepStrictEqual(written, RELATIONS.map((r) => r.name));
  });

  it('reads every relation a relation or step depends on before it is built', () => {
    const order = RELATIONS.map((r) => r.name);
    for (const r of RELATIONS) {
      for (const read of r.reads) {
        if ((LOADED_TABLES as readonly string[]).includes(read)) continue;
        assert.ok(order.indexOf(read) >= 0 && order.indexOf(read) < order.indexOf(r.name), `${r.name} reads ${read}, declared after it`);
      }
    }
  });

  it('lists each metric in a relation of each of its populations', () => {
    for (const m of METRIC_DECLS) {
      for (const p of m.populations) {
        const names = columnsOf(POPULATION_RELATION[p], PHASE_COLUMNS).map((c) => c.name);
        assert.ok(names.includes(m.column), `${m.column} (${p}) is not a column of ${POPULATION_RELATION[p]}`);
      }
    }
    // Each table lists its population's metrics in catalog order, the phases right after the envelope
    // (matched) or the root (server), none in the client table.
    const of = (p: 'matched' | 'client' | 'server'): string[] => METRIC_DECLS.filter((m) => m.populations.includes(p)).map((m) => m.column);
    const matched = metricColumns('matched', PHASE_COLUMNS);
    assert.deepStrictEqual(matched.filter((c) => !PHASE_COLUMNS.includes(c)), of('matched'));
    assert.deepStrictEqual(matched.slice(matched.indexOf('network_envelope_ms') + 1, matched.indexOf('network_envelope_ms') + 4), PHASE_COLUMNS);
    assert.deepStrictEqual(metricColumns('client', PHASE_COLUMNS), of('client'));
    const server = metricColumns('server', PHASE_COLUMNS);
    assert.deepStrictEqual(server.filter((c) => !PHASE_COLUMNS.includes(c)), of('server'));
    assert.deepStrictEqual(server.slice(server.indexOf('server_root_ms') + 1, server.indexOf('server_root_ms') + 4), PHASE_COLUMNS);
    assert.deepStrictEqual(Object.keys(reportDefinitions(DEFAULT_ANALYSIS_OPTIONS)), [...REPORT_DEFINITIONS]);
  });

  it('keeps phase columns off every other column of the breakdown views', () => {
    for (const name of ['network_envelope', 'offset', 'server_itl', 'scheduled_offset', 'receiving']) {
      assert.ok(RESERVED_COLUMNS.has(`${name}_ms`), name);
      assert.throws(() => phaseColumns([{ name, anyOf: [] }]), new RegExp(`phase name "${name}" collides with the metric ${name}_ms`));
    }
    assert.deepStrictEqual(
      phaseColumns(DEFAULT_PHASES).map((p) => p.column),
      PHASE_COLUMNS,
    );
  });

  it('marks as phase-dependent every column that changes with the phase mapping', () =>
    withSamples(async (store) => {
      // Two mappings that select different spans; every column declared phase-independent must be equal.
      const other: AnalysisOptions = { ...DEFAULT_ANALYSIS_OPTIONS, phases: [{ name: 'gateway', anyOf: [{ names: ['auth.check'] }] }] };
      const snapshot = async (options: AnalysisOptions): Promise<Map<string, unknown[]>> => {
        await ensureBreakdown(store, options);
        const out = new Map<string, unknown[]>();
        for (const name of ['request_figures', 'root_figures', 'root_phase_figures', 'root_tree']) {
          const cols = columnsOf(name, phaseColumns(options.phases).map((p) => p.column)).filter((c) => c.phase !== true).map((c) => c.name);
          const order = name === 'request_figures' ? 'row_id' : name === 'root_tree' ? 'node_id' : 'root_node_id';
          out.set(name, await store.all(`SELECT ${cols.join(', ')} FROM ${name} ORDER BY ${order}`));
        }
        // What holds only phase-dependent columns has nothing to compare but its row count.
        out.set('request_phase_figures', await store.all('SELECT count(*) AS n FROM request_phase_figures'));
        out.set('unattributed', await store.all('SELECT sum(unattributed_server_ms) AS s FROM request_phase_figures'));
        return out;
      };
      const a = await snapshot(DEFAULT_ANALYSIS_OPTIONS);
      const b = await snapshot(other);
      // …and a phase-dependent one does change (else the comparison would prove nothing).
      assert.notDeepStrictEqual(b.get('unattributed'), a.get('unattributed'));
      a.delete('unattributed');
      for (const [name, rows] of a) {
        assert.ok(rows.length > 0, name);
        assert.deepStrictEqual(b.get(name), rows, name);
      }
    }));
});
