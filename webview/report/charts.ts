/**
 * The report's charts on uPlot (canvas; colours resolved from --vscode-* at creation, charts rebuilt on
 * theme change). Each chart is focusable: ←/→ move the cursor between windows or buckets, Enter (or a
 * click) selects the one under it, which lists its traces.
 */
import uPlot from 'uplot';
import type { WindowReport } from '../../src/core/report/model';
import type { EnvelopeHistogram, WindowOwnerP95 } from '../../src/core/report/view/types';
import { h } from '../shared/dom';
import { fmtInt, fmtMs, ownerLabel } from '../shared/format';
import { hatch, isHighContrast, withAlpha, type Palette } from '../shared/theme';

export interface Chart {
  element: HTMLElement;
  destroy(): void;
}

export const HEIGHT = 220;

export function axes(p: Palette, yLabel: string, xLabel: string): uPlot.Axis[] {
  const grid = isHighContrast() ? withAlpha(p.grid, 0.45) : p.grid;
  const base = { stroke: p.muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '11px sans-serif', labelFont: '11px sans-serif' };
  return [
    { ...base, label: xLabel, labelSize: 18 },
    { ...base, label: yLabel, labelSize: 18, size: 64 },
  ];
}

/** Makes a chart keyboard-operable and clickable: `onPick(idx)` for the data index under the cursor. */
export function interactive(u: uPlot, wrap: HTMLElement, count: number, describe: (idx: number) => string, onPick: (idx: number) => void): void {
  let idx = -1;
  const live = h('div', { class: 'rp-chart-readout', attrs: { 'aria-live': 'polite' } });
  wrap.appendChild(live);
  const move = (i: number): void => {
    idx = Math.max(0, Math.min(count - 1, i));
    const left = u.valToPos(u.data[0][idx] as number, 'x');
    u.setCursor({ left, top: u.bbox.height / devicePixelRatio / 2 });
    live.textContent = describe(idx);
  };
  u.over.addEventListener('click', () => {
    const i = u.cursor.idx;
    if (i !== null && i !== undefined) onPick(i);
  });
  u.over.addEventListener('mousemove', () => {
    const i = u.cursor.idx;
    if (i !== null && i !== undefined) live.textContent = describe(i);
  });
  wrap.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight') move(idx + 1);
    else if (e.key === 'ArrowLeft') move(idx < 0 ? 0 : idx - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(count - 1);
    else if ((e.key === 'Enter' || e.key === ' ') && idx >= 0) onPick(idx);
    else return;
    e.preventDefault();
  });
  wrap.addEventListener('focus', () => {
    if (idx < 0) move(0);
  });
}

export function chartBox(label: string, testid: string): HTMLElement {
  return h('div', { class: 'rp-chart', tabIndex: 0, role: 'application', attrs: { 'aria-label': label, 'data-testid': testid } });
}

export function width(el: HTMLElement): number {
  return Math.max(320, Math.min(1100, (el.parentElement?.clientWidth ?? 900) - 8));
}

function windowMids(w: WindowReport): number[] {
  return w.windows.map((x) => (x.start_offset_ms + x.end_offset_ms) / 2000);
}

function windowRange(w: WindowReport): [number, number] {
  const first = w.windows[0];
  const last = w.windows[w.windows.length - 1];
  return [first.start_offset_ms / 1000, last.end_offset_ms / 1000];
}

interface WindowChartSpec {
  label: string;
  testid: string;
  yLabel: string;
  series: uPlot.Series[];
  data: (number | null)[][];
  log: boolean;
  describe: (i: number) => string;
}

/** A chart over the windows: points at each window's middle, the worst window shaded, keyboard and click pick a window. */
function windowChart(parent: HTMLElement, w: WindowReport, p: Palette, spec: WindowChartSpec, onPick: (index: number) => void): Chart {
  const box = chartBox(spec.label, spec.testid);
  parent.appendChild(box);
  const xs = windowMids(w);
  const worstAt = w.windows.findIndex((x) => x.index === w.worst);
  const u = new uPlot(
    {
      width: width(box),
      height: HEIGHT,
      legend: { show: false },
      cursor: { y: false, drag: { x: false, y: false }, points: { size: 7 } },
      scales: { x: { time: false, range: windowRange(w) }, y: spec.log ? { distr: 3, log: 10 } : {} },
      axes: axes(p, spec.yLabel, 'window (s since the first send; points at the window middle)'),
      series: [{}, ...spec.series],
      hooks: { drawClear: [(u2) => shadeWorst(u2, worstAt, w, p)] },
    },
    [xs, ...spec.data] as uPlot.AlignedData,
    box,
  );
  interactive(u, box, xs.length, spec.describe, (i) => onPick(w.windows[i].index));
  return { element: box, destroy: () => u.destroy() };
}

