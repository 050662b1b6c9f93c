/**
 * One freshness rule for everything the analysis keeps in the database. A derived relation's stamp is
 * a hash of ANALYSIS_VERSION, the relation's name, kind and declared columns, the values of exactly the
 * options its SQL reads (relations.ts), and the stamps of what it reads; the loaded tables' stamp
 * identifies the loaded run. A relation is rebuilt when the stamp stored for it in derived_meta
 * differs from the current one (or it is missing, or its kind or number of columns is not the declared
 * one: what an older build or a hand edit leaves behind), never otherwise. Cached figures (figures.ts)
 * are stamped the same way and stored under their stamp.
 *
 * Because declared columns are part of the stamp, a new metric column rebuilds what holds it without
 * a version bump; ANALYSIS_VERSION is for SQL that changes what a relation writes while its columns
 * stay the same.
 *
 * A phase-independent stamp (scope `phase-independent`) hashes only the phase-independent columns and
 * leaves the phase mapping out, throughout the upstream chain: what a figure reads of those columns is
 * the same under every mapping, so it is kept across them.
 */
import { createHash } from 'node:crypto';
import type { AnalysisOptions } from '../options';
import { columnsOf, isLoadedTable, relationDecl } from './columns';
import { FIGURES, type FigureName, type FigureOption } from './figures';
import { PHASE_OPTION } from './relations';

/**
 * Bump when the SQL of a derived relation or a cached figure changes what it computes while its
 * declared columns stay the same; every stored relation and figure is then rebuilt once.
 *
 * History:
 * - 1: the catalog. Replaces span_index_meta (whose index_version went 1 → 5 with the span index's
 *   shape), trace_roots_meta (root options + index build id), breakdown_meta (an options key, a
 *   newest-column probe and a build id) and the build ids of breakdown_figures.
 */
export const ANALYSIS_VERSION = 1;

export type StampScope = 'all' | 'phase-independent';

/** Options as they enter a stamp: keys sorted, undefined as null. */
function canonical(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function hash(parts: readonly unknown[]): string {
  return createHash('sha256').update(canonical(parts)).digest('hex').slice(0, 32);
}

/** The stamps of one analysis: the loaded run's stamp, these options and their phase columns. */
export class Stamps {
  private readonly memo = new Map<string, string>();

  constructor(
    /** Stamp of the loaded tables (derivedMeta.ts readLoadedStamp). */
    readonly loaded: string,
    private readonly options: AnalysisOptions,
    private readonly phaseColumns: readonly string[],
  ) {}

  /** The stamp of a derived relation, or of the loaded tables for a loaded table's name. */
  relation(name: string, scope: StampScope = 'all'): string {
    if (isLoadedTable(name)) return this.loaded;
    const key = `${scope}:${name}`;
    let stamp = this.memo.get(key);
    if (stamp === undefined) {
      const decl = relationDecl(name);
      const columns = columnsOf(name, this.phaseColumns)
        .filter((c) => scope === 'all' || c.phase !== true)
        .map((c) => `${c.name} ${c.type}`);
      stamp = hash([ANALYSIS_VERSION, 'relation', name, decl.kind, columns, this.optionValues(decl.options, scope), decl.reads.map((r) => this.relation(r, scope))]);
      this.memo.set(key, stamp);
    }
    return stamp;
  }

  /** The stamp of a cached figure; `detail` names what varies within it (e.g. the metric columns of a table). */
  figure(name: FigureName, detail: readonly string[] = []): string {
    const decl = FIGURES.find((f) => f.name === name);
    if (decl === undefined) throw new Error(`no cached figure named ${name} in the catalog`);
    const reads = decl.reads.map((r) => this.relation(r, decl.scope));
    return hash([ANALYSIS_VERSION, 'figure', name, detail, this.optionValues(decl.options, decl.scope), reads]);
  }

  private optionValues(options: readonly FigureOption[], scope: StampScope): Array<[string, unknown]> {
    return options.filter((o) => scope === 'all' || o !== PHASE_OPTION).map((o) => [o, this.options[o]]);
  }
}
