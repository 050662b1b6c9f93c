/**
 * Which dimensions a report groups by, and which ones the whole run mixes: the options' group_by
 * (from --group-by or the contract's report.group_by), else route and model, each only when the run
 * holds more than one value of it. Route and model are always checked, so the report says when the
 * whole run's tail mixes several of them even when it does not group by them.
 */
import type { DimensionMix, Grouping } from '../../report/model';
import type { QueryRunner } from '../../store/duckStore';
import { cachedFigure, type FigureCache } from '../figures/figureCache';
import { finiteOrNull } from '../figures/quantileSql';
import type { AnalysisOptions } from '../options';
import { query } from '../sql/statement';
import { AUTO_DIMENSIONS, DEFAULT_MIN_GROUP_SIZE, DIMENSIONS, dimensionDecl, type DimensionDecl } from './dimensions';

/** Values listed per mixed dimension (the rest are counted in the groups). */
const MIX_VALUES_LISTED = 20;

export interface GroupingPlan {
  dims: DimensionDecl[];
  grouping: Omit<Grouping, 'omitted'>;
}

export async function planGrouping(store: QueryRunner, options: AnalysisOptions, cache?: FigureCache): Promise<GroupingPlan> {
  const mixes = await cachedFigure(cache, 'group_mixes', () => readMixes(store));
  const asked = options.groupBy;
  const dims =
    asked !== undefined
      ? asked.map((name) => {
          const d = dimensionDecl(name);
          if (d === undefined) throw new Error(`unknown group dimension ${name} (expected one of ${DIMENSIONS.map((x) => x.name).join(', ')})`);
          return d;
        })
      : AUTO_DIMENSIONS.filter((name) => mixes.some((m) => m.dimension === name)).map((name) => dimensionDecl(name) as DimensionDecl);
  const definitions = Object.fromEntries(dims.map((d) => [d.name, d.sources]));
  return {
    dims,
    grouping: {
      by: dims.map((d) => d.name),
      source: asked === undefined ? 'auto' : (options.groupBySource ?? 'option'),
      min_group_size: options.minGroupSize ?? DEFAULT_MIN_GROUP_SIZE,
      mixes,
      definitions,
    },
  };
}

/** Route and model values with their calls, for the dimensions that hold more than one. */
async function readMixes(store: QueryRunner): Promise<DimensionMix[]> {
  const rows = await query<{ d: string; v: string; calls: unknown }>(
    store,
    'route and model values',
    `SELECT 'route' AS d, dim_route AS v, count(*) AS calls FROM request_dimensions WHERE dim_route IS NOT NULL GROUP BY dim_route
     UNION ALL SELECT 'model', dim_model, count(*) FROM request_dimensions WHERE dim_model IS NOT NULL GROUP BY dim_model
     ORDER BY d, calls DESC, v`,
  );
  const mixes: DimensionMix[] = [];
  for (const name of AUTO_DIMENSIONS) {
    const values = rows.filter((r) => r.d === name).map((r) => ({ value: r.v, calls: finiteOrNull(r.calls) ?? 0 }));
    if (values.length > 1) mixes.push({ dimension: name, values: values.slice(0, MIX_VALUES_LISTED) });
  }
  return mixes;
}