/** Requests per window (started, succeeded, errors) with the worst window shaded. */
export function windowCountsChart(parent: HTMLElement, w: WindowReport, p: Palette, onPick: (index: number) => void): Chart {
  const width2 = isHighContrast() ? 2.5 : 1.5;
  return windowChart(
    parent,
    w,
    p,
    {
      label: 'requests per window: started, succeeded and errors; arrows move between windows, Enter lists the traces',
      testid: 'chart-window-counts',
      yLabel: 'requests',
      series: [
        { label: 'started', stroke: p.foreground, width: width2 },
        { label: 'succeeded', stroke: p.pass, width: width2, dash: [6, 3] },
        { label: 'errors', stroke: p.error, width: width2, fill: withAlpha(p.error, 0.18) },
      ],
      data: [w.windows.map((x) => x.started), w.windows.map((x) => x.succeeded), w.windows.map((x) => x.errors)],
      log: false,
      describe: (i) => {
        const x = w.windows[i];
        return `window #${x.index} (${fmtInt(x.start_offset_ms / 1000)}–${fmtInt(x.end_offset_ms / 1000)} s): started ${fmtInt(x.started)}, succeeded ${fmtInt(x.succeeded)}, errors ${fmtInt(x.errors)}, client p95 ${fmtMs(x.client_total_ms.p95)} (n=${fmtInt(x.client_total_ms.n)})${x.index === w.worst ? ' — worst window' : ''}${x.steady ? '' : ' — outside the steady window'}`;
      },
    },
    onPick,
  );
}

function shadeWorst(u: uPlot, at: number, w: WindowReport, p: Palette): void {
  if (at < 0) return;
  const x = w.windows[at];
  shadeSpan(u, x.start_offset_ms, x.end_offset_ms, 'worst window', p, 0, 0.14);
}

/** Shades [fromMs, toMs) of a window chart in the warning colour with a dashed frame and a label on text line `line`. */
export function shadeSpan(u: uPlot, fromMs: number, toMs: number, label: string, p: Palette, line: number, alpha: number): void {
  const ctx = u.ctx;
  const a = u.valToPos(fromMs / 1000, 'x', true);
  const b = u.valToPos(toMs / 1000, 'x', true);
  ctx.save();
  ctx.fillStyle = p.warning;
  ctx.globalAlpha = alpha;
  ctx.fillRect(a, u.bbox.top, Math.max(b - a, 2), u.bbox.height);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = p.warning;
  ctx.setLineDash([4, 3]);
  ctx.lineWidth = devicePixelRatio;
  ctx.strokeRect(a, u.bbox.top, Math.max(b - a, 2), u.bbox.height);
  ctx.fillStyle = p.warning;
  ctx.font = `${11 * devicePixelRatio}px sans-serif`;
  ctx.fillText(label, a + 4 * devicePixelRatio, u.bbox.top + (12 + 13 * line) * devicePixelRatio);
  ctx.restore();
}

/** p95 per owner per window (matched successes), and the client p95, with the worst window shaded. */
export function windowOwnersChart(parent: HTMLElement, w: WindowReport, owners: readonly WindowOwnerP95[], names: readonly string[], p: Palette, onPick: (index: number) => void): Chart {
  const byIndex = new Map(owners.map((o) => [o.index, o]));
  const hc = isHighContrast();
  const data: (number | null)[][] = [
    w.windows.map((x) => x.client_total_ms.p95),
    ...names.map((n) => w.windows.map((x) => byIndex.get(x.index)?.p95[n] ?? null)),
  ];
  // Owners differ by orders of magnitude (a 5 ms gateway beside a 10 s generation): a log axis when
  // the positive values span more than 100×, with values ≤ 0 (an overlapping unattributed) left out.
  const positive = data.flat().filter((v): v is number => v !== null && v > 0);
  const log = positive.length > 0 && Math.max(...positive) / Math.min(...positive) > 100;
  return windowChart(
    parent,
    w,
    p,
    {
      label: 'p95 per owner per window; arrows move between windows, Enter lists the traces',
      testid: 'chart-window-owners',
      yLabel: log ? 'p95 (ms, log scale)' : 'p95 (ms)',
      series: [
        { label: 'client total', stroke: p.foreground, width: hc ? 3 : 2 },
        ...names.map((n, k) => ({ label: ownerLabel(n), stroke: p.owner(n), width: hc ? 2.5 : 1.5, dash: k % 2 === 1 ? [5, 3] : undefined })),
      ],
      data: log ? data.map((s) => s.map((v) => (v !== null && v > 0 ? v : null))) : data,
      log,
      describe: (i) => {
        const x = w.windows[i];
        const o = byIndex.get(x.index);
        const parts = names.map((n) => `${ownerLabel(n)} ${fmtMs(o?.p95[n] ?? null)}`).join(', ');
        return `window #${x.index}: client p95 ${fmtMs(x.client_total_ms.p95)} (n=${fmtInt(x.client_total_ms.n)}); ${parts}`;
      },
    },
    onPick,
  );
}

