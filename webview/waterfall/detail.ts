/**
 * The detail pane of the selected span: figures, GenAI badges, attributes (with a filter box; masked
 * values stay masked), events, status and resource. Every value is a text node.
 */
import type { TraceSpan } from '../../src/core/analysis/trace/types';
import { h, replaceChildren, vs } from '../shared/dom';
import { fmtInt, fmtMs, ownerLabel } from '../shared/format';
import type { TraceIndex } from './model';

export class SpanDetail {
  readonly element: HTMLElement;
  private filter = '';
  private current: number | null = null;
  private attrBody: HTMLTableSectionElement | null = null;
  private attrCount: HTMLElement | null = null;

  constructor(
    private readonly index: TraceIndex,
    private readonly onClose: () => void,
  ) {
    this.element = h('aside', { class: 'wf-detail', attrs: { 'aria-label': 'span detail', 'data-testid': 'span-detail' } });
  }

  get row(): number | null {
    return this.current;
  }

  show(i: number): void {
    this.current = i;
    const s = this.index.model.spans[i];
    const ix = this.index;
    const critical = ix.criticalPath();
    const close = vs<HTMLElement>('vscode-button', { secondary: true }, { class: 'close', title: 'Close the detail (Escape)', attrs: { 'aria-label': 'close span detail' } }, 'Close');
    close.addEventListener('click', () => this.onClose());
    const badges = h('div', { class: 'badges' });
    const badge = (text: string, title: string): void => void badges.appendChild(h('span', { class: 'pw-badge', title }, text));
    badge(s.kind, 'span kind');
    badge(`status ${s.status}`, 'span status');
    if (s.phase) badge(`phase ${ownerLabel(s.phase)}`, 'the first phase whose selector picks this span');
    if (s.shared_copy) badge('same span ID, another observer', 'B3 shared span: a later copy of the span ID of the row above; counts in no phase');
    if (s.genai) {
      if (s.genai.operation) badge(`gen_ai ${s.genai.operation}`, 'gen_ai.operation.name');
      if (s.genai.model) badge(`model ${s.genai.model}`, 'gen_ai.response.model / gen_ai.request.model');
      if (s.genai.input_tokens !== null) badge(`in ${fmtInt(s.genai.input_tokens)} tokens`, 'gen_ai.usage.input_tokens');
      if (s.genai.output_tokens !== null) badge(`out ${fmtInt(s.genai.output_tokens)} tokens`, 'gen_ai.usage.output_tokens');
    }
    const parent = s.parent_index !== null ? this.index.model.spans[s.parent_index] : null;
    const facts: [string, string][] = [
      ['duration', fmtMs(s.duration_ms)],
      ['start', `${fmtMs(s.start_ms)} from the root start`],
      ['self time', fmtMs(ix.selfTime(i))],
      ['critical path', critical.onPath[i] === 1 ? `on it, ${fmtMs(critical.selfMs[i])} of its own time` : 'not on it'],
      ['service', s.service ?? '—'],
      ['span ID', s.span_id],
      ['parent', parent ? `${parent.name} (${parent.span_id})` : (s.parent_span_id ?? 'none (top-most)')],
      ['source', s.source ? `${s.source}${s.line !== null ? `:${s.line}` : ''}` : '—'],
    ];
    const dl = h('dl');
    for (const [k, v] of facts) dl.append(h('dt', null, k), h('dd', { class: k === 'span ID' || k === 'source' ? 'pw-mono' : '' }, v));

    const filterBox = vs<HTMLInputElement>('vscode-textfield', { placeholder: 'Filter attributes', value: this.filter }, { attrs: { 'aria-label': 'filter attributes', 'data-testid': 'attr-filter' } });
    filterBox.addEventListener('input', () => {
      this.filter = filterBox.value;
      this.fillAttributes(s);
    });
    this.attrCount = h('span', { class: 'pw-muted' });
    this.attrBody = h('tbody');
    const events = s.events.length
      ? h(
          'table',
          { class: 'pw-table', attrs: { 'data-testid': 'events' } },
          h('thead', null, h('tr', null, h('th', null, 'event'), h('th', { class: 'pw-num' }, 'at'), h('th', { class: 'pw-num' }, 'into span'))),
          h('tbody', null, ...s.events.map((e) => h('tr', null, h('td', null, e.name), h('td', { class: 'pw-num' }, fmtMs(e.time_ms)), h('td', { class: 'pw-num' }, fmtMs(e.time_ms - s.start_ms))))),
        )
      : h('p', { class: 'pw-muted' }, 'no events');
    replaceChildren(
      this.element,
      close,
      h('h2', null, s.name),
      badges,
      dl,
      h('h3', null, 'Attributes ', this.attrCount),
      filterBox,
      h('table', { class: 'pw-table', attrs: { 'data-testid': 'attributes' } }, this.attrBody),
      h('h3', null, 'Events'),
      events,
      h('h3', null, 'Resource'),
      h('dl', null, h('dt', null, 'service.name'), h('dd', null, s.service ?? '—')),
      ...this.index.model.limits.map((l) => h('p', { class: 'pw-muted' }, l)),
    );
    this.fillAttributes(s);
  }

  private fillAttributes(s: TraceSpan): void {
    if (this.attrBody === null || this.attrCount === null) return;
    const q = this.filter.trim().toLowerCase();
    const shown = s.attributes.filter((a) => q === '' || a.key.toLowerCase().includes(q) || (!a.masked && a.value.toLowerCase().includes(q)));
    replaceChildren(
      this.attrBody,
      ...shown.map((a) =>
        h('tr', null, h('td', { class: 'k pw-mono' }, a.key), h('td', { class: `v pw-mono${a.masked ? ' masked' : ''}`, title: a.masked ? 'masked: Phasewise never shows prompt, completion or credential values' : '' }, a.value)),
      ),
    );
    if (shown.length === 0) this.attrBody.appendChild(h('tr', null, h('td', { class: 'pw-muted', attrs: { colspan: 2 } }, s.attributes.length === 0 ? 'no attributes' : 'no attribute matches the filter')));
    this.attrCount.textContent = q === '' || s.attributes.length === 0 ? `(${s.attributes.length})` : `(${shown.length} of ${s.attributes.length})`;
  }
}
