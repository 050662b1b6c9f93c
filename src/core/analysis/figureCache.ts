/**
 * Report figures that depend only on the breakdown tables (whole-run metric tables, join summary,
 * outcome ledger), kept in the database beside them. They do not change when a re-analysis only
 * changes windows, gates or slow-trace ordering, so a re-analysis reads them back (one small query)
 * instead of recomputing about fifteen quantile_cont sorts over request_breakdown (DESIGN §6:
 * re-analysis ≤ 0.5 s at 100k requests).
 *
 * Validity: every row carries the build_id of the breakdown it was computed from (a fresh uuid per
 * buildBreakdown, stored in breakdown_meta), so a row is only read back for the very tables it
 * describes; buildBreakdown also empties the table. Values round-trip through JSON: finite doubles, null, strings and
 * booleans come back identical (the report never carries NaN, Infinity or bigint).
 */
import type { QueryRunner } from '../store/duckStore';

export const FIGURES_TABLE = 'breakdown_figures';

/** Creates the (empty) table; buildBreakdown calls it after dropping the old one. */
export async function resetFigureCache(store: QueryRunner): Promise<void> {
  await store.run(`CREATE OR REPLACE TABLE ${FIGURES_TABLE} (build_id VARCHAR, name VARCHAR, json VARCHAR)`);
}

export async function dropFigureCache(store: QueryRunner): Promise<void> {
  await store.run(`DROP TABLE IF EXISTS ${FIGURES_TABLE}`);
}

/**
 * A read-through cache for one analysis: `get` returns the stored figure or computes it; `flush`
 * writes what was computed in one INSERT (one write to a --db file instead of one per figure).
 */
export class FigureCache {
  private readonly pending: Array<{ name: string; json: string }> = [];

  private constructor(
    private readonly store: QueryRunner,
    private readonly buildId: string,
    private readonly stored: Map<string, string>,
  ) {}

  /** Reads every figure stored for this breakdown (an absent table means none). */
  static async open(store: QueryRunner, buildId: string): Promise<FigureCache> {
    const [{ n }] = await store.all<{ n: number }>(
      `SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = '${FIGURES_TABLE}' AND NOT temporary`,
    );
    const stored = new Map<string, string>();
    if (n > 0) {
      const rows = await store.all<{ name: string; json: string }>(`SELECT name, json FROM ${FIGURES_TABLE} WHERE build_id = $1`, [buildId]);
      for (const r of rows) stored.set(r.name, r.json);
    }
    return new FigureCache(store, buildId, stored);
  }

  async get<T>(name: string, compute: () => Promise<T>): Promise<T> {
    const json = this.stored.get(name);
    if (json !== undefined) return JSON.parse(json) as T;
    const value = await compute();
    const text = JSON.stringify(value);
    this.stored.set(name, text);
    this.pending.push({ name, json: text });
    return value;
  }

  /** Writes the figures computed since open (a no-op on a fully cached re-analysis). */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const params: string[] = [];
    const rows = this.pending.map((p) => {
      params.push(this.buildId, p.name, p.json);
      const i = params.length;
      return `($${i - 2}, $${i - 1}, $${i})`;
    });
    await this.store.run(`CREATE TABLE IF NOT EXISTS ${FIGURES_TABLE} (build_id VARCHAR, name VARCHAR, json VARCHAR)`);
    await this.store.run(`INSERT INTO ${FIGURES_TABLE} VALUES ${rows.join(', ')}`, params);
    this.pending.length = 0;
  }
}
