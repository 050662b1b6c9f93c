/**
 * Budgets against the SLOs they allocate: the one arithmetic behind the rules `budgets-exceed-slo` /
 * `budgets-slack` (budgetRules.ts) and the form's allocation bars, so both say the same numbers.
 */
import type { ContractContext } from '../rules/context';
import type { BudgetBreakdown, BudgetPhase, SloMetric, SloRow, SloStat } from './types';

/** Sums within this of the SLO count as exactly on it (durations are decimal ms). */
export const SLO_TOLERANCE_MS = 1e-9;

export const SLO_METRICS: readonly SloMetric[] = ['total_ms', 'ttft_ms', 'itl_ms'];
export const SLO_STATS: readonly SloStat[] = ['p50', 'p95', 'p99'];

/** The phases of `/budgets/<i>` in the text's order, with their allocations in ms (undefined: not a duration). */
export function phaseAllocations(ctx: ContractContext, base: string): { name: string; pointer: string; ms: number | undefined }[] {
  return ctx.keys(`${base}/phases`).map((name) => {
    const pointer = ctx.child(`${base}/phases`, name);
    return { name, pointer, ms: ctx.ms(pointer) };
  });
}

/** Σ of the allocations, or undefined when there are none or one is not a duration. */
export function allocationSum(values: readonly (number | undefined)[]): number | undefined {
  if (values.length === 0 || values.some((v) => v === undefined)) return undefined;
  return (values as number[]).reduce((a, b) => a + b, 0);
}

export function budgetStatus(sum: number, slo: number): 'fits' | 'exact' | 'overrun' {
  if (sum > slo + SLO_TOLERANCE_MS) return 'overrun';
  if (sum < slo - SLO_TOLERANCE_MS) return 'fits';
  return 'exact';
}

/** The SLO (ms) a budget's `allocates` names (`total_ms.p95`), or undefined. */
export function allocatedSlo(ctx: ContractContext, allocates: string | undefined): number | undefined {
  if (allocates === undefined) return undefined;
  const [metric, stat] = allocates.split('.');
  return ctx.ms(`/slo/${metric}/${stat}`);
}

function breakdown(ctx: ContractContext, index: number): BudgetBreakdown {
  const pointer = `/budgets/${index}`;
  const allocates = ctx.str(`${pointer}/allocates`);
  const slo = allocatedSlo(ctx, allocates);
  const allocations = phaseAllocations(ctx, pointer);
  const phases: BudgetPhase[] = allocations.map((a) => ({
    name: a.name,
    pointer: a.pointer,
    ms: a.ms ?? null,
    pctOfSlo: a.ms !== undefined && slo !== undefined && slo > 0 ? (a.ms / slo) * 100 : null,
  }));
  const sum = allocationSum(allocations.map((a) => a.ms));
  const when = `${pointer}/when`;
  const condition = ctx.keys(when).map((key) => {
    const v = ctx.get(ctx.child(when, key));
    return { key, value: Array.isArray(v) ? `[${v.join(', ')}]` : String(v) };
  });
  const base = { index, pointer, allocates: allocates ?? null, sloMs: slo ?? null, condition, phases, sumMs: sum ?? null };
  if (slo === undefined) return { ...base, slackMs: null, slackPct: null, status: 'no-slo' };
  if (sum === undefined) return { ...base, slackMs: null, slackPct: null, status: 'incomplete' };
  return { ...base, slackMs: slo - sum, slackPct: slo > 0 ? ((slo - sum) / slo) * 100 : null, status: budgetStatus(sum, slo) };
}

export function budgetBreakdowns(ctx: ContractContext): BudgetBreakdown[] {
  const budgets = ctx.get('/budgets');
  if (!Array.isArray(budgets)) return [];
  return budgets.flatMap((b, i) => (b !== null && typeof b === 'object' && !Array.isArray(b) ? [breakdown(ctx, i)] : []));
}

/** Every declared objective, with the budgets allocating it. */
export function sloRows(ctx: ContractContext, budgets: readonly BudgetBreakdown[]): SloRow[] {
  const rows: SloRow[] = [];
  for (const metric of SLO_METRICS) {
    for (const stat of SLO_STATS) {
      const pointer = `/slo/${metric}/${stat}`;
      if (!ctx.has(pointer)) continue;
      const label = `${metric}.${stat}`;
      rows.push({ metric, stat, pointer, ms: ctx.ms(pointer) ?? null, budgets: budgets.filter((b) => b.allocates === label).map((b) => b.index) });
    }
  }
  return rows;
}
