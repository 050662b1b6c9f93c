/**
 * Report figures kept in the database beside the breakdown (the catalog's cached figures,
 * catalog/figures.ts): whole-run metric tables, join summary, ledger, slow traces, warnings. A
 * re-analysis that changes only windows, gates or slow-trace count reads them back in one small
 * query instead of recomputing about fifteen quantile_cont sorts over request_breakdown (docs/performance.md:
 * re-analysis ≤ 0.5 s at 100k requests).
 *
 * Each row carries the figure's stamp (catalog/stamps.ts), so it is read back only for what it was
 * computed from; the rows a new analysis does not use are deleted when it writes its own. Values
 * round-trip through JSON: finite doubles, null, strings and booleans come back identical (the report
 * never carries NaN, Infinity or bigint).
 */
import type { QueryRunner } from '../../store/duckStore';
import type { FigureName } from '../catalog/figures';
import type { Stamps } from '../catalog/stamps';
import { SqlParams } from '../sql/params';
import { exec, query } from '../sql/statement';

export const FIGURES_TABLE = 'breakdown_figures';

/** Creates the table empty (breakdown/pipeline.ts, when it is absent or not the declared one). */
export async function resetFigureCache(store: QueryRunner): Promise<void> {
  await exec(store, FIGURES_TABLE, `CREATE OR REPLACE TABLE ${FIGURES_TABLE} (stamp VARCHAR, name VARCHAR, json VARCHAR)`);
}

/**
 * A read-through cache for one analysis: `get` returns the stored figure or computes it; `flush`
 * writes what was computed in one INSERT (one write to a --db file instead of one per figure).
 */
export class FigureCache {
  private readonly pending: Array<{ stamp: string; name: string; json: string }> = [];
  /** Stamps read or computed by this analysis: every other row is stale once it writes. */
  private readonly used = new Set<string>();

  private constructor(
    private readonly store: QueryRunner,
    private readonly stamps: Stamps,
    /** name → stamp → JSON, as stored. */
    private readonly stored: Map<string, Map<string, string>>,
  ) {}

  /** Reads the stored figures (the table is current: breakdown/pipeline.ts made it). */
  static async open(store: QueryRunner, stamps: Stamps): Promise<FigureCache> {
    const rows = await query<{ stamp: string; name: string; json: string }>(store, 'stored figures', `SELECT stamp, name, json FROM ${FIGURES_TABLE}`);
    const stored = new Map<string, Map<string, string>>();
    for (const r of rows) {
      let byStamp = stored.get(r.name);
      if (byStamp === undefined) stored.set(r.name, (byStamp = new Map()));
      byStamp.set(r.stamp, r.json);
    }
    return new FigureCache(store, stamps, stored);
  }

  /** The figure `name` for this analysis's stamps; `detail` names what varies within it (stamps.ts figure). */
  async get<T>(name: FigureName, compute: () => Promise<T>, detail: readonly string[] = []): Promise<T> {
    const stamp = this.stamps.figure(name, detail);
    this.used.add(stamp);
    const json = this.stored.get(name)?.get(stamp);
    if (json !== undefined) return JSON.parse(json) as T;
    const value = await compute();
    const text = JSON.stringify(value);
    let byStamp = this.stored.get(name);
    if (byStamp === undefined) this.stored.set(name, (byStamp = new Map()));
    byStamp.set(stamp, text);
    this.pending.push({ stamp, name, json: text });
    return value;
  }

  /** Whether the figure is stored for this analysis's stamps. */
  has(name: FigureName, detail: readonly string[] = []): boolean {
    return this.stored.get(name)?.has(this.stamps.figure(name, detail)) === true;
  }

  /** Writes the figures computed since open and drops the rows no longer current (a no-op on a fully cached re-analysis). */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const used = new SqlParams();
    await exec(this.store, 'forget stale figures', `DELETE FROM ${FIGURES_TABLE} WHERE NOT ${used.inList('stamp', [...this.used])}`, used.values);
    const params = new SqlParams();
    const rows = this.pending.map((p) => `(${params.bind(p.stamp)}, ${params.bind(p.name)}, ${params.bind(p.json)})`);
    await exec(this.store, 'store figures', `INSERT INTO ${FIGURES_TABLE} VALUES ${rows.join(', ')}`, params.values);
    this.pending.length = 0;
  }
}

/** The figure from `cache` when there is one, else computed (tests build reports without a cache). */
export function cachedFigure<T>(cache: FigureCache | undefined, name: FigureName, compute: () => Promise<T>, detail: readonly string[] = []): Promise<T> {
  return cache ? cache.get(name, compute, detail) : compute();
}

/** A figure held per group (keyId → value), stored as its list of entries. */
export async function cachedMap<V>(cache: FigureCache | undefined, name: FigureName, compute: () => Promise<Map<string, V>>, detail: readonly string[] = []): Promise<Map<string, V>> {
  if (!cache) return compute();
  return new Map(await cache.get<Array<[string, V]>>(name, async () => [...(await compute()).entries()], detail));
}
