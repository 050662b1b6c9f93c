/**
 * Two runs compared (core compareRuns, as `phasewise compare` prints it): the same-experiment banner
 * first (with every difference when they are not the same experiment), how the intervals were made
 * (confidence, resamples, seed, and what they assume), the owners that moved, then per owner and
 * statistic BASE, HEAD, the difference and its interval with moved rows marked in words as well as
 * colour, the outcome ledgers side by side, and each run's own join (joinTable.ts). Text nodes only.
 */
import type { ShowErrorParams } from '../../src/protocol/common';
import { Copy } from '../../src/protocol/common';
import * as C from '../../src/protocol/compare';
import { decodeJson } from '../../src/protocol/schema';
import type { Comparison, RunSide, StatComparison } from '../../src/core/compare/compareRuns';
import type { Bridge } from '../shared/host';
import { h, replaceChildren, vs } from '../shared/dom';
import { errorBanner, guarded } from '../shared/errors';
import { fmtInt, fmtMs, fmtPct, MISSING, ownerLabel } from '../shared/format';
import { joinTable } from './joinTable';

const STATS = ['p50', 'p95', 'p99'] as const;

/** A signed ms figure (`+12.30 ms`, `−0.41 ms`); null (a non-finite value in the JSON) → —. */
function signedMs(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return MISSING;
  const body = fmtMs(Math.abs(v));
  return v > 0 ? `+${body}` : v < 0 ? `−${body}` : `±${body}`;
}

function movedText(s: StatComparison): string {
  return s.moved ? (s.delta > 0 ? 'moved up' : 'moved down') : '';
}

/** The table as TSV (what Copy puts on the clipboard): one line per owner and statistic. */
export function comparisonTsv(c: Comparison): string {
  const lines = [['metric', 'population', 'stat', 'base_ms', 'head_ms', 'delta_ms', 'ci_low_ms', 'ci_high_ms', 'moved', 'n_base', 'n_head'].join('\t')];
  for (const m of c.metrics) {
    for (const stat of STATS) {
      const s = m.stats[stat];
      const num = (v: number | null | undefined): string => (v === null || v === undefined ? '' : String(v));
      lines.push([m.metric, m.population, stat, num(s?.base), num(s?.head), num(s?.delta), num(s?.ci_low), num(s?.ci_high), s === undefined ? 'no values in one run' : s.moved ? (s.delta > 0 ? 'up' : 'down') : '', String(m.n_base), String(m.n_head)].join('\t'));
    }
  }
  return `${lines.join('\n')}\n`;
}

export class CompareApp {
  private comparison: Comparison | undefined;
  private readonly errorSlot = h('div');

  constructor(
    private readonly root: HTMLElement,
    private readonly bridge: Bridge,
  ) {
    bridge.endpoint.onNotification(C.DidLoad, (p) =>
      this.guard(() => {
        // Saved for the panel's serializer: after a reload the host recomputes this pair.
        bridge.setState(p.state);
        this.load(decodeJson(p.comparison, C.comparisonJson, 'compare/didLoad comparison'));
      }),
    );
    bridge.endpoint.onNotification(C.Status, (p) => this.guard(() => this.status(p)));
  }

  /** A restored panel before its comparison: recomputing, a run no longer open (with Reopen), or a failure. */
  status(p: C.StatusParams): void {
    this.bridge.setState(p.state);
    this.comparison = undefined;
    const reopen = p.can_reopen
      ? vs('vscode-button', {}, { attrs: { 'data-testid': 'reopen', title: 'Open the runs again from their files and recompute the comparison' }, on: { click: () => this.bridge.endpoint.notify(C.Reopen, {}) } }, 'Reopen and compare')
      : null;
    replaceChildren(
      this.root,
      h(
        'main',
        { class: 'cp-app', attrs: { 'data-testid': 'compare-status', 'data-kind': p.kind } },
        h('header', { class: 'cp-head' }, h('h1', null, 'Compare runs'), h('span', { class: 'pw-muted' }, `${p.state.base.label} → ${p.state.head.label}`)),
        p.kind === 'busy'
          ? h('p', { role: 'status', attrs: { 'aria-live': 'polite' } }, p.message)
          : h('div', { class: 'pw-error-banner', role: 'alert' }, p.message),
        reopen,
      ),
    );
  }

