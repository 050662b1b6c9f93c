/**
 * The run report view: the verdict first, then coverage, who owns the tail, the charts (windows and the
 * envelope histogram, each click listing its traces), the quantile tables, the slow traces, the
 * ledger, the gates and the configuration. Charts are rebuilt with the theme's colours on change.
 */
import type { ShowErrorParams } from '../../src/protocol/common';
import * as R from '../../src/protocol/report';
import { decodeJson } from '../../src/protocol/schema';
import type { ReportViewModel } from '../../src/core/report/view/types';
import type { Bridge } from '../shared/host';
import { h, replaceChildren, vs } from '../shared/dom';
import { errorBanner, guarded } from '../shared/errors';
import { fmtInt, fmtMs } from '../shared/format';
import { palette } from '../shared/theme';
import { envelopeChart, windowCountsChart, windowOwnersChart, type Chart } from './charts';
import { configurationSection, gatesSection, joinSection, ledgerSection, quantileTable, section, tailSection, traceTable, verdictBanner } from './sections';
import { definitionsSection, groupsSection, joinBiasSection, provenanceSection, userObservedSection } from './populationSections';
import { fmtSpan, seriesCharts } from './seriesCharts';
import { diagnosesSection, worstWindowsTable } from './seriesSections';

const LIST_LIMIT = 20;

