/**
 * The report sections beside the whole-run figures: groups, the window series with the worst window
 * per SLO metric, the diagnoses, the join-bias test, the user-observed figures, the provenance and the
 * stages with the knee.
 * buildReport appends them after the sections it has always written, so those stay as they were.
 */
import type { Report } from '../../report/model';
import type { QueryRunner } from '../../store/duckStore';
import { diagnose } from '../diagnose/evaluate';
import { computeGroupFigures } from '../groups/groupFigures';
import { keyId } from '../groups/groupedTables';
import { planGrouping } from '../groups/grouping';
import { judgeJoinBias, measureJoinBias, type JoinBiasMeasure } from '../observed/joinBias';
import { buildProvenance, readLoadedProvenance, type LoadedProvenance } from '../observed/provenance';
import { computeUserObserved } from '../observed/userObserved';
import type { AnalysisOptions, GateSpec } from '../options';
import { windowSpecOf } from '../series/windowGrid';
import { computeWindowSeries } from '../series/windowSeries';
import { seriesReport } from '../series/seriesReport';
import { computeStages } from '../stages/stagesReport';
import { cachedFigure, cachedMap, type FigureCache } from './figureCache';
import { enterStage } from '../../store/stage';
import { jsonSafe } from './jsonSafe';

export type ExtendedSections = Pick<Report, 'grouping' | 'groups' | 'window_series' | 'diagnoses' | 'diagnosis_status' | 'join_bias' | 'user_observed' | 'provenance' | 'stages'>;

/** The extended sections as they are finished, in this order; each names the Report keys it fills. */
export type ExtendedSectionName = 'groups' | 'window_series' | 'join_bias' | 'user_observed' | 'provenance' | 'stages';

/** Called as each extended section is finished, with the Report keys it fills (JSON-safe). */
export type OnSection = (name: ExtendedSectionName, sections: Partial<Report>) => void;

export async function computeExtendedSections(
  store: QueryRunner,
  options: AnalysisOptions,
  gates: readonly GateSpec[],
  phaseColumns: readonly string[],
  cache?: FigureCache,
  onSection?: OnSection,
): Promise<ExtendedSections> {
  const spec = windowSpecOf(options);
  const emit = <T extends Partial<Report>>(name: ExtendedSectionName, sections: T): T => {
    onSection?.(name, jsonSafe(sections));
    return sections;
  };
  enterStage(store, 'groups');
  const plan = await planGrouping(store, options, cache);
  const grouped = await computeGroupFigures(store, { options, gates, phaseColumns, dims: plan.dims, spec, cache });
  const groups = emit('groups', { grouping: { ...plan.grouping, omitted: grouped.omitted }, groups: grouped.groups });
  enterStage(store, 'window series');
  const windows = (await cachedMap(cache, 'window_series', () => computeWindowSeries(store, spec, phaseColumns), [JSON.stringify(spec)])).get(keyId([])) ?? [];
  const found = diagnose(windows, spec.kind === 'stages' ? 'stages' : 'windows');
  const series = emit('window_series', { window_series: seriesReport(spec, windows, gates, phaseColumns), diagnoses: found.diagnoses, diagnosis_status: found.status });
  enterStage(store, 'join bias and provenance');
  const bias = emit('join_bias', { join_bias: judgeJoinBias(await cachedFigure<JoinBiasMeasure>(cache, 'join_bias', () => measureJoinBias(store)), options.declaredSampling ?? null) });
  const loaded = await cachedFigure<LoadedProvenance>(cache, 'provenance', () => readLoadedProvenance(store));
  const timeout = options.timeoutMs ?? null;
  enterStage(store, 'user observed');
  const observed = emit('user_observed', { user_observed: await cachedFigure(cache, 'user_observed', () => computeUserObserved(store, timeout)) });
  const provenance = emit('provenance', { provenance: buildProvenance(loaded, options) });
  enterStage(store, 'stages');
  // Detecting the steps and their series cost ≈ 1.8 s at 120k requests: kept under the stamp of
  // request_breakdown (phases included), run_counters and the contract's stages.
  const stages = emit('stages', { stages: await cachedFigure(cache, 'stages', () => computeStages(store, options, phaseColumns, spec.kind === 'stages' ? windows : undefined)) });
  // The Report's key order: as the sections were always written.
  return {
    grouping: groups.grouping,
    groups: groups.groups,
    window_series: series.window_series,
    diagnoses: series.diagnoses,
    diagnosis_status: series.diagnosis_status,
    join_bias: bias.join_bias,
    user_observed: observed.user_observed,
    provenance: provenance.provenance,
    stages: stages.stages,
  };
}
