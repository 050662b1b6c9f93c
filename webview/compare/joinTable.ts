/**
 * Each run's own join side by side, row for row and in the words `phasewise compare` prints (the rows
 * come from core/compare/joinRows.ts, which the CLI's text uses too): the key, coverage ("not
 * applicable" for a run without a join key), orphan and lost roots, the colliding IDs and each kind
 * of collision indented under them; a request-ID side's span attribute is named under the table in
 * the CLI's sentence. Counts group thousands as the rest of the panel does.
 */
import type { RunSide } from '../../src/core/compare/compareRuns';
import { joinRows, keyNotes, type JoinFormat } from '../../src/core/compare/joinRows';
import { h } from '../shared/dom';
import { fmtInt, fmtPct } from '../shared/format';

const FORMAT: JoinFormat = { count: fmtInt, share: fmtPct, of: (n, total) => `${fmtInt(n)} of ${fmtInt(total)}` };

export function joinTable(b: RunSide, hd: RunSide): HTMLElement {
  const col = (t: string): HTMLElement => h('th', { class: 'pw-num', attrs: { scope: 'col' } }, t);
  const hr = joinRows(hd.join, FORMAT);
  const table = h(
    'table',
    { class: 'pw-table cp-ledger cp-join', attrs: { 'data-testid': 'joins' } },
    h('thead', null, h('tr', null, h('th', { attrs: { scope: 'col' } }, 'join'), col('BASE'), col('HEAD'))),
    h(
      'tbody',
      null,
      ...joinRows(b.join, FORMAT).map((r, i) =>
        h('tr', { class: r.sub ? 'cp-sub' : undefined, attrs: { 'data-row': r.label } }, h('th', { attrs: { scope: 'row' } }, r.label), h('td', { class: 'pw-num' }, r.text), h('td', { class: 'pw-num' }, hr[i].text)),
      ),
    ),
  );
  const notes = keyNotes(b.join, hd.join);
  return h(
    'div',
    { class: 'cp-scroll' },
    table,
    notes.length > 0 ? h('ul', { class: 'cp-key-notes pw-muted', attrs: { 'data-testid': 'join-keys' } }, ...notes.map((n) => h('li', null, n))) : null,
  );
}