/** The network-envelope histogram: negative buckets in the error colour and hatched. */
export function envelopeChart(parent: HTMLElement, hist: EnvelopeHistogram, p: Palette, onPick: (from: number, to: number) => void): Chart {
  const box = chartBox('histogram of the network envelope over matched successes, negative buckets highlighted; arrows move between buckets, Enter lists the traces', 'chart-envelope');
  parent.appendChild(box);
  const bins = hist.bins;
  const xs = bins.map((b) => b.from_ms + hist.bin_ms / 2);
  const bars = uPlot.paths.bars ? uPlot.paths.bars({ size: [0.92, 200], gap: 1 }) : undefined;
  // A long tail of a few requests beside one tall bucket is invisible on a linear axis: counts go on a
  // log axis when the buckets differ by more than 50×, and the axis says so.
  const counts = bins.map((b) => b.count).filter((c) => c > 0);
  const log = counts.length > 0 && Math.max(...counts) / Math.min(...counts) > 50;
  const count = (c: number): number | null => (log && c === 0 ? null : c);
  const u = new uPlot(
    {
      width: width(box),
      height: HEIGHT,
      legend: { show: false },
      cursor: { y: false, drag: { x: false, y: false }, points: { show: false } },
      scales: { x: { time: false, range: (_u, lo, hi) => [lo - hist.bin_ms / 2, hi + hist.bin_ms / 2] }, y: log ? { distr: 3, log: 10, range: (_u, _lo, hi) => [0.7, hi * 1.6] } : {} },
      axes: axes(p, log ? 'requests (log scale)' : 'requests', `network envelope (ms), ${fmtMs(hist.bin_ms)} buckets`),
      series: [
        {},
        { label: 'envelope ≥ 0', fill: p.owner('network_envelope'), stroke: p.owner('network_envelope'), paths: bars, points: { show: false } },
        { label: 'negative envelope', fill: p.error, stroke: p.error, paths: bars, points: { show: false } },
      ],
      hooks: {
        draw: [
          (u2) => {
            // Negative buckets get a hatch on top of their fill, so they differ by more than hue.
            const ctx = u2.ctx;
            const pattern = hatch(ctx, p.background);
            ctx.save();
            ctx.fillStyle = pattern;
            bins.forEach((b) => {
              if (b.to_ms > 0 || b.count === 0) return;
              const x0 = u2.valToPos(b.from_ms, 'x', true);
              const x1 = u2.valToPos(b.to_ms, 'x', true);
              const y = u2.valToPos(b.count, 'y', true);
              if (!Number.isFinite(y)) return;
              ctx.fillRect(x0, y, x1 - x0, u2.bbox.top + u2.bbox.height - y);
            });
            const zero = u2.valToPos(0, 'x', true);
            if (zero >= u2.bbox.left && zero <= u2.bbox.left + u2.bbox.width) {
              ctx.strokeStyle = p.foreground;
              ctx.setLineDash([3, 3]);
              ctx.lineWidth = devicePixelRatio;
              ctx.beginPath();
              ctx.moveTo(zero, u2.bbox.top);
              ctx.lineTo(zero, u2.bbox.top + u2.bbox.height);
              ctx.stroke();
            }
            ctx.restore();
          },
        ],
      },
    },
    [xs, bins.map((b) => (b.to_ms > 0 ? count(b.count) : null)), bins.map((b) => (b.to_ms <= 0 ? count(b.count) : null))],
    box,
  );
  interactive(
    u,
    box,
    xs.length,
    (i) => {
      const b = bins[i];
      return `[${fmtMs(b.from_ms)}, ${fmtMs(b.to_ms)}): ${fmtInt(b.count)} requests${b.to_ms <= 0 ? ' — negative envelope' : ''}`;
    },
    (i) => onPick(bins[i].from_ms, bins[i].to_ms),
  );
  return { element: box, destroy: () => u.destroy() };
}
