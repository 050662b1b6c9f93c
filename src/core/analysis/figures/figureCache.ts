/**
 * Report figures that depend only on the breakdown tables (whole-run metric tables, join summary,
 * outcome ledger), kept in the database beside them. They do not change when a re-analysis only
 * changes windows, gates or slow-trace ordering, so a re-analysis reads them back (one small query)
 * instead of recomputing about fifteen quantile_cont sorts over request_breakdown (DESIGN §6:
 * re-analysis ≤ 0.5 s at 100k requests).
 *
 * Validity: every row carries the build_id of the breakdown it was computed from (a fresh uuid per
 * buildBreakdown, stored in breakdown_meta), so a row is only read back for the very tables it
 * describes; buildBreakdown deletes the rows of other builds. Exception: the phase-independent figures
 * (getBase, names `base:…`) carry the base stamp instead (breakdown.ts baseStamp: options other than the
 * phases, and the span index build), so a re-analysis with another phase mapping reads them back.
 * Values round-trip through JSON: finite doubles, null, strings and booleans come back identical (the
 * report never carries NaN, Infinity or bigint).
 */
import type { QueryRunner } from '../../store/duckStore';

export const FIGURES_TABLE = 'breakdown_figures';

/** Creates the (empty) table; buildBreakdown calls it after dropping the old one. */
export async function resetFigureCache(store: QueryRunner): Promise<void> {
  await store.run(`CREATE OR REPLACE TABLE ${FIGURES_TABLE} (build_id VARCHAR, name VARCHAR, json VARCHAR)`);
}

/**
 * Keeps only the figures stored under `baseId` (the phase-independent ones of breakdowns with the
 * same non-phase options and span index build: breakdown.ts baseStamp), creating the table when
 * absent. Figures of any other build are deleted.
 */
export async function keepBaseFigures(store: QueryRunner, baseId: string): Promise<void> {
  await store.run(`CREATE TABLE IF NOT EXISTS ${FIGURES_TABLE} (build_id VARCHAR, name VARCHAR, json VARCHAR)`);
  await store.run(`DELETE FROM ${FIGURES_TABLE} WHERE build_id IS DISTINCT FROM $1`, [baseId]);
}

export async function dropFigureCache(store: QueryRunner): Promise<void> {
  await store.run(`DROP TABLE IF EXISTS ${FIGURES_TABLE}`);
}

/**
 * A read-through cache for one analysis: `get` returns the stored figure or computes it; `flush`
 * writes what was computed in one INSERT (one write to a --db file instead of one per figure).
 */
export class FigureCache {
  private readonly pending: Array<{ id: string; name: string; json: string }> = [];

  private constructor(
    private readonly store: QueryRunner,
    private readonly buildId: string,
    private readonly stored: Map<string, string>,
    /** Stamp of the phase-independent figures (getBase); without it they are kept per build. */
    private readonly baseId: string | undefined,
  ) {}

  /**
   * Reads every figure stored for this breakdown (an absent table means none), and with `baseId` the
   * phase-independent figures stored under it (their names start with `base:`).
   */
  static async open(store: QueryRunner, buildId: string, baseId?: string): Promise<FigureCache> {
    const [{ n }] = await store.all<{ n: number }>(
      `SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = '${FIGURES_TABLE}' AND NOT temporary`,
    );
    const stored = new Map<string, string>();
    if (n > 0) {
      const rows = await store.all<{ name: string; json: string }>(
        `SELECT name, json FROM ${FIGURES_TABLE} WHERE build_id = $1 OR (build_id = $2 AND starts_with(name, 'base:'))`,
        [buildId, baseId ?? null],
      );
      for (const r of rows) stored.set(r.name, r.json);
    }
    return new FigureCache(store, buildId, stored, baseId);
  }

  async get<T>(name: string, compute: () => Promise<T>): Promise<T> {
    return this.read(this.buildId, name, compute);
  }

  /**
   * A figure that does not depend on the phase mapping (a re-analysis with another mapping reuses
   * it): stored under the base stamp as `base:<name>`, or per build when the cache has no base stamp.
   */
  async getBase<T>(name: string, compute: () => Promise<T>): Promise<T> {
    return this.baseId === undefined ? this.read(this.buildId, name, compute) : this.read(this.baseId, `base:${name}`, compute);
  }

  /** Whether a figure is stored (`base`: a getBase name). */
  has(name: string, base: boolean): boolean {
    return this.stored.has(base && this.baseId !== undefined ? `base:${name}` : name);
  }

  private async read<T>(id: string, name: string, compute: () => Promise<T>): Promise<T> {
    const json = this.stored.get(name);
    if (json !== undefined) return JSON.parse(json) as T;
    const value = await compute();
    const text = JSON.stringify(value);
    this.stored.set(name, text);
    this.pending.push({ id, name, json: text });
    return value;
  }

  /** Writes the figures computed since open (a no-op on a fully cached re-analysis). */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const params: string[] = [];
    const rows = this.pending.map((p) => {
      params.push(p.id, p.name, p.json);
      const i = params.length;
      return `($${i - 2}, $${i - 1}, $${i})`;
    });
    await this.store.run(`CREATE TABLE IF NOT EXISTS ${FIGURES_TABLE} (build_id VARCHAR, name VARCHAR, json VARCHAR)`);
    await this.store.run(`INSERT INTO ${FIGURES_TABLE} VALUES ${rows.join(', ')}`, params);
    this.pending.length = 0;
  }
}
