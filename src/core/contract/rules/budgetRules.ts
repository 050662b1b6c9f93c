/** Semantic rules on budgets (sum vs SLO, condition, phase names) and on missing gates. */
import type { ContractContext } from './context';
import { BUILTIN_BUDGET_PHASES, GATE_DEFAULTS, isArrivalExecutor } from '../defaults';
import type { GateKey } from '../defaults';
import { DEFAULT_PHASES } from '../../analysis/options';
import { allocatedSlo, allocationSum, budgetStatus, phaseAllocations } from '../form/budget';
import { formatNumber } from './quantities';
import { closest } from './suggest';

const CONDITION_KEYS = ['model_class', 'region', 'rate', 'window'] as const;

function knownPhases(ctx: ContractContext): string[] {
  // Declared phases replace the defaults entirely (a provider route has no GPU queue to budget).
  const custom = ctx.keys('/trace/phases');
  const base = custom.length > 0 ? custom : DEFAULT_PHASES.map((p) => p.name);
  return [...base, ...BUILTIN_BUDGET_PHASES];
}

/** Values a budget condition can be filled from: the request and workload the contract declares. */
function conditionDefaults(ctx: ContractContext): [string, string | number][] {
  const out: [string, string | number][] = [];
  const model = ctx.str('/request/model_class');
  if (model) out.push(['model_class', model]);
  const region = ctx.str('/request/region');
  if (region) out.push(['region', region]);
  const rate = ctx.num('/workload/rate');
  if (rate !== undefined) out.push(['rate', rate]);
  out.push(['window', 'steady']);
  return out;
}

function checkCondition(ctx: ContractContext, base: string, defaults: [string, string | number][]): void {
  const when = `${base}/when`;
  if (!ctx.has(when)) {
    const first = ctx.entry(base)?.keys?.[0];
    const anchor = first !== undefined ? ctx.child(base, first) : base;
    const edit = ctx.insertKey(base, 'when', ctx.flowMap(defaults));
    ctx.at(anchor, 'key', 'budget-missing-condition', 'warning', `This budget has no \`when\` condition; a budget holds only for a model, region, rate and window, so add them (e.g. ${defaults.map(([k, v]) => `${k}: ${v}`).join(', ')}).`, edit ? { title: 'Add the condition from this contract', edits: [edit] } : undefined);
    return;
  }
  const missing = CONDITION_KEYS.filter((k) => !ctx.has(`${when}/${k}`));
  if (missing.length === 0) return;
  const fill = defaults.filter(([k]) => (missing as readonly string[]).includes(k));
  const edits = fill.map(([k, v]) => ctx.insertKey(when, k, ctx.scalar(v))).filter((e) => e !== undefined);
  // Several inserts at the same offset apply in order; merge them into one edit to keep the order stable.
  const merged = edits.length > 0 ? [{ start: edits[0].start, end: edits[0].end, newText: edits.map((e) => e.newText).join('') }] : [];
  ctx.at(when, 'key', 'budget-missing-condition', 'warning', `The budget condition lacks ${missing.map((k) => `\`${k}\``).join(', ')}; without them the allocation cannot be compared across runs.`, merged.length > 0 && fill.length === missing.length ? { title: 'Fill the condition from this contract', edits: merged } : undefined);
}

function checkBudget(ctx: ContractContext, index: number, phases: string[], defaults: [string, string | number][]): void {
  const base = `/budgets/${index}`;
  checkCondition(ctx, base, defaults);
  const allocates = ctx.str(`${base}/allocates`);
  const allocations = phaseAllocations(ctx, base);
  for (const { name: p, pointer: ptr } of allocations) {
    if (phases.includes(p)) continue;
    const suggestion = closest(p.replace(/_ms$/, ''), phases);
    const r = ctx.range(ptr, 'key');
    const quoted = /^["']/.test(ctx.text[r.start] ?? '');
    ctx.at(ptr, 'key', 'budget-unknown-phase', 'warning', `\`${p}\` is not a phase of this contract (${phases.join(', ')})${suggestion ? `; did you mean \`${suggestion}\`?` : '; declare it under `trace.phases`.'}`, suggestion ? { title: `Rename to \`${suggestion}\``, edits: [{ start: r.start, end: r.end, newText: quoted ? JSON.stringify(suggestion) : suggestion }] } : undefined);
  }
  if (!allocates) return;
  const [metric, stat] = allocates.split('.');
  const slo = allocatedSlo(ctx, allocates);
  if (slo === undefined) {
    ctx.at(`${base}/allocates`, 'value', 'budget-unknown-slo', 'error', `The budget allocates \`${allocates}\` but \`slo.${metric}.${stat}\` is not declared; declare the SLO or allocate one that exists.`);
    return;
  }
  const sum = allocationSum(allocations.map((a) => a.ms));
  if (sum === undefined) return;
  const status = budgetStatus(sum, slo);
  if (status === 'overrun') {
    // Formatted only when reported: this runs for every budget on every validation.
    const parts = allocations.map((a) => `${a.name} ${formatNumber(a.ms as number)}`).join(' + ');
    ctx.at(`${base}/phases`, 'key', 'budgets-exceed-slo', 'error', `Phase budgets add up to ${formatNumber(sum)} ms (${parts}), ${formatNumber(sum - slo)} ms more than the ${allocates} SLO of ${formatNumber(slo)} ms they allocate; cut them to fit.`);
  } else if (status === 'fits') {
    ctx.at(`${base}/phases`, 'key', 'budgets-slack', 'information', `Phase budgets add up to ${formatNumber(sum)} ms of the ${allocates} SLO of ${formatNumber(slo)} ms: ${formatNumber(slo - sum)} ms (${formatNumber(((slo - sum) / slo) * 100)}%) is unallocated slack; allocate it or keep it as headroom deliberately.`);
  }
}

