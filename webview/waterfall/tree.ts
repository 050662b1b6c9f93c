/**
 * The span tree as virtualised rows: only the rows in view (plus a margin) exist in the DOM, taken
 * from a pool and repositioned on scroll, so 10k spans cost what 40 do. The time axis is the window
 * [from, to] that the minimap selects. Keyboard: ↑/↓ move, ←/→ collapse/expand (or go to parent/first
 * child), Home/End, PageUp/PageDown, Enter/Space toggles, `*` expands all below.
 */
import { h } from '../shared/dom';
import { fmtMs } from '../shared/format';
import type { Palette } from '../shared/theme';
import type { TraceIndex } from './model';

export const ROW_HEIGHT = 22;
const OVERSCAN = 8;

export interface TreeCallbacks {
  onSelect: (row: number | null) => void;
  onToggle: (row: number, expandAll?: boolean) => void;
}

interface RowEls {
  root: HTMLDivElement;
  twisty: HTMLSpanElement;
  err: HTMLSpanElement;
  name: HTMLSpanElement;
  svc: HTMLSpanElement;
  bar: HTMLDivElement;
  dur: HTMLSpanElement;
  track: HTMLDivElement;
  crit: HTMLDivElement[];
  row: number;
}

/** 1/2/5 × 10^k ticks, about `count` of them over [a, b]. */
export function niceTicks(a: number, b: number, count: number): number[] {
  const span = b - a;
  if (!(span > 0)) return [a];
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let t = Math.ceil(a / step) * step; t <= b + step * 1e-9; t += step) out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return out;
}

export class SpanTree {
  readonly scroller: HTMLDivElement;
  readonly axis: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private readonly ticks: HTMLDivElement;
  private axisWidth = 0;
  private pool: RowEls[] = [];
  private rows: Int32Array = new Int32Array(0);
  private positionOf = new Int32Array(0);
  private from = 0;
  private to = 1;
  private matches: Uint8Array | null = null;
  private filtering = false;
  private currentMatch = -1;
  private critical = false;
  private selected: number | null = null;
  private collapsed: ReadonlySet<number> = new Set();
  private frame = 0;
  private colors: Palette;

  constructor(
    private readonly index: TraceIndex,
    colors: Palette,
    private readonly callbacks: TreeCallbacks,
  ) {
    this.colors = colors;
    this.ticks = h('div', { class: 'ticks', attrs: { 'aria-hidden': 'true' } });
    this.axis = h('div', { class: 'wf-axis' }, h('div', { class: 'pw-muted' }, 'span · service'), this.ticks);
    new ResizeObserver((entries) => {
      const w = Math.round(entries[entries.length - 1].contentRect.width);
      if (w === this.axisWidth) return;
      this.axisWidth = w;
      this.renderAxis();
    }).observe(this.ticks);
    this.spacer = h('div', { class: 'wf-spacer-rows' });
    this.scroller = h('div', {
      class: 'wf-scroll',
      role: 'tree',
      tabIndex: 0,
      attrs: { 'aria-label': 'spans of the trace', 'data-testid': 'span-tree' },
    }, this.spacer);
    this.scroller.addEventListener('scroll', () => this.schedule());
    this.scroller.addEventListener('keydown', (e) => this.onKey(e));
    this.scroller.addEventListener('click', (e) => this.onClick(e));
    this.scroller.addEventListener('dblclick', (e) => {
      const r = this.rowAt(e);
      if (r !== null && this.index.hasChildren(r)) this.callbacks.onToggle(r);
    });
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
  }

  setColors(colors: Palette): void {
    this.colors = colors;
    this.schedule();
  }

  setRows(rows: Int32Array, collapsed: ReadonlySet<number>): void {
    this.rows = rows;
    this.collapsed = collapsed;
    this.positionOf = new Int32Array(this.index.n).fill(-1);
    for (let k = 0; k < rows.length; k++) this.positionOf[rows[k]] = k;
    this.spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
    // Drawn on the next frame: during a load several setters run, and each immediate render would
    // force its own layout of the page.
    this.schedule();
  }

