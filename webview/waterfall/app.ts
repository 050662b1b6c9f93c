/**
 * The waterfall view: the request strip and reconciliation on top, the toolbar (find, critical path,
 * compare), then the minimap, the virtualised span tree and the span detail. State (selection,
 * collapsed rows, find, toggles, scroll) is saved for the host's WebviewPanelSerializer.
 */
import { Copy, type ShowErrorParams } from '../../src/protocol/common';
import * as W from '../../src/protocol/waterfall';
import { decodeJson } from '../../src/protocol/schema';
import type { TraceModel } from '../../src/core/analysis/trace/types';
import type { Bridge } from '../shared/host';
import { h, replaceChildren, vs } from '../shared/dom';
import { errorBanner, guarded } from '../shared/errors';
import { fmtInt } from '../shared/format';
import { palette, type Palette } from '../shared/theme';
import { comparisonPanel } from './compare';
import { SpanDetail } from './detail';
import { Minimap } from './minimap';
import { TraceIndex } from './model';
import { phaseLegend, traceHeader, traceSummary } from './header';
import { probeBanner } from './probe';
import { requestStrip } from './strip';
import { SpanTree } from './tree';

const FIND_DEBOUNCE_MS = 80;
/** Rows of search text built per idle slice (≈ 15 ms at 5k rows on the bench machine). */
const SEARCH_SLICE = 5_000;