function checkGates(ctx: ContractContext): void {
  const open = isArrivalExecutor(ctx.str('/workload/executor'));
  const keys = (Object.keys(GATE_DEFAULTS) as GateKey[]).filter((k) => k !== 'achieved_rate_ratio' || open);
  if (!ctx.has('/gates')) {
    const block = ctx.isJson
      ? ctx.flowMap(keys.map((k) => [k, GATE_DEFAULTS[k]]))
      : `\n${keys.map((k) => `  ${k}: ${GATE_DEFAULTS[k]}`).join('\n')}`;
    const edit = ctx.insertKey('', 'gates', block);
    ctx.report('gates-missing', 'warning', ctx.firstLine(), `No \`gates\`: the run cannot be declared inconclusive for dropped iterations or low join coverage on this contract's terms; defaults apply (${keys.filter((k) => k !== 'scheduler_lag_ms').map((k) => `${k} ${GATE_DEFAULTS[k]}`).join(', ')}). Declare them.`, edit ? { title: 'Insert the default gates', edits: [edit] } : undefined);
    return;
  }
  for (const k of keys) {
    if (ctx.has(`/gates/${k}`)) continue;
    const edit = ctx.insertKey('/gates', k, ctx.scalar(GATE_DEFAULTS[k]));
    const severity = k === 'dropped_iterations' && open ? 'warning' : k === 'scheduler_lag_ms' ? 'hint' : 'information';
    const applies = k === 'scheduler_lag_ms'
      ? 'no scheduler-lag gate applies (k6 output does not record lag; per-request records do)'
      : `the default ${GATE_DEFAULTS[k]} applies`;
    ctx.at('/gates', 'key', 'gate-missing', severity, `Gate \`${k}\` is not declared; ${applies}. Declare it so the contract says what it accepts.`, edit ? { title: `Insert \`${k}: ${GATE_DEFAULTS[k]}\``, edits: [edit] } : undefined);
  }
}

export function checkBudgets(ctx: ContractContext): void {
  const budgets = ctx.get('/budgets');
  if (Array.isArray(budgets)) {
    const phases = knownPhases(ctx);
    // The values a condition is filled from are the same for every budget: read them once.
    const defaults = conditionDefaults(ctx);
    budgets.forEach((b, i) => {
      if (b !== null && typeof b === 'object') checkBudget(ctx, i, phases, defaults);
    });
  }
  checkGates(ctx);
}
