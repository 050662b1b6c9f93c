/**
 * Builds what the analysis derives from the loaded run, step by step in catalog order, each step only
 * when one of its relations is stale (catalog/stamps.ts): the index (options-independent), the
 * attribute cache, then the breakdown (phases, roots, per-trace and per-request figures). A re-analysis
 * that changes only windows, gates or the slow-trace count rebuilds nothing; another phase mapping
 * rebuilds the phase steps (span_phase, root_phase_figures, request_phase_figures and the views over
 * them) and keeps the index, the attribute cache, the trace roots and the phase-independent figures
 * of roots and requests (root_figures, request_figures).
 */
import { columnsOf } from '../catalog/columns';
import { forgetStamps, markLoadedTablesChanged, META_TABLE, readStoredState, recordStamps, type StoredRelation, type StoredState } from '../catalog/derivedMeta';
import { LOADED_TABLES, RELATIONS, type ColumnDecl } from '../catalog/relations';
import { Stamps } from '../catalog/stamps';
import { resetAttributeCache, writeCachedKeys } from '../index/attributeCache';
import { buildSpanIndex, type SpanIndexScan, type SpanPhaseMask } from '../index/spanIndex';
import type { AnalysisOptions } from '../options';
import type { QueryRunner } from '../../store/duckStore';
import { unordered } from '../../store/insertOrder';
import { exec } from '../sql/statement';
import { enterStage } from '../../store/stage';
import { resetFigureCache } from '../figures/figureCache';
import { recordJoinKey } from '../joinKeyRecord';
import { phaseColumns, phaseMaskSql, type PhaseColumn } from './phaseSelect';
import { buildRootTree } from './phaseTimes';
import { buildRequestBreakdownView, buildRequestFigures, buildRequestPhaseFigures } from './requestFigures';
import { buildRootBreakdownView, buildRootFigures, buildRootPhaseFigures } from './rootFigures';
import { buildSpanPhases, buildSpanPhasesFromLinks } from './spanPhases';
import { buildTraceRoots } from './rootSelect';
import { buildRequestDimensions, buildRequestGroups } from '../groups/requestDimensions';

/** What ensureBreakdown leaves for the figures. */
export interface BreakdownInfo {
  /** One `<phase>_ms` column per options.phases entry, in order, e.g. ['gateway_ms', 'gpu_queue_ms', 'generation_ms']. */
  phaseColumns: string[];
  /** The stamps of this analysis: the figure cache stores figures under them. */
  stamps: Stamps;
}

interface StepContext {
  store: QueryRunner;
  options: AnalysisOptions;
  phases: readonly PhaseColumn[];
  /** Whether the span_phase step will run (the index step then computes the phase mask in its scan). */
  phasesStale: boolean;
  /** What the index step's scan left in span_links, when it ran. */
  scan?: SpanIndexScan;
}

interface Step {
  /** The relations the step writes, in catalog order. */
  outputs: readonly string[];
  /** The stage its time is charged to (store/stage.ts): several steps share one. */
  stage: 'index' | 'phases' | 'roots' | 'per-request table' | 'group dimensions';
  build(ctx: StepContext): Promise<void>;
}

/** The build steps in catalog order (a test checks that they write every catalog relation once, in that order). */
export const STEPS: readonly Step[] = [
  {
    outputs: ['trace_index', 'span_index', 'top_index', 'event_index', 'client_index', 'span_index_counts'],
    stage: 'index',
    // When the phases are rebuilt too (always, on a first analysis), the index's one scan of the span
    // attributes also computes the phase mask and the attribute-cache columns of the selectors' keys.
    build: async (ctx) => {
      const mask: SpanPhaseMask | undefined = ctx.phasesStale ? (attrs, params) => phaseMaskSql(ctx.options.phases, params, attrs) : undefined;
      ctx.scan = await buildSpanIndex(ctx.store, mask, ctx.options.joinKey);
    },
  },
  {
    outputs: ['span_attr_keys', 'span_attr_cache'],
    stage: 'index',
    // Keyed by node and key number, never read in row order: written unordered (store/insertOrder.ts), as below.
    build: (ctx) =>
      unordered(ctx.store, async () => {
        await resetAttributeCache(ctx.store);
        if (ctx.scan !== undefined) await writeCachedKeys(ctx.store, 'span_links', ctx.scan.cachedKeys);
      }),
  },
  {
    outputs: ['span_phase'],
    stage: 'phases',
    build: (ctx) => unordered(ctx.store, () => (ctx.scan?.phaseMask === true ? buildSpanPhasesFromLinks(ctx.store) : buildSpanPhases(ctx.store, ctx.options))),
  },
  { outputs: ['trace_roots'], stage: 'roots', build: (ctx) => unordered(ctx.store, () => buildTraceRoots(ctx.store, ctx.options)) },
  { outputs: ['root_tree'], stage: 'roots', build: (ctx) => unordered(ctx.store, () => buildRootTree(ctx.store)) },
  // Both written in root order: root_breakdown joins them, and a table kept from an earlier analysis
  // must meet a rebuilt one in the order a fresh analysis gives (the server table's means are summed
  // in row order, and would differ from a fresh analysis's in the last digits).
  { outputs: ['root_figures'], stage: 'roots', build: (ctx) => buildRootFigures(ctx.store, ctx.options) },
  { outputs: ['root_phase_figures'], stage: 'roots', build: (ctx) => buildRootPhaseFigures(ctx.store, ctx.phases, ctx.options) },
  { outputs: ['root_breakdown'], stage: 'roots', build: (ctx) => buildRootBreakdownView(ctx.store, ctx.phases) },
  // request_figures and request_phase_figures are read beside client_requests by position: written in loaded order.
  { outputs: ['request_figures'], stage: 'per-request table', build: (ctx) => buildRequestFigures(ctx.store) },
  { outputs: ['request_phase_figures'], stage: 'per-request table', build: (ctx) => buildRequestPhaseFigures(ctx.store, ctx.phases) },
  { outputs: ['request_breakdown'], stage: 'per-request table', build: (ctx) => buildRequestBreakdownView(ctx.store, ctx.options.joinKey) },
  { outputs: ['breakdown_figures'], stage: 'per-request table', build: (ctx) => resetFigureCache(ctx.store) },
  // request_dimensions is read beside client_requests by position: written in loaded order.
  { outputs: ['request_dimensions'], stage: 'group dimensions', build: (ctx) => buildRequestDimensions(ctx.store) },
  { outputs: ['request_groups'], stage: 'group dimensions', build: (ctx) => buildRequestGroups(ctx.store) },
];