export class WaterfallApp {
  private index: TraceIndex | undefined;
  private run: string | null = null;
  private tree: SpanTree | undefined;
  private minimap: Minimap | undefined;
  private detail: SpanDetail | undefined;
  private body: HTMLElement | undefined;
  private collapsed = new Set<number>();
  private hits: Uint8Array | null = null;
  private matchList: number[] = [];
  private matchAt = -1;
  private filterMode = false;
  private critical = false;
  private findText = '';
  private colors: Palette = palette();
  private errorSlot = h('div');
  private compareSlot = h('div');
  private countEl = h('span', { class: 'wf-count pw-muted', attrs: { 'aria-live': 'polite', 'data-testid': 'find-count' } });
  private findTimer: ReturnType<typeof setTimeout> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private comparing = false;
  /** Milliseconds of the last load's synchronous work (read by the bench). */
  lastLoadMs = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly bridge: Bridge,
  ) {
    bridge.endpoint.onNotification(W.DidLoad, (p) => this.guard(() => this.load(p.run, decodeJson(p.trace, W.traceModelJson, 'waterfall/didLoad trace'), p.state ?? null, p.probe ?? null)));
    document.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        this.root.querySelector<HTMLElement>('[data-testid="find"]')?.focus();
      }
    });
  }

  showError(p: ShowErrorParams): void {
    if (!this.root.contains(this.errorSlot)) replaceChildren(this.root, this.errorSlot);
    replaceChildren(this.errorSlot, errorBanner(p));
  }

  redraw(): void {
    this.colors = palette(this.index?.model.phases ?? []);
    if (this.index === undefined) return;
    this.tree?.setColors(this.colors);
    this.minimap?.setColors(this.colors);
    const strip = this.root.querySelector('[data-testid="request-strip"]');
    strip?.replaceWith(requestStrip(this.index.model, this.colors));
    const legend = this.root.querySelector('.wf-legend');
    legend?.replaceWith(phaseLegend(this.index.model, this.colors));
  }

  private guard(fn: () => void): void {
    guarded(this.bridge.endpoint, 'waterfall', (p) => this.showError(p), fn);
  }


  /** `probe`: the banner of a probe's trace (Send Probe Request), drawn above everything else. */
  load(run: string | null, trace: TraceModel, state: W.WaterfallViewState | null, probe: W.ProbeBanner | null = null): void {
    const t0 = performance.now();
    this.run = run;
    this.index = new TraceIndex(trace);
    this.colors = palette(trace.phases);
    const restore = state !== null && state.trace_id === trace.trace_id ? state : null;
    this.collapsed = new Set((restore?.collapsed ?? []).filter((i) => i >= 0 && i < trace.spans.length));
    this.filterMode = restore?.find_mode === 'filter';
    this.critical = restore?.critical_path ?? false;
    this.findText = restore?.find ?? '';
    this.comparing = false;
    replaceChildren(this.compareSlot);

    this.tree = new SpanTree(this.index, this.colors, {
      onSelect: (r) => this.select(r),
      onToggle: (r, all) => this.toggle(r, all === true),
    });
    this.minimap = new Minimap(this.index, this.colors, (a, b) => this.tree?.setWindow(a, b));
    this.detail = new SpanDetail(this.index, () => this.select(null));
    const main = h('div', { class: 'wf-main' }, this.minimap.element, this.tree.axis, this.tree.scroller);
    this.body = h('div', { class: 'wf-body' }, main);
    replaceChildren(this.root, h('div', { class: 'wf-app' }, this.errorSlot, probe !== null ? probeBanner(probe) : null, traceHeader(trace, this.colors, this.bridge.standalone && document.getElementById('phasewise-report') !== null), traceSummary(trace, this.colors, (text) => this.bridge.endpoint.notify(Copy, { text, what: 'reconciliation' })), this.compareSlot, this.toolbar(), this.body));
    // The minimap draws when its ResizeObserver first sees it (after layout, before the paint).
    this.tree.setWindow(this.index.minStart, this.index.maxEnd);
    this.tree.setCritical(this.critical);
    this.applyFind(false);
    if (restore?.scroll_top !== undefined) this.tree.scroller.scrollTop = restore.scroll_top;
    const sel = restore?.selected_span;
    const selRow = sel !== null && sel !== undefined ? trace.spans.findIndex((s) => s.span_id === sel) : -1;
    if (selRow >= 0) this.select(selRow);
    if (restore?.compare) void this.compare();
    this.lastLoadMs = performance.now() - t0;
    this.root.dataset.loadedTrace = trace.trace_id;
    this.warmSearch(this.index);
  }

  /** Builds the find's search text in slices of SEARCH_SLICE rows, one per idle moment, after the first paint. */
  private warmSearch(ix: TraceIndex): void {
    const step = (): void => {
      if (this.index !== ix || ix.buildSearchText(ix.searchRows + SEARCH_SLICE)) return;
      setTimeout(step, 0);
    };
    // After the frame that shows the rows.
    requestAnimationFrame(() => setTimeout(step, 0));
  }

  private toolbar(): HTMLElement {
    const find = vs<HTMLInputElement>('vscode-textfield', { placeholder: 'Find: name, service, attribute…', value: this.findText }, { class: 'wf-find', attrs: { 'aria-label': 'find spans', 'data-testid': 'find' } });
    find.addEventListener('input', () => {
      this.findText = find.value;
      if (this.findTimer !== undefined) clearTimeout(this.findTimer);
      this.findTimer = setTimeout(() => {
        this.findTimer = undefined;
        this.applyFind(true);
      }, FIND_DEBOUNCE_MS);
    });
    find.addEventListener('keydown', (e: KeyboardEvent) => {
      if (e.key === 'Enter' || e.key === 'F3') {
        e.preventDefault();
        if (this.findTimer !== undefined) {
          clearTimeout(this.findTimer);
          this.findTimer = undefined;
          this.applyFind(false);
        }
        this.stepMatch(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        find.value = '';
        this.findText = '';
        this.applyFind(false);
      }
    });
    const filter = vs<HTMLInputElement>('vscode-checkbox', { checked: this.filterMode, label: 'Hide non-matching' }, { attrs: { 'data-testid': 'filter-mode' } });
    filter.addEventListener('change', () => {
      this.filterMode = filter.checked;
      this.applyFind(false);
    });
    const prev = vs<HTMLElement>('vscode-button', { secondary: true }, { title: 'Previous match (Shift+Enter)' }, '↑');
    prev.addEventListener('click', () => this.stepMatch(-1));
    const next = vs<HTMLElement>('vscode-button', { secondary: true }, { title: 'Next match (Enter)', attrs: { 'data-testid': 'find-next' } }, '↓');
    next.addEventListener('click', () => this.stepMatch(1));
    const crit = vs<HTMLInputElement>('vscode-checkbox', { checked: this.critical, label: 'Critical path' }, { attrs: { 'data-testid': 'critical-path' } });
    crit.addEventListener('change', () => {
      this.critical = crit.checked;
      this.tree?.setCritical(this.critical);
      this.saveSoon();
    });
    const collapseAll = vs<HTMLElement>('vscode-button', { secondary: true }, { title: 'Collapse every span below the root' }, 'Collapse all');
    collapseAll.addEventListener('click', () => {
      if (this.index === undefined) return;
      this.collapsed = new Set();
      for (let i = 1; i < this.index.n; i++) if (this.index.hasChildren(i) && this.index.depth[i] >= 1) this.collapsed.add(i);
      this.refreshRows();
    });
    const expandAll = vs<HTMLElement>('vscode-button', { secondary: true }, null, 'Expand all');
    expandAll.addEventListener('click', () => {
      this.collapsed = new Set();
      this.refreshRows();
    });
    const compare = vs<HTMLElement>('vscode-button', {}, { title: 'The median-duration matched trace of the same route, with per-phase and per-span-name deltas', attrs: { 'data-testid': 'compare' } }, 'Compare with a typical trace');
    compare.addEventListener('click', () => void this.compare());
    const exportBtn = vs<HTMLElement>('vscode-button', { secondary: true }, { title: 'Export this waterfall as one self-contained HTML file' }, 'Export…');
    exportBtn.addEventListener('click', () => this.bridge.endpoint.notify(W.ExportTrace, { format: this.bridge.standalone ? 'json' : 'html' }));
    return h('div', { class: 'wf-toolbar', role: 'toolbar', attrs: { 'aria-label': 'waterfall tools' } }, find, prev, next, this.countEl, filter, crit, collapseAll, expandAll, h('span', { class: 'wf-spacer' }), compare, exportBtn);
  }

  private refreshRows(): void {
    if (this.index === undefined || this.tree === undefined) return;
    const rows = this.index.visibleRows(this.collapsed, this.filterMode ? this.hits : null);
    this.tree.setRows(rows, this.collapsed);
    this.saveSoon();
  }

  /** Finds `text` now (no debounce), filtering or highlighting: what the find box does, for the bench. */
  setFind(text: string, filter: boolean): number {
    this.findText = text;
    this.filterMode = filter;
    this.applyFind(false);
    return this.matchList.length;
  }

  /** Runs the find: highlights (or filters to) the matches, counts them, and keeps the current one. */
  applyFind(jump: boolean): void {
    if (this.index === undefined || this.tree === undefined) return;
    this.hits = this.index.find(this.findText);
    this.matchList = [];
    if (this.hits !== null) for (let i = 0; i < this.index.n; i++) if (this.hits[i] === 1) this.matchList.push(i);
    this.matchAt = -1;
    this.refreshRows();
    if (jump && this.matchList.length > 0) this.stepMatch(1);
    else this.updateMatches();
  }

  private updateMatches(): void {
    const cur = this.matchAt >= 0 ? this.matchList[this.matchAt] : -1;
    this.tree?.setMatches(this.hits, this.filterMode, cur);
    this.countEl.textContent = this.hits === null ? '' : this.matchList.length === 0 ? 'no match' : `${this.matchAt >= 0 ? this.matchAt + 1 : '–'} of ${fmtInt(this.matchList.length)}`;
  }

  /** Moves to the next (or previous) match, expanding collapsed ancestors so it can be shown. */
  stepMatch(dir: 1 | -1): void {
    if (this.index === undefined || this.matchList.length === 0) return;
    const n = this.matchList.length;
    this.matchAt = this.matchAt < 0 ? (dir > 0 ? 0 : n - 1) : (this.matchAt + dir + n) % n;
    const row = this.matchList[this.matchAt];
    let opened = false;
    for (const a of this.index.ancestors(row)) if (this.collapsed.delete(a)) opened = true;
    if (opened) this.refreshRows();
    this.updateMatches();
    this.select(row);
  }

  private toggle(row: number, all: boolean): void {
    if (this.index === undefined) return;
    if (all) {
      for (let i = row; i < this.index.subtreeEnd[row]; i++) this.collapsed.delete(i);
    } else if (this.collapsed.has(row)) this.collapsed.delete(row);
    else this.collapsed.add(row);
    this.refreshRows();
  }

  /** Selects a span and opens its detail (null closes it). */
  select(row: number | null): void {
    if (this.index === undefined || this.tree === undefined || this.detail === undefined || this.body === undefined) return;
    this.tree.select(row);
    if (row === null) {
      this.detail.element.remove();
      this.body.classList.remove('with-detail');
      this.tree.scroller.focus({ preventScroll: true });
    } else {
      this.detail.show(row);
      if (!this.detail.element.isConnected) this.body.appendChild(this.detail.element);
      this.body.classList.add('with-detail');
    }
    this.bridge.endpoint.notify(W.Select, { trace_id: this.index.model.trace_id, span_id: row === null ? null : this.index.model.spans[row].span_id });
    this.saveSoon();
  }

  private async compare(): Promise<void> {
    if (this.index === undefined || this.comparing) return;
    this.comparing = true;
    const id = this.index.model.trace_id;
    replaceChildren(this.compareSlot, h('p', { class: 'wf-compare pw-muted' }, 'Looking for the typical trace of this route…'));
    try {
      const r = await this.bridge.endpoint.request(W.Compare, { trace_id: id });
      if (this.index.model.trace_id !== id) return;
      replaceChildren(
        this.compareSlot,
        r.comparison ? comparisonPanel(decodeJson(r.comparison, W.traceComparisonJson, 'waterfall/compare result'), (t) => this.bridge.endpoint.notify(W.OpenTrace, { trace_id: t })) : h('p', { class: 'wf-compare pw-muted', attrs: { 'data-testid': 'comparison' } }, `No typical trace: ${r.reason ?? 'none found'}`),
      );
    } catch (err) {
      replaceChildren(this.compareSlot, errorBanner({ message: `Compare failed: ${err instanceof Error ? err.message : String(err)}` }));
    } finally {
      this.comparing = false;
      this.saveSoon();
    }
  }

  private saveSoon(): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      if (this.index === undefined || this.tree === undefined) return;
      const sel = this.detail?.row ?? null;
      const state: W.WaterfallViewState = {
        run: this.run,
        trace_id: this.index.model.trace_id,
        selected_span: sel !== null ? this.index.model.spans[sel].span_id : null,
        collapsed: [...this.collapsed],
        find: this.findText,
        find_mode: this.filterMode ? 'filter' : 'highlight',
        critical_path: this.critical,
        compare: this.compareSlot.childElementCount > 0,
        scroll_top: this.tree.scroller.scrollTop,
      };
      this.bridge.setState(state);
      this.bridge.endpoint.notify(W.SaveState, { state });
    }, 300);
  }
}
