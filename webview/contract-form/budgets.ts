/**
 * Budgets per SLO: each objective with the budgets that allocate it, an allocation bar (one segment per
 * phase, the slack hatched, an overrun past the SLO line in the error colour) and the phases' inputs
 * with their ms and share of the SLO. The figures are the core's (form/budget.ts), the same the rules
 * `budgets-exceed-slo` and `budgets-slack` report.
 */
import type { BudgetBreakdown, SloRow } from '../../src/core/contract/form/types';
import { h } from '../shared/dom';
import { fmtMs, ownerLabel } from '../shared/format';
import type { Palette } from '../shared/theme';
import { gateBadge } from './evaluation';
import { button, fieldRow, type FormContext } from './fields';

const BUILTIN = ['network_envelope', 'gateway', 'gpu_queue', 'generation', 'unattributed_server', 'transport_setup'];

function pct(v: number | null): string {
  return v === null ? '—' : `${v.toFixed(1)} %`;
}

/** What the bar says in words (also its accessible name). */
export function budgetSummary(b: BudgetBreakdown): string {
  if (b.status === 'no-slo') return `allocates ${b.allocates ?? '(nothing)'}, which the contract does not declare`;
  if (b.status === 'incomplete' || b.sumMs === null || b.sloMs === null || b.slackMs === null) return 'a phase is not a duration: no sum yet';
  if (b.status === 'exact') return `Σ ${fmtMs(b.sumMs)} = the ${fmtMs(b.sloMs)} SLO: no slack`;
  if (b.status === 'fits') return `Σ ${fmtMs(b.sumMs)} of ${fmtMs(b.sloMs)}: ${fmtMs(b.slackMs)} (${pct(b.slackPct)}) slack`;
  return `Σ ${fmtMs(b.sumMs)}: ${fmtMs(-b.slackMs)} (${pct(b.slackPct === null ? null : -b.slackPct)}) over the ${fmtMs(b.sloMs)} SLO`;
}

function bar(b: BudgetBreakdown, p: Palette): HTMLElement {
  const slo = b.sloMs ?? 0;
  const sum = b.phases.reduce((a, x) => a + (x.ms ?? 0), 0);
  const scale = Math.max(slo, sum, 1);
  const track = h('div', { class: 'cf-bar', role: 'img', attrs: { 'aria-label': `${b.allocates ?? 'budget'}: ${budgetSummary(b)}; ${b.phases.map((x) => `${ownerLabel(x.name)} ${fmtMs(x.ms)}`).join(', ')}`, 'data-testid': `budget-bar-${b.index}` } });
  let at = 0;
  for (const x of b.phases) {
    const w = ((x.ms ?? 0) / scale) * 100;
    const seg = h('div', { class: 'cf-seg', title: `${ownerLabel(x.name)}: ${fmtMs(x.ms)}${x.pctOfSlo !== null ? ` (${pct(x.pctOfSlo)} of the SLO)` : ''}` }, w > 9 ? `${ownerLabel(x.name)} ${fmtMs(x.ms)}` : '');
    seg.style.left = `${(at / scale) * 100}%`;
    seg.style.width = `${w}%`;
    seg.style.background = p.owner(x.name);
    track.appendChild(seg);
    at += x.ms ?? 0;
  }
  if (b.status === 'fits' && slo > 0) {
    const slack = h('div', { class: 'cf-seg cf-slack pw-hatch', title: `slack ${fmtMs(slo - sum)}` }, (slo - sum) / scale > 0.12 ? `slack ${fmtMs(slo - sum)}` : '');
    slack.style.left = `${(sum / scale) * 100}%`;
    slack.style.width = `${((slo - sum) / scale) * 100}%`;
    track.appendChild(slack);
  }
  if (slo > 0) {
    if (sum > slo) {
      const over = h('div', { class: 'cf-over', title: `over the SLO by ${fmtMs(sum - slo)}` });
      over.style.left = `${(slo / scale) * 100}%`;
      over.style.width = `${((sum - slo) / scale) * 100}%`;
      track.appendChild(over);
    }
    const line = h('div', { class: 'cf-slo-line', title: `SLO ${fmtMs(slo)}` });
    line.style.left = `calc(${(slo / scale) * 100}% - 1px)`;
    track.appendChild(line);
  }
  return track;
}

