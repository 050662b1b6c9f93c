/**
 * The top of the waterfall view: the trace's badges and notes, the colour legend, and the summary
 * (the request strip beside the `phasewise reconcile` lines with their copy button).
 */
import type { TraceModel } from '../../src/core/analysis/trace/types';
import { h, vs } from '../shared/dom';
import { fmtDuration, fmtInt, ownerLabel } from '../shared/format';
import type { Palette } from '../shared/theme';
import { requestStrip } from './strip';

export function phaseLegend(t: TraceModel, colors: Palette): HTMLElement {
  const item = (name: string | null, label: string): HTMLElement => {
    const sw = h('span', { class: 'pw-swatch' });
    sw.style.background = colors.owner(name);
    return h('span', null, sw, label);
  };
  return h('div', { class: 'wf-legend', attrs: { 'aria-label': 'colours' } }, ...t.phases.map((p) => item(p, ownerLabel(p))), item(null, 'no phase'));
}

/** `back`: a link to the report (an exported report file holds both views). */
export function traceHeader(t: TraceModel, colors: Palette, back: boolean): HTMLElement {
  const b = t.breakdown;
  return h(
    'header',
    { class: 'wf-head' },
    back ? h('a', { class: 'pw-link wf-back', attrs: { href: '#report' } }, '← Report') : null,
    h('h1', null, 'Trace ', h('span', { class: 'pw-mono', attrs: { 'data-testid': 'trace-id' } }, t.trace_id)),
    h('span', { class: 'pw-badge', title: t.matched ? 'counts in the decomposition population' : 'not in the decomposition population' }, t.matched ? 'matched' : 'not matched'),
    h('span', { class: 'pw-badge' }, `${fmtInt(t.spans.length)} spans`),
    h('span', { class: 'pw-badge' }, `outcome ${b.outcome}`),
    b.client_total_ms !== null ? h('span', { class: 'pw-badge' }, `client ${fmtDuration(b.client_total_ms)}`) : null,
    t.client?.route ? h('span', { class: 'pw-badge' }, `route ${t.client.route}`) : null,
    h('span', { class: 'wf-spacer' }),
    phaseLegend(t, colors),
    t.notes.length > 0 ? h('ul', { class: 'wf-notes', attrs: { 'data-testid': 'notes' } }, ...t.notes.map((n) => h('li', null, n))) : null,
  );
}

export function traceSummary(t: TraceModel, colors: Palette, onCopy: (text: string) => void): HTMLElement {
  const copy = vs<HTMLElement>('vscode-button', { secondary: true }, { title: 'Copy the reconciliation lines (as phasewise reconcile prints them)', attrs: { 'data-testid': 'copy-reconciliation' } }, 'Copy');
  const text = t.reconciliation.join('\n');
  copy.addEventListener('click', () => {
    onCopy(text);
    copy.textContent = 'Copied';
    setTimeout(() => (copy.textContent = 'Copy'), 1500);
  });
  return h(
    'section',
    { class: 'wf-summary', attrs: { 'aria-label': 'the request, both sides' } },
    requestStrip(t, colors),
    h('div', { class: 'wf-recon' }, h('div', { class: 'wf-recon-head' }, h('span', { class: 'pw-muted' }, 'phasewise reconcile'), copy), h('pre', { class: 'pw-mono', attrs: { 'data-testid': 'reconciliation' } }, text)),
  );
}