  showError(p: ShowErrorParams): void {
    if (!this.root.contains(this.errorSlot)) this.root.prepend(this.errorSlot);
    replaceChildren(this.errorSlot, errorBanner(p));
  }

  redraw(): void {
    // Colours are CSS variables only: nothing is drawn on a canvas, so a theme change needs no redraw.
  }

  private guard(fn: () => void): void {
    guarded(this.bridge.endpoint, 'comparison', (p) => this.showError(p), fn);
  }

  load(c: Comparison): void {
    this.comparison = c;
    const copy = vs('vscode-button', { secondary: true }, { attrs: { 'data-testid': 'copy-tsv', title: 'Copy the table as tab-separated values' }, on: { click: () => this.copy() } }, 'Copy table (TSV)');
    replaceChildren(
      this.root,
      h(
        'main',
        { class: 'cp-app' },
        h('header', { class: 'cp-head' }, h('h1', null, 'Compare runs'), h('span', { class: 'cp-spacer' }), copy),
        experimentBanner(c),
        h(
          'dl',
          { class: 'cp-runs', attrs: { 'data-testid': 'runs' } },
          h('dt', null, 'BASE'),
          h('dd', { class: 'pw-mono' }, c.base.label),
          h('dt', null, 'HEAD'),
          h('dd', { class: 'pw-mono' }, c.head.label),
        ),
        h(
          'p',
          { class: 'cp-method', attrs: { 'data-testid': 'method' } },
          `Intervals: ${Math.round(c.confidence * 1000) / 10} % percentile bootstrap of HEAD − BASE, ${fmtInt(c.resamples)} resamples of each run in blocks of ${c.block.length_s} s of send time (${c.block.rule}; ${fmtInt(c.block.blocks_base)} blocks per BASE resample, ${fmtInt(c.block.blocks_head)} per HEAD), seed ${c.seed}.`,
        ),
        h('p', { class: 'cp-caution pw-muted', attrs: { 'data-testid': 'caution' } }, `Caution: ${c.interval_assumption}.`),
        movedSection(c),
        section('cp-table', 'Per owner and statistic', metricTable(c)),
        section('cp-sides', 'Outcome ledgers', sidesTable(c.base, c.head)),
        section('cp-joins', 'Joins: each run by its own key', joinTable(c.base, c.head)),
      ),
    );
  }

  private copy(): void {
    if (this.comparison !== undefined) this.bridge.endpoint.notify(Copy, { text: comparisonTsv(this.comparison), what: 'comparison table (TSV)' });
  }
}

function section(id: string, title: string, ...children: Node[]): HTMLElement {
  return h('section', { id, class: 'cp-section', attrs: { 'aria-labelledby': `${id}-h` } }, h('h2', { id: `${id}-h` }, title), ...children);
}

function experimentBanner(c: Comparison): HTMLElement {
  if (c.same_experiment) {
    return h('section', { class: 'cp-banner cp-same', role: 'status', attrs: { 'data-testid': 'experiment' } }, h('strong', null, 'Same experiment: '), 'the contracts\u2019 workload, request and trace sections, the inputs and the analysis settings agree.');
  }
  const n = c.differences.length;
  return h(
    'section',
    { class: 'cp-banner cp-different', role: 'alert', attrs: { 'data-testid': 'experiment' } },
    h('div', { class: 'cp-banner-head' }, `Different experiments: ${n} difference${n === 1 ? '' : 's'}`),
    h('div', null, 'The changes below may come from these differences, not from the release.'),
    h('ul', { attrs: { 'data-testid': 'differences' } }, ...c.differences.map((d) => h('li', { class: 'pw-mono' }, d))),
  );
}

function movedSection(c: Comparison): HTMLElement {
  const body =
    c.moved.length === 0
      ? h('p', { attrs: { 'data-testid': 'moved' } }, 'None: every interval includes zero.')
      : h(
          'ul',
          { class: 'cp-moved', attrs: { 'data-testid': 'moved' } },
          ...c.moved.map((m) =>
            h(
              'li',
              { class: m.delta > 0 ? 'cp-up' : 'cp-down' },
              h('strong', null, `${ownerLabel(m.metric)} ${m.stat}`),
              ` ${m.delta > 0 ? '▲ up' : '▼ down'} ${signedMs(m.delta)}: ${fmtMs(m.base)} → ${fmtMs(m.head)}, interval [${signedMs(m.ci_low)}, ${signedMs(m.ci_high)}]`,
            ),
          ),
        );
  return section('cp-moved', `Moved beyond their interval (${c.moved.length})`, body);
}