function addPhase(ctx: FormContext, b: BudgetBreakdown): HTMLElement | null {
  const known = [...new Set([...ctx.model.phases.map((x) => x.name), ...BUILTIN])].filter((n) => !b.phases.some((x) => x.name === n));
  if (known.length === 0) return null;
  const select = h('select', { class: 'cf-select', attrs: { 'aria-label': `phase to add to budget ${b.index + 1}` } }, ...known.map((n) => h('option', { attrs: { value: n } }, n)));
  const add = button('Add phase', 'Add the chosen phase to this budget with 0ms', () => ctx.edit({ op: 'set', pointer: `${b.pointer}/phases/${select.value}`, input: '0ms' }));
  return h('div', { class: 'cf-inline' }, select, add);
}

/** A budget's block, kept across updates that do not change it (a keystroke elsewhere leaves 38 of 39 as they are). */
/**
 * The gate id of a budget's phase as contract/toAnalysis.ts names it: `budget.<phase>_ms.<stat>`, with
 * `#n` for the n-th budget giving the same phase and statistic.
 */
function budgetGateId(m: FormContext['model'], b: BudgetBreakdown, phase: string): string | undefined {
  const stat = b.allocates?.split('.')[1];
  if (stat === undefined) return undefined;
  const n = m.budgets.filter((o) => o.index <= b.index && o.allocates?.split('.')[1] === stat && o.phases.some((x) => x.name === phase)).length;
  return `budget.${phase}_ms.${stat}${n > 1 ? `#${n}` : ''}`;
}

function evaluatedCell(ctx: FormContext, id: string | undefined): HTMLElement {
  const g = id !== undefined ? ctx.evaluated(id) : undefined;
  return h('td', { attrs: { 'data-testid': id !== undefined ? `inline-${id}` : '' } }, g ? gateBadge(g) : null, g ? ` ${fmtMs(g.observed)}` : '');
}

function budgetBlock(ctx: FormContext, b: BudgetBreakdown, p: Palette): HTMLElement {
  const m = ctx.model;
  const under = (pointer: string): boolean => pointer === b.pointer || pointer.startsWith(`${b.pointer}/`);
  const signature = {
    b,
    fields: Object.values(m.fields).filter((f) => under(f.pointer)),
    diagnostics: m.diagnostics.filter((d) => under(d.pointer)),
    colours: b.phases.map((x) => p.owner(x.name)),
    phases: m.phases.map((x) => x.name),
    evaluated: b.phases.map((x) => {
      const id = budgetGateId(m, b, x.name);
      return id !== undefined ? (ctx.evaluated(id) ?? null) : null;
    }),
  };
  return ctx.block(b.pointer, signature, () => buildBudget(ctx, b, p));
}

function buildBudget(ctx: FormContext, b: BudgetBreakdown, p: Palette): HTMLElement {
  const slot = h('div', { class: 'cf-diags' });
  ctx.anchor(b.pointer, slot);
  const phaseSlot = h('div', { class: 'cf-diags' });
  ctx.anchor(`${b.pointer}/phases`, phaseSlot);
  const conditionKeys = ['model_class', 'region', 'priority', 'rate', 'window'].map((k) => `${b.pointer}/when/${k}`);
  const rows = b.phases.map((x) =>
    h(
      'tr',
      null,
      h('th', { attrs: { scope: 'row' } }, h('span', { class: 'pw-swatch' }), ownerLabel(x.name)),
      h('td', null, fieldRow(ctx, x.pointer, x.name)),
      h('td', { class: 'pw-num' }, fmtMs(x.ms)),
      h('td', { class: 'pw-num' }, pct(x.pctOfSlo)),
      evaluatedCell(ctx, budgetGateId(ctx.model, b, x.name)),
    ),
  );
  rows.forEach((r, i) => ((r.querySelector('.pw-swatch') as HTMLElement).style.background = p.owner(b.phases[i].name)));
  return h(
    'div',
    { class: `cf-budget cf-budget-${b.status}`, attrs: { 'data-pointer-block': b.pointer, 'data-testid': `budget-${b.index}` } },
    h('div', { class: 'cf-budget-head' }, h('strong', null, `Budget ${b.index + 1}`), ' ', h('span', { class: 'pw-muted' }, b.condition.length > 0 ? `when ${b.condition.map((c) => `${c.key} ${c.value}`).join(', ')}` : 'no condition'), ' ', button('Remove', 'Remove this budget from the contract', () => ctx.edit({ op: 'remove', pointer: b.pointer }))),
    slot,
    h('details', { class: 'cf-when' }, h('summary', null, 'Condition (when)'), h('div', { class: 'cf-grid' }, fieldRow(ctx, `${b.pointer}/allocates`, 'allocates'), ...conditionKeys.filter((k) => ctx.model.fields[k]).map((k) => fieldRow(ctx, k)))),
    bar(b, p),
    h('div', { class: `cf-budget-sum cf-sum-${b.status}`, attrs: { 'data-testid': `budget-sum-${b.index}` } }, budgetSummary(b)),
    phaseSlot,
    h('table', { class: 'pw-table cf-phases' }, h('thead', null, h('tr', null, h('th', null, 'phase'), h('th', null, 'allocation'), h('th', { class: 'pw-num' }, 'ms'), h('th', { class: 'pw-num' }, '% of SLO'), h('th', null, 'evaluated'))), h('tbody', null, ...rows)),
    addPhase(ctx, b),
  );
}

