/**
 * The form's other sections: the claim, the request with its prompt shapes (token bands on a log
 * scale, each shape's share of the mix), the trace and its phases (selectors, and what they pick in
 * the selected run), gates (with Evaluate against an open run) and windows. Text nodes only.
 */
import type { PhaseRow, PhaseSelector, PromptShapeRow } from '../../src/core/contract/form/types';
import type { EvaluationParams, RunsStateParams } from '../../src/protocol/contractForm';
import { h } from '../shared/dom';
import { fmtGateValue, fmtInt, fmtPct } from '../shared/format';
import { evaluatedGate, evaluateStrip, gateBadge, type EvaluateActions } from './evaluation';
import { button, fieldGrid, fieldRow, type FormContext } from './fields';

export function section(id: string, title: string, pointer: string, ctx: FormContext, ...children: (Node | null)[]): HTMLElement {
  const slot = h('div', { class: 'cf-diags' });
  ctx.anchor(pointer, slot);
  return h('section', { id, class: 'cf-section', attrs: { 'aria-labelledby': `${id}-h`, 'data-section': pointer } }, h('h2', { id: `${id}-h` }, title), slot, ...children);
}

export function claimSection(ctx: FormContext): Node[] {
  return [fieldGrid(ctx, ['/name', '/claim/kind', '/claim/statement'])];
}

function bandBar(band: [number, number] | null, maxTokens: number, what: string): HTMLElement {
  const track = h('div', { class: 'cf-band', role: 'img', attrs: { 'aria-label': band ? `${what} ${fmtInt(band[0])}–${fmtInt(band[1])} tokens` : `${what}: no band` } });
  if (!band) return track;
  // Log scale: a 50-token band and a 8,000-token band both stay visible.
  const pos = (v: number): number => (Math.log10(Math.max(1, v)) / Math.log10(Math.max(10, maxTokens))) * 100;
  const fill = h('div', { class: `cf-band-fill cf-band-${what}` });
  fill.style.left = `${pos(band[0])}%`;
  fill.style.width = `${Math.max(0.8, pos(band[1]) - pos(band[0]))}%`;
  track.appendChild(fill);
  return track;
}

function shapeRow(ctx: FormContext, s: PromptShapeRow, maxTokens: number): HTMLElement {
  const f = (k: string): HTMLElement => fieldRow(ctx, `${s.pointer}/${k}`, `${s.id ?? `shape ${s.index + 1}`} ${k.replace('/0', ' min').replace('/1', ' max')}`);
  return h(
    'tr',
    { attrs: { 'data-testid': `shape-${s.index}` } },
    h('td', null, f('id')),
    h('td', null, f('weight')),
    h('td', { class: 'pw-num' }, s.share === null ? '—' : fmtPct(s.share)),
    h('td', null, h('div', { class: 'cf-inline' }, f('input_tokens/0'), f('input_tokens/1')), bandBar(s.input, maxTokens, 'input')),
    h('td', null, h('div', { class: 'cf-inline' }, f('output_tokens/0'), f('output_tokens/1')), bandBar(s.output, maxTokens, 'output')),
    h('td', null, button('Remove', `Remove the prompt shape ${s.id ?? s.index + 1}`, () => ctx.edit({ op: 'remove', pointer: s.pointer }))),
  );
}

export function requestSection(ctx: FormContext): Node[] {
  const m = ctx.model;
  const shapes = m.promptShapes;
  const maxTokens = Math.max(10, ...shapes.flatMap((s) => [s.input?.[1] ?? 0, s.output?.[1] ?? 0]));
  const slot = h('div', { class: 'cf-diags' });
  ctx.anchor('/request/prompt_shapes', slot);
  const add = button('Add prompt shape', 'Append a prompt shape to the mix', () =>
    ctx.edit({ op: 'append', pointer: '/request/prompt_shapes', item: { id: `shape_${shapes.length + 1}`, weight: 0.1, input_tokens: [100, 500], output_tokens: [50, 200] } }),
  );
  return [
    fieldGrid(ctx, ['route', 'base_url', 'model_class', 'region', 'priority', 'streaming', 'first_content_event', 'timeout', 'retries'].map((k) => `/request/${k}`)),
    h('h3', null, `Prompt shapes${shapes.length > 0 ? ` (weights sum to ${fmtNum(shapes.reduce((a, s) => a + (s.weight ?? 0), 0))})` : ''}`),
    slot,
    shapes.length === 0
      ? h('p', { class: 'pw-muted' }, 'No prompt shapes: every request uses one default prompt.')
      : h(
          'table',
          { class: 'pw-table cf-shapes', attrs: { 'data-testid': 'prompt-shapes' } },
          h('thead', null, h('tr', null, h('th', null, 'id'), h('th', null, 'weight'), h('th', { class: 'pw-num' }, 'share'), h('th', null, `input tokens (log scale to ${fmtInt(maxTokens)})`), h('th', null, 'output tokens'), h('th', null, ''))),
          h('tbody', null, ...shapes.map((s) => shapeRow(ctx, s, maxTokens))),
        ),
    add,
  ];
}

