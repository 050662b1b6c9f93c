/**
 * The run's verdict (docs/metrics.md §2), exactly one, by precedence:
 *   instrumentation_failure > inconclusive > fail > pass.
 * A run whose counters do not reconcile cannot be judged on latency at all, and a run that did not
 * deliver its workload cannot fail or pass its SLO: that is why the order is not "worst gate wins".
 */
import { RUN_FIGURES, SHARE_FIGURES } from '../catalog/metrics';
import type { GateCategory } from '../options';
import type { GateResult, OutcomeLedger, TailAttribution, Verdict } from '../../report/model';

type Level = 'instrumentation' | 'inconclusive' | 'fail';

const CATEGORY_LEVEL: Record<GateCategory, Level> = {
  instrumentation: 'instrumentation',
  workload: 'inconclusive',
  coverage: 'inconclusive',
  slo: 'fail',
  budget: 'fail',
  quality: 'fail',
};

/** Run-level figures decide their level by their catalog category, whatever category the gate was filed under. */
const METRIC_LEVEL: ReadonlyMap<string, Level> = new Map(RUN_FIGURES.map((f) => [f.name, CATEGORY_LEVEL[f.gate]]));

export function gateLevel(gate: Pick<GateResult, 'metric' | 'category'>): Level {
  return METRIC_LEVEL.get(gate.metric) ?? CATEGORY_LEVEL[gate.category];
}

export interface VerdictInputs {
  gates: readonly GateResult[];
  ledger: OutcomeLedger;
  tailAttribution: TailAttribution;
  /** Set when a steady end was declared, no steady_window_ms gate exists, and the run covered clearly less of it. */
  steadyShort: { declaredMs: number; coveredMs: number } | null;
  contentEventParseErrors: number;
}

function round(v: number, digits: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

/** A value with the unit its metric implies (ms, %, per second). */
export function formatGateValue(metric: string, stat: string, v: number): string {
  if (SHARE_FIGURES.has(metric) || stat === 'share') return `${round(v * 100, 2)} %`;
  if (metric === 'achieved_start_rate') return `${round(v, 2)}/s`;
  if (metric.endsWith('_ms')) return `${round(v, 1)} ms`;
  return round(v, 3);
}

export function gateSentence(g: GateResult): string {
  const what = `${g.metric}${g.stat === 'value' ? '' : ` ${g.stat}`}`;
  const limit = `${g.op} ${formatGateValue(g.metric, g.stat, g.limit)}`;
  const where = `n = ${g.n ?? '–'}, ${g.window}`;
  const origin = g.origin ? ` [${g.origin}]` : '';
  if (g.observed === null) return `Gate ${g.id}${origin} has no data: ${what} could not be measured (${where}); the claim ${limit} is unverified.`;
  const verb = g.status === 'pass' ? 'meets' : 'breaks';
  return `Gate ${g.id}${origin}: ${what} = ${formatGateValue(g.metric, g.stat, g.observed)} ${verb} the limit ${limit} (${where}).`;
}

/** How far past its limit a gate is, relative to the limit (for naming the broken phase). */
function relativeExcess(g: GateResult): number {
  if (g.observed === null) return 0;
  const diff = Math.abs(g.observed - g.limit);
  return g.limit !== 0 ? diff / Math.abs(g.limit) : Number.MAX_VALUE;
}

function brokenPhase(failed: readonly GateResult[], tail: TailAttribution): { phase: string | null; reason: string | null } {
  const budgets = failed.filter((g) => g.category === 'budget');
  if (budgets.length > 0) {
    const worst = budgets.reduce((a, b) => (relativeExcess(b) > relativeExcess(a) ? b : a));
    const phase = worst.phase ?? worst.metric.replace(/_ms$/, '');
    return {
      phase,
      reason: `The broken phase is ${phase}: its ${worst.stat} is ${round(relativeExcess(worst) * 100, 1)} % past its budget, the largest relative excess of ${budgets.length} failed budget gate(s).`,
    };
  }
  // Tail attribution splits client_total_ms, so it only names the owner of a broken *total* SLO.
  if (failed.some((g) => g.category === 'slo' && g.metric === 'client_total_ms') && tail.phases.length > 0) {
    const top = tail.phases.reduce((a, b) => (b.share > a.share ? b : a));
    return {
      phase: top.phase,
      reason:
        `No phase budget broke, so the phase named is the tail's largest owner: ${top.phase} takes ${round(top.share * 100, 1)} % ` +
        `(mean ${round(top.mean_ms, 1)} ms of ${round(tail.mean_client_total_ms ?? 0, 1)} ms) of the ${tail.n} request(s) above the client p95.`,
    };
  }
  return { phase: null, reason: null };
}

export function decideVerdict(inputs: VerdictInputs): Verdict {
  const { gates, ledger } = inputs;
  const ledgerReasons = ledger.discrepancies.map((d) => `The outcome ledger does not reconcile: ${d}`);
  if (gates.length === 0) {
    if (!ledger.reconciles) return { status: 'instrumentation_failure', broken_phase: null, reasons: ledgerReasons };
    return {
      status: 'not_evaluated',
      broken_phase: null,
      reasons: [`No gates were given; the outcome ledger reconciles (started ${ledger.started}, succeeded ${ledger.succeeded}, generator_dropped ${ledger.generator_dropped}).`],
    };
  }

  const byLevel: Record<Level, string[]> = { instrumentation: [...ledgerReasons], inconclusive: [], fail: [] };
  const failed = gates.filter((g) => g.status === 'fail');
  for (const g of failed) byLevel[gateLevel(g)].push(gateSentence(g));
  if (inputs.contentEventParseErrors > 0 && !gates.some((g) => g.metric === 'content_event_parse_errors')) {
    byLevel.instrumentation.push(`${inputs.contentEventParseErrors} content event(s) could not be parsed, so TTFT and ITL are not trustworthy.`);
  }
  if (inputs.steadyShort) {
    const s = inputs.steadyShort;
    byLevel.inconclusive.push(`The run covered ${round(s.coveredMs, 0)} ms of the declared ${round(s.declaredMs, 0)} ms steady window.`);
  }
  for (const g of gates.filter((x) => x.status === 'no_data')) byLevel.inconclusive.push(gateSentence(g));

  const also = (levels: Level[]): string[] => levels.flatMap((l) => byLevel[l].map((r) => `Also: ${r}`));
  if (byLevel.instrumentation.length > 0) {
    return { status: 'instrumentation_failure', broken_phase: null, reasons: [...byLevel.instrumentation, ...also(['inconclusive', 'fail'])] };
  }
  if (byLevel.inconclusive.length > 0) {
    return { status: 'inconclusive', broken_phase: null, reasons: [...byLevel.inconclusive, ...also(['fail'])] };
  }
  if (byLevel.fail.length > 0) {
    const broken = brokenPhase(failed.filter((g) => gateLevel(g) === 'fail'), inputs.tailAttribution);
    return { status: 'fail', broken_phase: broken.phase, reasons: broken.reason ? [...byLevel.fail, broken.reason] : byLevel.fail };
  }
  return {
    status: 'pass',
    broken_phase: null,
    reasons: [
      `All ${gates.length} gate(s) passed and the outcome ledger reconciles (started ${ledger.started}, succeeded ${ledger.succeeded}, generator_dropped ${ledger.generator_dropped}).`,
    ],
  };
}