function sloResult(ctx: FormContext, id: string): (Node | string)[] {
  const g = ctx.evaluated(id);
  return g ? [' ', h('span', { attrs: { 'data-testid': `inline-${id}` } }, gateBadge(g), ` observed ${fmtMs(g.observed)}`)] : [];
}

/** The SLO grid (every metric × statistic, editable), then each declared objective with its budgets. */
export function budgetsSection(ctx: FormContext, p: Palette): Node[] {
  const m = ctx.model;
  const grid = h(
    'table',
    { class: 'pw-table cf-slo-grid', attrs: { 'data-testid': 'slo-grid' } },
    h('thead', null, h('tr', null, h('th', null, 'objective'), ...['p50', 'p95', 'p99'].map((s) => h('th', null, s)))),
    h('tbody', null, ...['total_ms', 'ttft_ms', 'itl_ms'].map((metric) => h('tr', null, h('th', { attrs: { scope: 'row' } }, metric), ...['p50', 'p95', 'p99'].map((stat) => h('td', null, fieldRow(ctx, `/slo/${metric}/${stat}`, `${metric} ${stat}`)))))),
  );
  const bySlo = m.slo.map((s: SloRow) => {
    const budgets = s.budgets.map((i) => m.budgets.find((b) => b.index === i)).filter((b): b is BudgetBreakdown => b !== undefined);
    return h(
      'div',
      { class: 'cf-slo', attrs: { 'data-testid': `slo-${s.metric}-${s.stat}` } },
      h('h3', null, `${s.metric}.${s.stat} ≤ ${fmtMs(s.ms)}`, ...sloResult(ctx, `slo.${s.metric}.${s.stat}`)),
      ...(budgets.length > 0 ? budgets.map((b) => budgetBlock(ctx, b, p)) : [h('p', { class: 'pw-muted' }, 'No budget allocates this objective.')]),
    );
  });
  const orphans = m.budgets.filter((b) => b.status === 'no-slo');
  const add = button('Add budget', 'Append a budget for the first objective, its condition from the request and workload', () => {
        const first = m.slo[0];
        const when: Record<string, unknown> = {};
        for (const [k, ptr] of [['model_class', '/request/model_class'], ['region', '/request/region'], ['rate', '/workload/rate']] as const) {
          const v = m.fields[ptr]?.value;
          if (v !== null && v !== undefined) when[k] = v;
        }
        when.window = 'steady';
        ctx.edit({ op: 'append', pointer: '/budgets', item: { allocates: first ? `${first.metric}.${first.stat}` : 'total_ms.p95', when, phases: { network_envelope: '0ms', gateway: '0ms', gpu_queue: '0ms', generation: '0ms' } } });
  });
  return [grid, ...bySlo, ...(orphans.length > 0 ? [h('div', { class: 'cf-slo' }, h('h3', null, 'Budgets of undeclared objectives'), ...orphans.map((b) => budgetBlock(ctx, b, p)))] : []), add];
}
