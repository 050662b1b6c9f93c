/**
 * The minimap: every span of the trace on one canvas (time across, row order down), with the time
 * window the tree shows as a draggable range. Drag the range to pan, its edges to resize, elsewhere to
 * draw a new range; double-click resets. Keyboard (the canvas is focusable): ←/→ pan, +/− zoom,
 * 0 resets.
 */
import { h } from '../shared/dom';
import { fmtMs } from '../shared/format';
import type { Palette } from '../shared/theme';
import type { TraceIndex } from './model';
import { bandOf, longestPerBand } from '../../src/core/analysis/trace/overviewBands';

const EDGE_PX = 6;
const MIN_FRACTION = 1e-6;

type Drag = { mode: 'pan' | 'left' | 'right' | 'new'; x0: number; from0: number; to0: number } | null;

export class Minimap {
  readonly element: HTMLDivElement;
  private readonly canvas: HTMLCanvasElement;
  private from: number;
  private to: number;
  private drag: Drag = null;
  private colors: Palette;

  constructor(
    private readonly index: TraceIndex,
    colors: Palette,
    private readonly onWindow: (from: number, to: number) => void,
  ) {
    this.colors = colors;
    this.from = index.minStart;
    this.to = index.maxEnd;
    this.canvas = h('canvas', {
      tabIndex: 0,
      role: 'slider',
      attrs: { 'aria-label': 'time window of the span tree (arrows pan, + and − zoom, 0 resets)', 'data-testid': 'minimap' },
    });
    this.element = h('div', { class: 'wf-minimap-wrap' }, this.canvas);
    this.canvas.addEventListener('pointerdown', (e) => this.down(e));
    this.canvas.addEventListener('pointermove', (e) => this.move(e));
    this.canvas.addEventListener('pointerup', (e) => this.up(e));
    this.canvas.addEventListener('dblclick', () => this.set(this.index.minStart, this.index.maxEnd));
    this.canvas.addEventListener('keydown', (e) => this.key(e));
    new ResizeObserver(() => this.draw()).observe(this.element);
  }

  get window(): [number, number] {
    return [this.from, this.to];
  }

  setColors(colors: Palette): void {
    this.colors = colors;
    this.draw();
  }

  /** Sets the window (clamped to the trace), redraws and tells the tree. */
  set(from: number, to: number): void {
    const lo = this.index.minStart;
    const hi = this.index.maxEnd;
    const full = Math.max(hi - lo, 1e-9);
    let a = Math.max(lo, Math.min(from, to));
    let b = Math.min(hi, Math.max(from, to));
    if (b - a < full * MIN_FRACTION) {
      const mid = (a + b) / 2;
      a = Math.max(lo, mid - (full * MIN_FRACTION) / 2);
      b = Math.min(hi, a + full * MIN_FRACTION);
    }
    this.from = a;
    this.to = b;
    this.canvas.setAttribute('aria-valuetext', `${fmtMs(a)} to ${fmtMs(b)}`);
    this.draw();
    this.onWindow(a, b);
  }

