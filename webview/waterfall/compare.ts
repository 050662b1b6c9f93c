/**
 * "Compare with a typical trace": the deltas between this trace and the median matched success of
 * its route, per figure of the breakdown and per span name (the largest first).
 */
import type { FigureDelta, TraceComparison } from '../../src/core/analysis/trace/types';
import { h, vs } from '../shared/dom';
import { fmtDelta, fmtDuration, fmtInt, ownerLabel } from '../shared/format';

const SPAN_NAMES_SHOWN = 8;

function deltaCell(d: FigureDelta): HTMLElement {
  const cls = d.delta_ms === null ? '' : d.delta_ms > 0 ? 'delta-pos' : d.delta_ms < 0 ? 'delta-neg' : '';
  return h('td', { class: `pw-num ${cls}` }, fmtDelta(d.delta_ms));
}

function table(title: string, rows: readonly FigureDelta[], label: (n: string) => string, testid: string): HTMLElement {
  return h(
    'table',
    { class: 'pw-table', attrs: { 'data-testid': testid } },
    h('thead', null, h('tr', null, h('th', null, title), h('th', { class: 'pw-num' }, 'this trace'), h('th', { class: 'pw-num' }, 'typical'), h('th', { class: 'pw-num' }, 'delta'))),
    h('tbody', null, ...rows.map((d) => h('tr', null, h('td', null, label(d.name)), h('td', { class: 'pw-num' }, fmtDuration(d.slow_ms)), h('td', { class: 'pw-num' }, fmtDuration(d.typical_ms)), deltaCell(d)))),
  );
}

/** One sentence naming the largest phase deltas, e.g. "generation +8.10 s, gpu queue +0.30 s". */
export function deltaSentence(c: TraceComparison): string {
  const phases = c.phases.filter((d) => d.name !== 'client_total' && d.delta_ms !== null && Math.abs(d.delta_ms) > 0);
  phases.sort((a, b) => Math.abs(b.delta_ms ?? 0) - Math.abs(a.delta_ms ?? 0));
  return phases.slice(0, 3).map((d) => `${ownerLabel(d.name)} ${fmtDelta(d.delta_ms)}`).join(', ');
}

export function comparisonPanel(c: TraceComparison, onOpen: (traceId: string) => void): HTMLElement {
  const open = vs<HTMLElement>('vscode-button', { secondary: true }, { title: 'Open the typical trace in its own waterfall' }, 'Open typical trace');
  open.addEventListener('click', () => onOpen(c.typical.trace_id));
  const total = c.phases.find((d) => d.name === 'client_total');
  return h(
    'section',
    { class: 'wf-compare', attrs: { 'aria-label': 'comparison with a typical trace', 'data-testid': 'comparison' } },
    h(
      'div',
      null,
      h('h2', null, `Compared with a typical trace: ${deltaSentence(c) || 'no phase differs'}`),
      h('p', { class: 'pw-muted' }, `The median-duration matched success of ${c.group} (${fmtInt(c.group_size)} matched successes): `, h('span', { class: 'pw-mono' }, c.typical.trace_id), `, client total ${fmtDuration(total?.typical_ms ?? null)}.`),
      open,
    ),
    table('figure', c.phases, (n) => ownerLabel(n), 'compare-phases'),
    table(`span name (Σ duration, ${Math.min(SPAN_NAMES_SHOWN, c.span_names.length)} of ${c.span_names.length})`, c.span_names.slice(0, SPAN_NAMES_SHOWN), (n) => n, 'compare-spans'),
  );
}