function fmtNum(v: number): string {
  return String(Math.round(v * 1000) / 1000);
}

function selectorText(s: PhaseSelector): string {
  const parts: string[] = [];
  if (s.names.length > 0) parts.push(`span name ${s.names.join(' | ')}`);
  for (const [k, v] of Object.entries(s.attributes)) parts.push(`${k} = ${v}`);
  for (const k of s.attributePresent) parts.push(`has ${k}`);
  if (s.service !== null) parts.push(`service ${s.service}`);
  return parts.length > 0 ? parts.join(' and ') : 'any span';
}

function phaseItem(ctx: FormContext, p: PhaseRow, runs: RunsStateParams): HTMLElement {
  const slot = h('div', { class: 'cf-diags' });
  if (p.pointer !== null) ctx.anchor(p.pointer, slot);
  const line = p.pointer !== null ? ctx.model.fields[p.pointer]?.line : undefined;
  return h(
    'li',
    { attrs: { 'data-testid': `phase-${p.name}` } },
    h('strong', null, p.name),
    line !== undefined ? h('button', { class: 'pw-link', on: { click: () => ctx.reveal(line) } }, ` line ${line}`) : null,
    h('ul', null, ...p.selectors.map((s) => h('li', null, selectorText(s)))),
    h('div', { class: 'pw-muted cf-preview', attrs: { 'data-testid': `phase-pick-${p.name}` } }, pickText(runs, p.name)),
    slot,
  );
}

function pickText(runs: RunsStateParams, phase: string): string {
  const preview = runs.preview;
  if (runs.selected === null || preview === null) return 'Spans picked: no run selected.';
  if (preview.kind === 'pending') return 'Spans picked: counting…';
  if (preview.kind === 'error') return `Spans picked: not counted (${preview.message})`;
  const pick = preview.picks[phase];
  if (!pick) return 'Spans picked: not counted for this phase.';
  if (pick.spans === 0) return 'Spans picked: none in this run (the phase would be 0 ms in every trace).';
  const names = pick.names.map((n) => `${n.name} × ${fmtInt(n.count)}`).join(', ');
  return `Spans picked: ${fmtInt(pick.spans)} in ${fmtInt(pick.traces)} traces${names ? ` (${names})` : ''}`;
}

function runLabel(runs: RunsStateParams): string {
  return runs.runs.find((r) => r.id === runs.selected)?.label ?? '';
}

export function traceSection(ctx: FormContext, runs: RunsStateParams): Node[] {
  const m = ctx.model;
  return [
    fieldGrid(ctx, ['/trace/id_source', '/trace/id_tag', '/trace/sampling', '/trace/root/service', '/trace/root/span']),
    h('h3', null, m.phasesDeclared ? 'Phases (declared in trace.phases)' : 'Phases (the defaults: the contract declares none)'),
    h(
      'p',
      { class: 'pw-muted', attrs: { 'data-testid': 'phase-preview' } },
      runs.selected === null
        ? `Which spans of a run these selectors pick shows here once a run is selected. ${runs.reason ?? ''}`.trim()
        : `Spans these selectors pick in ${runLabel(runs)} (the run selected in the Runs view), counted as the analysis selects them:`,
    ),
    h('ul', { class: 'cf-phase-list', attrs: { 'data-testid': 'phases' } }, ...m.phases.map((p) => phaseItem(ctx, p, runs))),
  ];
}

export function gatesSection(ctx: FormContext, runs: RunsStateParams, evaluation: EvaluationParams, version: number, act: EvaluateActions): Node[] {
  const rows = ctx.model.gates.map((g) => {
    const result = evaluatedGate(evaluation, `gates.${g.key}`);
    return h(
      'tr',
      { class: g.applies ? '' : 'cf-na', attrs: { 'data-testid': `gate-${g.key}` } },
      h('th', { attrs: { scope: 'row' } }, g.key),
      h('td', null, fieldRow(ctx, g.pointer, g.key)),
      h('td', { class: 'pw-muted' }, !g.applies ? 'does not apply to this executor' : g.declared ? 'declared' : g.effective === null ? 'no gate (not declared)' : `default ${g.effective} applies`),
      h('td', { class: 'pw-muted cf-desc' }, g.description),
      h('td', { attrs: { 'data-testid': `gate-result-${g.key}` } }, result ? gateBadge(result) : null, result ? ` ${fmtGateValue(result, result.observed)}` : ''),
    );
  });
  return [
    h('table', { class: 'pw-table cf-gates', attrs: { 'data-testid': 'gates' } }, h('thead', null, h('tr', null, h('th', null, 'gate'), h('th', null, 'value'), h('th', null, ''), h('th', null, 'meaning'), h('th', null, 'result'))), h('tbody', null, ...rows)),
    h('h3', null, 'Evaluate against a run'),
    ...evaluateStrip(ctx, runs, evaluation, version, act),
  ];
}

export function windowsSection(ctx: FormContext): Node[] {
  return [fieldGrid(ctx, ['/windows/size'])];
}