  setWindow(from: number, to: number): void {
    this.from = from;
    this.to = to > from ? to : from + 1e-6;
    this.renderAxis();
    this.schedule();
  }

  get window(): [number, number] {
    return [this.from, this.to];
  }

  setMatches(matches: Uint8Array | null, filtering: boolean, current: number): void {
    this.matches = matches;
    this.filtering = filtering;
    this.currentMatch = current;
    this.schedule();
  }

  setCritical(on: boolean): void {
    this.critical = on;
    this.schedule();
  }

  get visibleRows(): Int32Array {
    return this.rows;
  }

  /** Selects a row (null: none) and scrolls it into view. */
  select(row: number | null, reveal = true): void {
    this.selected = row;
    if (row !== null && reveal) this.reveal(row);
    this.renderNow();
  }

  /** Scrolls so that `row` (a span index) is in view; it must be in the visible rows. */
  reveal(row: number): void {
    const k = this.positionOf[row];
    if (k === undefined || k < 0) return;
    const top = k * ROW_HEIGHT;
    const view = this.scroller.clientHeight;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > this.scroller.scrollTop + view) this.scroller.scrollTop = top + ROW_HEIGHT - view;
    this.renderNow();
  }

  /** The rows now in the DOM (for tests and the bench: the DOM never holds more than the view). */
  get renderedRows(): number {
    return this.pool.filter((p) => p.root.isConnected && p.row >= 0).length;
  }

  schedule(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  renderNow(): void {
    if (this.frame !== 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.render();
  }

  private renderAxis(): void {
    this.ticks.replaceChildren();
    // About one label per 90 px (a label such as `25,000 ms` is ≈ 60 px wide): a narrow panel gets
    // fewer. The width comes from a ResizeObserver, so drawing the axis never forces a layout.
    const width = this.axisWidth;
    const ts = niceTicks(this.from, this.to, width > 0 ? Math.max(2, Math.min(6, Math.floor(width / 90))) : 6);
    ts.forEach((t) => {
      const frac = (t - this.from) / (this.to - this.from);
      // Labels near an edge are aligned to it instead of centred on the tick, so none is cut.
      const tick = h('span', { class: `tick${frac < 0.04 ? ' first' : frac > 0.94 ? ' last' : ''}` }, fmtMs(t));
      tick.style.left = `${frac * 100}%`;
      this.ticks.appendChild(tick);
    });
  }

  private render(): void {
    const height = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((this.scroller.scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
    const needed = last - first;
    while (this.pool.length < needed) this.pool.push(this.makeRow());
    for (let k = 0; k < this.pool.length; k++) {
      const el = this.pool[k];
      if (k < needed) {
        if (!el.root.isConnected) this.spacer.appendChild(el.root);
        this.fill(el, this.rows[first + k], first + k);
      } else if (el.root.isConnected) {
        el.root.remove();
        el.row = -1;
      }
    }
    this.scroller.setAttribute('aria-activedescendant', this.selected !== null && this.positionOf[this.selected] >= 0 ? 'wf-row-selected' : '');
  }

  private makeRow(): RowEls {
    const twisty = h('span', { class: 'twisty', attrs: { 'aria-hidden': 'true' } });
    const err = h('span', { class: 'err' });
    const name = h('span', { class: 'name' });
    const svc = h('span', { class: 'svc' });
    const bar = h('div', { class: 'bar' });
    const dur = h('span', { class: 'dur' });
    const track = h('div', { class: 'track' }, bar, dur);
    const root = h('div', { class: 'wf-row', role: 'treeitem' }, h('div', { class: 'label' }, twisty, err, name, svc), track) as HTMLDivElement;
    return { root, twisty, err, name, svc, bar, dur, track, crit: [], row: -1 };
  }

  private fill(el: RowEls, i: number, position: number): void {
    const s = this.index.model.spans[i];
    const ix = this.index;
    el.row = i;
    el.root.style.top = `${position * ROW_HEIGHT}px`;
    el.root.dataset.row = String(i);
    const selected = this.selected === i;
    el.root.id = selected ? 'wf-row-selected' : '';
    el.root.setAttribute('aria-level', String(s.depth + 1));
    el.root.setAttribute('aria-selected', String(selected));
    const parent = ix.hasChildren(i);
    if (parent) el.root.setAttribute('aria-expanded', String(!this.collapsed.has(i)));
    else el.root.removeAttribute('aria-expanded');
    const match = this.matches !== null && this.matches[i] === 1;
    el.root.className = `wf-row${selected ? ' selected' : ''}${match ? ' match' : ''}${match && i === this.currentMatch ? ' current-match' : ''}${this.matches !== null && this.filtering && !match ? ' context' : ''}${this.critical && ix.criticalPath().onPath[i] === 0 ? ' dim' : ''}`;
    el.root.querySelector<HTMLElement>('.label')!.style.paddingLeft = `${Math.min(s.depth, 40) * 12}px`;
    el.twisty.textContent = parent ? (this.collapsed.has(i) ? '▶' : '▼') : '';
    el.err.textContent = s.status === 'ERROR' ? '!' : '';
    el.err.title = s.status === 'ERROR' ? 'status ERROR' : '';
    el.name.textContent = s.name;
    el.svc.textContent = s.shared_copy ? `${s.service ?? ''} · same span ID (${s.kind})` : (s.service ?? '');
    el.root.title = `${s.name} · ${fmtMs(s.duration_ms)}${s.phase ? ` · ${s.phase}` : ''}${s.shared_copy ? ' · another observer of the same span ID (B3 shared span), in no phase' : ''}`;
    // The bar, clipped to the window.
    const span = this.to - this.from;
    const a = Math.max(ix.start[i], this.from);
    const b = Math.min(ix.end[i], this.to);
    const visible = b >= a && ix.end[i] >= this.from && ix.start[i] <= this.to;
    el.bar.hidden = !visible;
    if (visible) {
      el.bar.style.left = `${((a - this.from) / span) * 100}%`;
      el.bar.style.width = `${((b - a) / span) * 100}%`;
      el.bar.style.background = this.colors.owner(s.phase);
      el.bar.className = `bar${s.shared_copy ? ' copy' : ''}${s.status === 'ERROR' ? ' error' : ''}`;
    }
    el.dur.textContent = fmtMs(s.duration_ms);
    const startFrac = Math.max(0, (a - this.from) / span);
    const endFrac = (Math.min(ix.end[i], this.to) - this.from) / span;
    // The duration label sits right of the bar; left of it when the bar reaches the right edge; inside
    // it (right-aligned) when the bar spans nearly the whole track.
    el.dur.classList.toggle('inside', endFrac > 0.85 && startFrac <= 0.15);
    if (endFrac > 0.85 && startFrac > 0.15) {
      el.dur.style.left = '';
      el.dur.style.right = `calc(${(1 - startFrac) * 100}% + 4px)`;
    } else if (endFrac > 0.85) {
      el.dur.style.left = '';
      el.dur.style.right = `calc(${(1 - endFrac) * 100}% + 4px)`;
    } else {
      el.dur.style.right = '';
      el.dur.style.left = `calc(${Math.max(0, endFrac) * 100}% + 4px)`;
    }
    this.fillCritical(el, i);
  }

  private fillCritical(el: RowEls, i: number): void {
    const segs = this.critical && this.index.criticalPath().onPath[i] === 1 ? this.index.criticalPath().segments : null;
    let used = 0;
    if (segs !== null) {
      const span = this.to - this.from;
      // Segments of this span (a span usually has a few): found by scanning, once per drawn row.
      for (const seg of this.segmentsOf(i, segs)) {
        const a = Math.max(seg.start_ms, this.from);
        const b = Math.min(seg.end_ms, this.to);
        if (b <= a) continue;
        let d = el.crit[used];
        if (d === undefined) {
          d = h('div', { class: 'crit', title: 'on the critical path' }) as HTMLDivElement;
          el.crit.push(d);
          el.track.appendChild(d);
        }
        d.hidden = false;
        d.style.left = `${((a - this.from) / span) * 100}%`;
        d.style.width = `max(1px, ${((b - a) / span) * 100}%)`;
        used++;
      }
    }
    for (let k = used; k < el.crit.length; k++) el.crit[k].hidden = true;
  }

  private segCache: Map<number, { start_ms: number; end_ms: number }[]> | undefined;
  private segmentsOf(i: number, segs: readonly { index: number; start_ms: number; end_ms: number }[]): { start_ms: number; end_ms: number }[] {
    if (this.segCache === undefined) {
      this.segCache = new Map();
      for (const s of segs) {
        const list = this.segCache.get(s.index) ?? [];
        list.push(s);
        this.segCache.set(s.index, list);
      }
    }
    return this.segCache.get(i) ?? [];
  }

  private rowAt(e: MouseEvent): number | null {
    const rowEl = (e.target as HTMLElement).closest<HTMLElement>('.wf-row');
    return rowEl?.dataset.row !== undefined ? Number(rowEl.dataset.row) : null;
  }

  private onClick(e: MouseEvent): void {
    const r = this.rowAt(e);
    if (r === null) return;
    if ((e.target as HTMLElement).classList.contains('twisty') && this.index.hasChildren(r)) {
      this.callbacks.onToggle(r, e.shiftKey);
      return;
    }
    this.scroller.focus({ preventScroll: true });
    this.callbacks.onSelect(r);
  }

  private onKey(e: KeyboardEvent): void {
    const rows = this.rows;
    if (rows.length === 0) return;
    const k = this.selected !== null ? this.positionOf[this.selected] : -1;
    const page = Math.max(1, Math.floor(this.scroller.clientHeight / ROW_HEIGHT) - 1);
    const go = (pos: number): void => {
      e.preventDefault();
      this.callbacks.onSelect(rows[Math.max(0, Math.min(rows.length - 1, pos))]);
    };
    const cur = k >= 0 ? rows[k] : null;
    switch (e.key) {
      case 'ArrowDown':
        return go(k + 1);
      case 'ArrowUp':
        return go(k < 0 ? 0 : k - 1);
      case 'PageDown':
        return go(k + page);
      case 'PageUp':
        return go(k - page);
      case 'Home':
        return go(0);
      case 'End':
        return go(rows.length - 1);
      case 'ArrowRight':
        if (cur === null) return go(0);
        e.preventDefault();
        if (this.index.hasChildren(cur) && this.collapsed.has(cur)) this.callbacks.onToggle(cur);
        else if (this.index.hasChildren(cur) && k + 1 < rows.length) this.callbacks.onSelect(rows[k + 1]);
        return;
      case 'ArrowLeft':
        if (cur === null) return go(0);
        e.preventDefault();
        if (this.index.hasChildren(cur) && !this.collapsed.has(cur)) this.callbacks.onToggle(cur);
        else if (this.index.parent[cur] >= 0 && this.positionOf[this.index.parent[cur]] >= 0) this.callbacks.onSelect(this.index.parent[cur]);
        return;
      case 'Enter':
      case ' ':
        if (cur !== null && this.index.hasChildren(cur)) {
          e.preventDefault();
          this.callbacks.onToggle(cur);
        }
        return;
      case '*':
        if (cur !== null) {
          e.preventDefault();
          this.callbacks.onToggle(cur, true);
        }
        return;
      case 'Escape':
        this.callbacks.onSelect(null);
        return;
      default:
        return;
    }
  }
}