/**
 * Whether a stored relation can be the declared one: its kind and its number of columns (the stamp
 * names the columns themselves; a relation that lost or gained one, as an older build or a hand edit
 * leaves it, is rebuilt).
 */
function hasDeclaredShape(name: string, stored: ReadonlyMap<string, StoredRelation>, phases: readonly string[]): boolean {
  const relation = stored.get(name);
  const decl = RELATIONS.find((r) => r.name === name);
  if (relation === undefined || decl === undefined || relation.kind !== decl.kind) return false;
  // A view's loaded columns are the live table's (a database written before a column existed has fewer).
  const live = (t: string): ColumnDecl[] => Array.from({ length: stored.get(t)?.columnCount ?? 0 }, (_, i) => ({ name: `${t}_${i}`, type: '', meaning: '' }));
  return columnsOf(name, phases, live).length === relation.columnCount;
}

/** What ensureBreakdown would rebuild, and the stamps it would record. */
async function planBreakdown(store: QueryRunner, options: AnalysisOptions): Promise<{ phases: PhaseColumn[]; columns: string[]; state: StoredState; stamps: Stamps; todo: Step[] }> {
  const phases = phaseColumns(options.phases);
  const columns = phases.map((p) => p.column);
  const state = await readStoredState(store, LOADED_TABLES);
  const stamps = new Stamps(state.loaded, options, columns);
  const stale = (name: string): boolean => state.stamps.get(name) !== stamps.relation(name) || !hasDeclaredShape(name, state.relations, columns);
  return { phases, columns, state, stamps, todo: STEPS.filter((step) => step.outputs.some(stale)) };
}

/**
 * Whether every derived relation is current for these options, read without writing (for a database
 * opened read-only: `phasewise sql` and `export` query it only when nothing needs rebuilding).
 */
export async function breakdownIsCurrent(store: QueryRunner, options: AnalysisOptions): Promise<boolean> {
  const [meta] = await store.all<{ n: number }>(`SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = '${META_TABLE}'`);
  if (Number(meta?.n ?? 0) === 0) return false;
  return (await planBreakdown(store, options)).todo.length === 0;
}

/**
 * The stamps ensureBreakdown records for these options, read without writing: compare reads the
 * figures an earlier analysis stored under them (figures/figureCache.ts) instead of recomputing them.
 */
export async function breakdownStamps(store: QueryRunner, options: AnalysisOptions): Promise<Stamps> {
  return (await planBreakdown(store, options)).stamps;
}

/** The steps only the group sections read (request_dimensions, request_groups): analyzeRun builds them after the report's first part. */
const GROUP_STAGE: Step['stage'] = 'group dimensions';

/**
 * Makes every derived relation current for these options: reads the stored stamps, rebuilds the stale
 * steps in order (forgetting their stamps first, recording them once built) and returns the stamps.
 * `scope` 'per-request' stops before the group dimensions (the last steps, read only by the group
 * sections): a later call with 'all' builds them, and finds the rest current.
 */
export async function ensureBreakdown(store: QueryRunner, options: AnalysisOptions, scope: 'all' | 'per-request' = 'all'): Promise<BreakdownInfo> {
  enterStage(store, 'catalog');
  const plan = await planBreakdown(store, options);
  const { phases, columns, state, stamps } = plan;
  const todo = scope === 'all' ? plan.todo : plan.todo.filter((s) => s.stage !== GROUP_STAGE);
  await forgetStamps(store, todo.flatMap((s) => s.outputs));
  const ctx: StepContext = { store, options, phases, phasesStale: todo.some((s) => s.outputs.includes('span_phase')) };
  for (const step of todo) {
    // An older version may have written a view where a table is declared, or the reverse.
    for (const name of step.outputs) {
      const stored = state.relations.get(name);
      const decl = RELATIONS.find((r) => r.name === name);
      if (stored !== undefined && stored.kind !== decl?.kind) await exec(store, `drop ${name}`, `DROP ${stored.kind === 'view' ? 'VIEW' : 'TABLE'} ${name}`);
    }
    enterStage(store, step.stage);
    await step.build(ctx);
    await recordStamps(store, step.outputs.map((name) => [name, stamps.relation(name)]));
    // Which key the join used, readable (the stamps are hashes): later commands without --join-by reuse it.
    if (step.outputs.includes('client_index')) await recordJoinKey(store, options.joinKey);
  }
  // The index's scan table, when no later step consumed it.
  if (ctx.scan !== undefined) await exec(store, 'drop span_links', 'DROP TABLE IF EXISTS span_links');
  return { phaseColumns: columns, stamps };
}

/**
 * Rebuilds everything, as after a reload: for callers that changed loaded rows in place (tests), which
 * the loaded tables' stamp cannot see.
 */
export async function buildBreakdown(store: QueryRunner, options: AnalysisOptions): Promise<BreakdownInfo> {
  await markLoadedTablesChanged(store);
  return ensureBreakdown(store, options);
}