function metricTable(c: Comparison): HTMLElement {
  const head = h(
    'tr',
    null,
    ...['owner', 'stat', 'BASE', 'HEAD', 'Δ HEAD − BASE', `${Math.round(c.confidence * 100)} % interval`, 'moved'].map((t, i) => h('th', { class: i >= 2 && i <= 5 ? 'pw-num' : undefined, attrs: { scope: 'col' } }, t)),
  );
  const rows: HTMLElement[] = [];
  for (const m of c.metrics) {
    const present = STATS.filter((stat) => m.stats[stat] !== undefined);
    const owner = h('th', { attrs: { scope: 'rowgroup', rowspan: Math.max(1, present.length) } }, h('div', null, ownerLabel(m.metric)), h('div', { class: 'pw-muted cp-n' }, `${m.population}, n ${fmtInt(m.n_base)} → ${fmtInt(m.n_head)}`));
    if (present.length === 0) {
      rows.push(h('tr', { attrs: { 'data-metric': m.metric, 'data-stat': 'all' } }, owner, h('td', null, 'all'), h('td', { class: 'pw-muted', attrs: { colspan: 5 } }, 'no values in one run')));
      continue;
    }
    present.forEach((stat, i) => {
      const s = m.stats[stat] as StatComparison;
      const cells: HTMLElement[] = i === 0 ? [owner] : [];
      cells.push(
        h('td', null, stat),
        h('td', { class: 'pw-num' }, fmtMs(s.base)),
        h('td', { class: 'pw-num' }, fmtMs(s.head)),
        h('td', { class: 'pw-num cp-delta' }, signedMs(s.delta)),
        h('td', { class: 'pw-num' }, `[${signedMs(s.ci_low)}, ${signedMs(s.ci_high)}]`),
        h('td', { class: 'cp-flag' }, s.moved ? `${s.delta > 0 ? '▲' : '▼'} ${movedText(s)}` : ''),
      );
      const dir = s.moved ? (s.delta > 0 ? 'up' : 'down') : null;
      rows.push(h('tr', { class: dir !== null ? `cp-row-${dir}` : undefined, attrs: { 'data-metric': m.metric, 'data-stat': stat, 'data-moved': dir } }, ...cells));
    });
  }
  return h('div', { class: 'cp-scroll' }, h('table', { class: 'pw-table cp-metrics', attrs: { 'data-testid': 'metrics' } }, h('thead', null, head), h('tbody', null, ...rows)));
}

function sidesTable(b: RunSide, hd: RunSide): HTMLElement {
  const o = (s: RunSide) => s.outcomes;
  const rows: [string, (s: RunSide) => string][] = [
    ['started', (s) => fmtInt(o(s).started)],
    ['succeeded', (s) => fmtInt(o(s).succeeded)],
    ['rejected', (s) => fmtInt(o(s).rejected)],
    ['timed out', (s) => fmtInt(o(s).timed_out)],
    ['transport failed', (s) => fmtInt(o(s).transport_failed)],
    ['canceled', (s) => fmtInt(o(s).canceled)],
    ['failed', (s) => fmtInt(o(s).failed)],
    ['dropped by the generator', (s) => fmtInt(o(s).generator_dropped)],
    ['error rate', (s) => fmtPct(o(s).error_rate)],
  ];
  return h(
    'table',
    { class: 'pw-table cp-ledger', attrs: { 'data-testid': 'ledgers' } },
    h('thead', null, h('tr', null, h('th', { attrs: { scope: 'col' } }, ''), h('th', { class: 'pw-num', attrs: { scope: 'col' } }, 'BASE'), h('th', { class: 'pw-num', attrs: { scope: 'col' } }, 'HEAD'))),
    h('tbody', null, ...rows.map(([label, f]) => h('tr', { attrs: { 'data-row': label } }, h('th', { attrs: { scope: 'row' } }, label), h('td', { class: 'pw-num' }, f(b)), h('td', { class: 'pw-num' }, f(hd))))),
  );
}
