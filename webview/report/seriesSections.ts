/**
 * The report's time sections in text (issue 17 §2–3): the diagnoses of the symptom table (code, title,
 * the evidence with its figures, windows and n, the first thing to check; or that nothing fired) and
 * the worst window per SLO metric with the owner that grew there. Text nodes only.
 */
import type { Diagnosis, EvidenceItem, Report, WindowSeries, WorstWindow } from '../../src/core/report/model';
import { h } from '../shared/dom';
import { fmtDelta, fmtInt, fmtMs, fmtPct, MISSING, ownerLabel } from '../shared/format';
import { section } from './sections';

/** An evidence value in its unit: ms, ms/token, or a plain count (in flight). */
function evidenceValue(e: EvidenceItem, v: number | null): string {
  if (v === null) return MISSING;
  if (e.figure === 'in_flight') return v.toFixed(1);
  if (e.figure.endsWith('_per_output_token')) return `${fmtMs(v, false)} ms/token`;
  return fmtMs(v);
}

function evidenceTable(d: Diagnosis, testid: string): HTMLElement {
  const head = ['figure', 'stat', 'moved', 'from window', 'to window', 'from', 'to', 'change', 'n', ''];
  return h(
    'table',
    { class: 'pw-table rp-evidence', attrs: { 'data-testid': testid } },
    h('thead', null, h('tr', null, ...head.map((c, i) => h('th', { class: i >= 5 && i <= 8 ? 'pw-num' : '' }, c)))),
    h(
      'tbody',
      null,
      ...d.evidence.map((e) =>
        h(
          'tr',
          { attrs: { 'data-figure': e.figure } },
          h('td', { class: 'pw-mono' }, e.figure),
          h('td', null, e.stat),
          h('td', null, e.role === 'correlated' && e.r !== undefined ? `correlated (r = ${e.r.toFixed(2)})` : e.role),
          h('td', null, `#${e.from_window}`),
          h('td', null, `#${e.to_window}`),
          h('td', { class: 'pw-num' }, evidenceValue(e, e.from)),
          h('td', { class: 'pw-num' }, evidenceValue(e, e.to)),
          h('td', { class: 'pw-num' }, `${e.change === null ? MISSING : e.figure === 'in_flight' ? e.change.toFixed(1) : fmtDelta(e.change)}${e.relative === null ? '' : ` (${e.relative >= 0 ? '+' : ''}${fmtPct(e.relative)})`}`),
          h('td', { class: 'pw-num' }, `${e.n_from === null ? MISSING : fmtInt(e.n_from)} → ${e.n_to === null ? MISSING : fmtInt(e.n_to)}`),
          h('td', { class: 'pw-muted rp-evidence-text' }, e.text),
        ),
      ),
    ),
  );
}

export function diagnosesSection(r: Report): HTMLElement {
  const st = r.diagnosis_status;
  const basis = st.basis === 'stages' ? "the contract's stages" : `${fmtInt(st.windows_compared)} windows with enough matched successes`;
  const items = r.diagnoses.map((d, i) =>
    h(
      'article',
      { class: 'rp-diagnosis', attrs: { 'data-testid': `diagnosis-${i}`, 'data-code': d.code, 'aria-labelledby': `diagnosis-${i}-h` } },
      h('h3', { id: `diagnosis-${i}-h` }, h('span', { class: 'rp-code pw-mono' }, d.code), ' ', d.title),
      evidenceTable(d, `diagnosis-${i}-evidence`),
      h('p', { class: 'rp-first-check', attrs: { 'data-testid': `diagnosis-${i}-first-check` } }, h('strong', null, 'First check: '), d.first_check),
    ),
  );
  return section(
    'diagnoses',
    r.diagnoses.length > 0 ? `Diagnoses (${r.diagnoses.length})` : 'Diagnoses: nothing fired',
    h('p', { class: r.diagnoses.length > 0 ? 'rp-warn' : 'pw-muted', attrs: { 'data-testid': 'diagnoses-summary' } }, st.summary, ` (read from how the owners moved together over ${basis}).`),
    ...items,
    st.not_evaluated.length > 0
      ? h('div', { attrs: { 'data-testid': 'diagnoses-not-evaluated' } }, h('h3', null, 'Not evaluated'), h('ul', null, ...st.not_evaluated.map((x) => h('li', null, h('span', { class: 'pw-mono' }, x.code), `: ${x.why}`))))
      : null,
  );
}

function grew(w: WorstWindow): string {
  if (w.owner_grew === null) return 'no owner grew';
  const g = w.owner_grew;
  return `${ownerLabel(g.owner)}: mean ${fmtMs(g.typical_mean_ms)} → ${fmtMs(g.worst_mean_ms)} (${fmtDelta(g.delta_ms)})`;
}

export function worstWindowsTable(s: WindowSeries): HTMLElement {
  if (s.worst.length === 0) return h('p', { class: 'pw-muted', attrs: { 'data-testid': 'series-worst' } }, 'No window has enough matched successful requests to pick a worst window.');
  const head = ['SLO figure', 'source', 'worst window', 'value', 'n', 'typical window', 'owner that grew'];
  return h(
    'table',
    { class: 'pw-table', attrs: { 'data-testid': 'series-worst' } },
    h('thead', null, h('tr', null, ...head.map((c, i) => h('th', { class: i === 3 || i === 4 || i === 5 ? 'pw-num' : '' }, c)))),
    h(
      'tbody',
      null,
      ...s.worst.map((w) => {
        const win = s.windows.find((x) => x.index === w.window);
        const span = win === undefined ? '' : ` (${fmtInt(win.start_offset_ms / 1000)}–${fmtInt(win.end_offset_ms / 1000)} s)`;
        return h(
          'tr',
          { attrs: { 'data-metric': `${w.metric}.${w.stat}` } },
          h('th', { class: 'pw-mono', attrs: { scope: 'row' } }, `${w.metric} ${w.stat}`),
          h('td', null, w.source === 'default' ? 'default SLO figure' : `gate ${w.source}`),
          h('td', null, `${win?.label ?? `#${w.window}`}${span}`),
          h('td', { class: 'pw-num' }, fmtMs(w.value)),
          h('td', { class: 'pw-num' }, fmtInt(w.n)),
          h('td', { class: 'pw-num' }, fmtMs(w.typical)),
          h('td', null, grew(w)),
        );
      }),
    ),
  );
}