export class ReportApp {
  private model: ReportViewModel | undefined;
  private run: string | null = null;
  private charts: Chart[] = [];
  private seriesChartList: Chart[] = [];
  /** Which render a deferred series drawing belongs to (a newer render supersedes it). */
  private renderSeq = 0;
  /** Which quantile the window series' owner charts show. */
  private seriesStat: 'p50' | 'p95' = 'p95';
  private errorSlot = h('div');
  private listSlot = h('div', { class: 'rp-list', attrs: { 'aria-live': 'polite', 'data-testid': 'trace-list' } });
  private selection: R.TraceSelectionParams | null = null;
  private listSeq = 0;
  lastLoadMs = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly bridge: Bridge,
  ) {
    bridge.endpoint.onNotification(R.DidLoad, (p) => this.guard(() => this.load(p.run, decodeJson(p.model, R.reportViewModelJson, 'report/didLoad model'), p.state ?? null)));
    window.addEventListener('scroll', () => this.saveSoon(), { passive: true });
  }

  showError(p: ShowErrorParams): void {
    if (!this.root.contains(this.errorSlot)) this.root.prepend(this.errorSlot);
    replaceChildren(this.errorSlot, errorBanner(p));
  }

  redraw(): void {
    if (this.model !== undefined) this.render(this.model);
  }

  private guard(fn: () => void): void {
    guarded(this.bridge.endpoint, 'report', (p) => this.showError(p), fn);
  }


  load(run: string | null, model: ReportViewModel, state: R.ReportViewState | null): void {
    const t0 = performance.now();
    this.run = run;
    this.model = model;
    // The series charts sit far below the fold: on a first load they are drawn in the frames after the
    // one that shows the report's top. A restored scroll position needs the full height at once.
    this.render(model, (state?.scroll_y ?? 0) === 0);
    const sel = state?.selection as R.TraceSelectionParams | null | undefined;
    if (sel && R.traceSelection.check(sel, 'selection') === undefined) void this.list(sel);
    if (state?.scroll_y !== undefined) window.scrollTo(0, state.scroll_y);
    this.lastLoadMs = performance.now() - t0;
    this.root.dataset.loadedRun = run ?? 'standalone';
    // Saved at once, not only on a scroll: the host's serializer restores the panel after a reload
    // only from state the webview saved (it says which run the panel shows).
    this.saveSoon();
  }

  private render(m: ReportViewModel, deferSeries = false): void {
    for (const c of [...this.charts, ...this.seriesChartList]) c.destroy();
    this.charts = [];
    this.seriesChartList = [];
    const r = m.report;
    const p = palette(m.configuration.phases.map((x) => x.name));
    const phases = m.configuration.phases.map((x) => x.name);
    const owners = ['network_envelope', ...phases, 'unattributed_server'];
    const exportButtons = (['markdown', 'json', 'html'] as const).map((format) => {
      const b = vs<HTMLElement>('vscode-button', { secondary: true }, { title: `Export the report as ${format}` }, format === 'markdown' ? 'Markdown' : format.toUpperCase());
      b.addEventListener('click', () => this.bridge.endpoint.notify(R.ExportReport, { format }));
      return b;
    });
    const windowsCharts = h('div', { class: 'rp-charts' });
    const histogram = h('div', { class: 'rp-charts' });
    const seriesBox = h('div', { class: 'rp-charts', attrs: { 'data-testid': 'series-charts' } });
    const openTrace = (id: string): void => this.bridge.endpoint.notify(R.OpenTrace, { trace_id: id });
    const hist = m.envelope_histogram;
    const main = h(
      'main',
      { class: 'rp-app' },
      h('header', { class: 'rp-head' }, h('h1', null, m.title), h('span', { class: 'pw-muted' }, `phasewise ${r.phasewise_version}`), h('span', { class: 'rp-spacer' }), h('span', { class: 'pw-muted' }, 'Export'), ...exportButtons),
      this.errorSlot,
      verdictBanner(r),
      joinSection(r),
      joinBiasSection(r),
      tailSection(r, p),
      diagnosesSection(r),
      groupsSection(r, p),
      section(
        'windows',
        `Per window (${fmtInt(r.windows.size_ms / 1000)} s each)`,
        h('p', { class: 'pw-muted' }, r.windows.worst !== null ? `The shaded window #${r.windows.worst} has the highest client p95. Click a window (or focus a chart, move with ←/→ and press Enter) to list its slowest traces.` : 'No window has matched successes.'),
        windowsCharts,
      ),
      this.seriesSection(r, seriesBox),
      section(
        'envelope',
        'Network envelope (client total − server root, per request)',
        h('p', { class: 'pw-muted' }, `${fmtInt(hist.n)} matched successes; ${fmtInt(hist.negative)} negative (highlighted and hatched: the root outlasts the client request). Click a bucket to list its traces.`),
        histogram,
      ),
      this.listSlot,
      section(
        'quantiles',
        'Quantiles',
        quantileTable('Decomposition', 'matched successful requests', r.metrics, 'q-matched'),
        quantileTable('Client only', 'all successful client requests (comparable with k6)', r.client_only, 'q-client'),
        quantileTable('Server only', 'all server roots', r.server_only, 'q-server'),
      ),
      userObservedSection(r),
      section('slow', `Slow traces (${r.slow_traces.length})`, r.slow_traces.length > 0 ? traceTable(r.slow_traces, phases, openTrace, 'slow-traces') : h('p', { class: 'pw-muted' }, 'no matched successes')),
      ledgerSection(r),
      gatesSection(r, m.gate_links, (g, link) => this.bridge.endpoint.notify(R.OpenContract, { path: link.path, line: link.line, gate: g.id })),
      configurationSection(m.configuration),
      provenanceSection(r),
      definitionsSection(r),
      r.warnings.length > 0 ? section('warnings', 'Warnings', h('ul', null, ...r.warnings.map((w) => h('li', null, w)))) : null,
    );
    replaceChildren(this.root, main);
    if (r.windows.windows.length > 0) {
      const pick = (index: number): void => void this.list({ kind: 'window', index });
      this.charts.push(windowCountsChart(windowsCharts, r.windows, p, pick));
      this.charts.push(windowOwnersChart(windowsCharts, r.windows, m.window_owners, owners, p, pick));
      windowsCharts.appendChild(this.ownersLegend(owners, p));
    }
    const seq = ++this.renderSeq;
    delete this.root.dataset.seriesDrawn;
    const draw = (): void => {
      if (seq === this.renderSeq) this.drawSeries(seriesBox, p);
    };
    // Two frames: the first lays out and paints the report's top, the second shows it; then the series.
    if (deferSeries) requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => this.guard(draw), 0)));
    else this.drawSeries(seriesBox, p);
    if (hist.bins.length > 0) this.charts.push(envelopeChart(histogram, hist, p, (from, to) => void this.list({ kind: 'envelope', from_ms: from, to_ms: to })));
    if (this.selection !== null) void this.list(this.selection);
  }

  /** The window series: what it is, the p50/p95 switch, the worst window per SLO metric, then the charts. */
  private seriesSection(r: ReportViewModel['report'], box: HTMLElement): HTMLElement | null {
    const s = r.window_series;
    if (s.windows.length === 0) return null;
    const kind = s.kind === 'sliding' ? `${fmtSpan(s.size_ms)} windows sliding by ${fmtSpan(s.slide_ms)}` : s.kind === 'stages' ? "the contract's stages" : `fixed ${fmtSpan(s.size_ms)} windows`;
    const pickable = this.seriesPickable(r);
    const switches = (['p50', 'p95'] as const).map((k) => {
      const b = h('button', { class: 'pw-toggle', attrs: { type: 'button', 'aria-pressed': String(this.seriesStat === k), 'data-stat': k } }, k);
      b.addEventListener('click', () => {
        this.seriesStat = k;
        for (const x of switches) x.setAttribute('aria-pressed', String(x.dataset.stat === k));
        if (this.model !== undefined) this.drawSeries(box, palette(this.model.configuration.phases.map((x) => x.name)));
      });
      return b;
    });
    return section(
      'series',
      `Window series (${kind}, ${fmtInt(s.windows.length)} windows)`,
      h('p', { class: 'pw-muted' }, `Rates by send (scheduled, started) and end time; in flight is the mean number of requests in flight; owner figures are over each window's matched successes. Shaded: the worst window of each SLO figure. Focus a chart and move with ←/→ for a window's figures${pickable ? '; Enter lists its traces' : ''}.`),
      worstWindowsTable(s),
      h('div', { class: 'rp-switch', role: 'group', attrs: { 'aria-label': 'owner charts show' } }, h('span', { class: 'pw-muted' }, 'owner charts show '), ...switches),
      box,
    );
  }

  /** Fixed series windows on the report's window grid list their traces as the window charts do. */
  private seriesPickable(r: ReportViewModel['report']): boolean {
    return r.window_series.kind === 'fixed' && r.window_series.size_ms === r.windows.size_ms;
  }

  private drawSeries(box: HTMLElement, p: ReturnType<typeof palette>): void {
    for (const c of this.seriesChartList) c.destroy();
    replaceChildren(box);
    const r = this.model?.report;
    if (r === undefined || r.window_series.windows.length === 0) {
      this.root.dataset.seriesDrawn = 'true';
      return;
    }
    const pickable = this.seriesPickable(r);
    this.seriesChartList = seriesCharts(box, { series: r.window_series, stat: this.seriesStat, p, onPick: (w) => (pickable ? void this.list({ kind: 'window', index: w.index }) : undefined) });
    this.root.dataset.seriesDrawn = 'true';
  }

  private ownersLegend(owners: readonly string[], p: ReturnType<typeof palette>): HTMLElement {
    const item = (color: string, label: string): HTMLElement => {
      const sw = h('span', { class: 'pw-swatch' });
      sw.style.background = color;
      return h('span', null, sw, label);
    };
    return h('div', { class: 'rp-legend' }, item(p.foreground, 'started / client total p95'), item(p.pass, 'succeeded'), item(p.error, 'errors'), ...owners.map((o) => item(p.owner(o), `${o.replace(/_/g, ' ')} p95`)));
  }

  private async list(selection: R.TraceSelectionParams): Promise<void> {
    this.selection = selection;
    const seq = ++this.listSeq;
    const what = selection.kind === 'window' ? `window #${selection.index}` : `envelope in [${fmtMs(selection.from_ms)}, ${fmtMs(selection.to_ms)})`;
    replaceChildren(this.listSlot, h('p', { class: 'pw-muted' }, `Loading the traces of ${what}…`));
    try {
      const res = await this.bridge.endpoint.request(R.ListTraces, { selection, limit: LIST_LIMIT });
      if (seq !== this.listSeq || this.model === undefined) return;
      const phases = this.model.configuration.phases.map((x) => x.name);
      replaceChildren(
        this.listSlot,
        section(
          'selected-traces',
          `Traces of ${what}`,
          h('p', { class: 'pw-muted' }, res.total === 0 ? 'No matched successful request here.' : `The ${fmtInt(res.traces.length)} slowest of ${fmtInt(res.total)} matched successes${this.bridge.standalone && res.total > res.traces.length ? ' (this file holds the slowest few of each window and bucket)' : ''}.`),
          res.traces.length > 0 ? traceTable(res.traces, phases, (id) => this.bridge.endpoint.notify(R.OpenTrace, { trace_id: id }), 'selected-traces') : null,
        ),
      );
      this.saveSoon();
    } catch (err) {
      if (seq === this.listSeq) replaceChildren(this.listSlot, errorBanner({ message: `Listing the traces failed: ${err instanceof Error ? err.message : String(err)}` }));
    }
  }

  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private saveSoon(): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      const state: R.ReportViewState = { run: this.run, scroll_y: Math.round(window.scrollY), selection: this.selection };
      this.bridge.setState(state);
      this.bridge.endpoint.notify(R.SaveState, { state });
    }, 300);
  }
}