  draw(): void {
    const ratio = window.devicePixelRatio || 1;
    const w = this.element.clientWidth;
    const hgt = this.element.clientHeight;
    if (w === 0 || hgt === 0) return;
    this.canvas.width = Math.round(w * ratio);
    this.canvas.height = Math.round(hgt * ratio);
    const ctx = this.canvas.getContext('2d');
    if (ctx === null) return;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, hgt);
    const ix = this.index;
    const lo = ix.minStart;
    const full = Math.max(ix.maxEnd - lo, 1e-9);
    // One band per device pixel row: when more rows than that share a band (a 100k-span trace on a
    // 60 px strip), only the longest span of each band is drawn, full band height, so the overview
    // shows the work that matters instead of 100k hairlines (as large-trace viewers sample).
    const bands = Math.max(1, Math.round(hgt * ratio));
    const shown = this.representatives(bands);
    const rowsPerBand = Math.max(ix.n, 1) / bands;
    const bandH = rowsPerBand > 1 ? hgt / bands : hgt / Math.max(ix.n, 1);
    // Batched by phase: one path and one fill per colour instead of a style change per span.
    const groups = this.phaseGroups();
    for (const [phase, list] of groups) {
      ctx.fillStyle = this.colors.owner(phase);
      ctx.beginPath();
      for (const i of list) {
        if (shown !== null && shown[i] === 0) continue;
        const x = ((ix.start[i] - lo) / full) * w;
        const bw = Math.max(((ix.end[i] - ix.start[i]) / full) * w, 0.75);
        const y = shown !== null ? bandOf(i, ix.n, bands) * bandH : (i / Math.max(ix.n, 1)) * hgt;
        ctx.rect(x, y, bw, Math.max(bandH, 1 / ratio));
      }
      ctx.fill();
    }
    // Outside the window: veiled; the window: outlined, with handles.
    const x0 = ((this.from - lo) / full) * w;
    const x1 = ((this.to - lo) / full) * w;
    ctx.fillStyle = this.colors.background;
    ctx.globalAlpha = 0.6;
    ctx.fillRect(0, 0, x0, hgt);
    ctx.fillRect(x1, 0, w - x1, hgt);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = this.colors.focus;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 + 1, 1, Math.max(x1 - x0 - 2, 1), hgt - 2);
    ctx.fillStyle = this.colors.focus;
    ctx.fillRect(x0, hgt / 2 - 8, 3, 16);
    ctx.fillRect(x1 - 3, hgt / 2 - 8, 3, 16);
  }

  private reps: { bands: number; shown: Uint8Array | null } | undefined;
  /** longestPerBand for this trace, kept per band count (redrawn on resize or theme change only). */
  private representatives(bands: number): Uint8Array | null {
    if (this.reps?.bands !== bands) this.reps = { bands, shown: longestPerBand(this.index.start, this.index.end, bands) };
    return this.reps.shown;
  }

  private groups: Map<string | null, Int32Array> | undefined;
  /** Span indices per phase, computed once per trace. */
  private phaseGroups(): Map<string | null, Int32Array> {
    if (this.groups === undefined) {
      const lists = new Map<string | null, number[]>();
      const spans = this.index.model.spans;
      for (let i = 0; i < spans.length; i++) {
        const p = spans[i].phase;
        let l = lists.get(p);
        if (l === undefined) lists.set(p, (l = []));
        l.push(i);
      }
      this.groups = new Map([...lists].map(([p, l]) => [p, Int32Array.from(l)]));
    }
    return this.groups;
  }

  private timeAt(x: number): number {
    const w = this.element.clientWidth || 1;
    return this.index.minStart + (x / w) * Math.max(this.index.maxEnd - this.index.minStart, 1e-9);
  }

  private xOf(t: number): number {
    const w = this.element.clientWidth || 1;
    return ((t - this.index.minStart) / Math.max(this.index.maxEnd - this.index.minStart, 1e-9)) * w;
  }

  private down(e: PointerEvent): void {
    const x = e.offsetX;
    const x0 = this.xOf(this.from);
    const x1 = this.xOf(this.to);
    const mode = Math.abs(x - x0) <= EDGE_PX ? 'left' : Math.abs(x - x1) <= EDGE_PX ? 'right' : x > x0 && x < x1 ? 'pan' : 'new';
    this.drag = { mode, x0: x, from0: this.from, to0: this.to };
    this.canvas.setPointerCapture(e.pointerId);
  }

  private move(e: PointerEvent): void {
    const x = e.offsetX;
    if (this.drag === null) {
      const x0 = this.xOf(this.from);
      const x1 = this.xOf(this.to);
      this.canvas.style.cursor = Math.abs(x - x0) <= EDGE_PX || Math.abs(x - x1) <= EDGE_PX ? 'ew-resize' : x > x0 && x < x1 ? 'grab' : 'crosshair';
      return;
    }
    const d = this.drag;
    const t = this.timeAt(x);
    if (d.mode === 'pan') {
      const dt = t - this.timeAt(d.x0);
      const width = d.to0 - d.from0;
      const a = Math.max(this.index.minStart, Math.min(this.index.maxEnd - width, d.from0 + dt));
      this.set(a, a + width);
    } else if (d.mode === 'left') this.set(Math.min(t, d.to0), d.to0);
    else if (d.mode === 'right') this.set(d.from0, Math.max(t, d.from0));
    else if (Math.abs(x - d.x0) > 2) this.set(this.timeAt(d.x0), t);
  }

  private up(e: PointerEvent): void {
    const d = this.drag;
    this.drag = null;
    this.canvas.releasePointerCapture(e.pointerId);
    // A click without a drag outside the range centres the range there.
    if (d !== null && d.mode === 'new' && Math.abs(e.offsetX - d.x0) <= 2) {
      const width = this.to - this.from;
      const t = this.timeAt(e.offsetX);
      const a = Math.max(this.index.minStart, Math.min(this.index.maxEnd - width, t - width / 2));
      this.set(a, a + width);
    }
  }

  private key(e: KeyboardEvent): void {
    const width = this.to - this.from;
    const step = width * 0.1;
    const mid = (this.from + this.to) / 2;
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      const dir = e.key === 'ArrowLeft' ? -1 : 1;
      const a = Math.max(this.index.minStart, Math.min(this.index.maxEnd - width, this.from + dir * step));
      this.set(a, a + width);
    } else if (e.key === '+' || e.key === '=') this.set(mid - width / 4, mid + width / 4);
    else if (e.key === '-' || e.key === '_') this.set(mid - width, mid + width);
    else if (e.key === '0') this.set(this.index.minStart, this.index.maxEnd);
    else return;
    e.preventDefault();
  }
}
