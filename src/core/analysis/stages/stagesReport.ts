/**
 * The report's `stages`: the contract's stages when declared (their figures are the stage series the
 * report already holds, so nothing is computed twice), else the steps found in the schedule
 * (detectSteps.ts, then one stage series over them); a table row per stage and the knee (knee.ts).
 */
import type { SeriesWindow, StagesReport } from '../../report/model';
import type { QueryRunner } from '../../store/duckStore';
import { queueOwnerOf, stageOwnerColumns } from '../catalog/stages';
import { keyId } from '../groups/groupedTables';
import type { AnalysisOptions, StageWindow } from '../options';
import { computeWindowSeries } from '../series/windowSeries';
import { query } from '../sql/statement';
import { detectSteps } from './detectSteps';
import { successesEndedByStage } from './goodput';
import { findKnee } from './knee';
import { stageRow } from './stageRows';

/**
 * `declaredWindows`: the window series of the report when it is the contract's stages (kind
 * `stages`), which are then the stage figures; undefined otherwise.
 */
export async function computeStages(
  store: QueryRunner,
  options: AnalysisOptions,
  phaseColumns: readonly string[],
  declaredWindows: readonly SeriesWindow[] | undefined,
): Promise<StagesReport> {
  const queueOwner = queueOwnerOf(phaseColumns);
  const declared = options.stages ?? [];
  if (declared.length > 0) {
    const windows = declaredWindows ?? ((await computeWindowSeries(store, { kind: 'stages', stages: declared }, phaseColumns)).get(keyId([])) ?? []);
    return assemble('contract', null, declared, windows, await successesEndedByStage(store, declared), phaseColumns, queueOwner);
  }
  const found = await detectSteps(store);
  if (found.stages.length === 0) {
    return { source: 'none', basis: found.basis, queue_owner: queueOwner, list: [], checks: [], knee: null, not_evaluated: [], summary: `no stages: the contract declares none and ${found.why}` };
  }
  const windows = (await computeWindowSeries(store, { kind: 'stages', stages: found.stages }, phaseColumns)).get(keyId([])) ?? [];
  const report = assemble('detected', found.basis, found.stages, windows, await successesEndedByStage(store, found.stages), phaseColumns, queueOwner);
  if (found.basis === 'send') report.not_evaluated.push('the steps were found in the send times (no scheduled times in the client records): a stage boundary is where the sends stepped');
  const dropped = await droppedIterations(store);
  if (dropped > 0) {
    // Dropped iterations are counted, not timed (formats/client/records.ts, k6 summaries): the schedule misses them.
    report.not_evaluated.push(`below_target on a rate the schedule misses: ${dropped.toLocaleString('en-US')} dropped iterations are counted but not timed once loaded, so a detected stage's target reads low by them (declare the stages in the contract to test the achieved rate against its target)`);
  }
  return report;
}

async function droppedIterations(store: QueryRunner): Promise<number> {
  const [row] = await query<{ n: number | bigint | null }>(store, 'stage dropped iterations', "SELECT sum(value) AS n FROM run_counters WHERE metric = 'dropped_iterations'");
  return Number(row?.n ?? 0);
}

function assemble(
  source: 'contract' | 'detected',
  basis: 'scheduled' | 'send' | null,
  stages: readonly StageWindow[],
  windows: readonly SeriesWindow[],
  endedOk: ReadonlyMap<number, number>,
  phaseColumns: readonly string[],
  queueOwner: string | null,
): StagesReport {
  const owners = stageOwnerColumns(phaseColumns);
  const byIndex = new Map(windows.map((w) => [w.index, w]));
  const list = stages.flatMap((s, i) => {
    const w = byIndex.get(i);
    return w === undefined ? [] : [stageRow(s, w, owners, endedOk.get(i) ?? 0)];
  });
  const { checks, knee, not_evaluated } = findKnee(list, queueOwner);
  const origin = source === 'contract' ? "the contract's stages" : `steps found in the ${basis === 'scheduled' ? 'scheduled starts' : 'sends'}`;
  const held: string[] = [];
  if (checks.some((c) => c.queue_gain !== null)) held.push(`${queueOwner ?? 'the queue'} p95 grew no faster than the throughput`);
  if (checks.some((c) => c.achieved_ratio !== null)) held.push('every stage reached its target start rate');
  const summary =
    knee !== null
      ? `knee at ${knee.label} (${knee.reasons.join(', ')}) of ${list.length} stages (${origin})`
      : `no knee in ${list.length} stages (${origin})${held.length > 0 ? `: ${held.join(', and ')}` : ': neither test could run'}`;
  return { source, basis, queue_owner: queueOwner, list, checks, knee, not_evaluated, summary };
}
