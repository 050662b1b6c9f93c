/**
 * The window series' charts (issue 17 §2) on uPlot, as the report's other charts: scheduled, started
 * and completed rates; mean in-flight; errors by class; output tokens per second; every owner's p50
 * or p95; generation per output token; the TTFT pair. Points sit at each window's middle (sliding
 * windows overlap), the worst window of each SLO metric is shaded, and each chart is focusable with
 * ←/→/Home/End moving a readout that states the window's figures (Enter lists a fixed window's traces).
 */
import uPlot from 'uplot';
import type { SeriesStat, SeriesWindow, WindowSeries } from '../../src/core/report/model';
import { h } from '../shared/dom';
import { fmtInt, fmtMs, MISSING, ownerLabel } from '../shared/format';
import { cssVar, isHighContrast, withAlpha, type Palette } from '../shared/theme';
import { axes, chartBox, interactive, shadeSpan, width, type Chart } from './charts';

const SMALL = 170;

/** A rate or count with one decimal (the CLI's window table prints the same). */
export function fmtRate(v: number | null): string {
  return v === null || !Number.isFinite(v) ? MISSING : v.toFixed(1);
}

/** A window length: `30 s`, `15 min` (whole minutes from 2 min on). */
export function fmtSpan(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return MISSING;
  return ms >= 120_000 && ms % 60_000 === 0 ? `${fmtInt(ms / 60_000)} min` : `${fmtInt(ms / 1000)} s`;
}

/** `#3 (30–60 s)`, or the stage label. */
export function windowName(w: SeriesWindow): string {
  const span = `${fmtInt(w.start_offset_ms / 1000)}–${fmtInt(w.end_offset_ms / 1000)} s`;
  return `${w.label ?? `#${w.index}`} (${span})${w.partial ? ', partial' : ''}`;
}

interface Line {
  label: string;
  color: string;
  values: (number | null)[];
  dash?: number[];
  fill?: boolean;
}

interface SeriesChartSpec {
  label: string;
  testid: string;
  yLabel: string;
  lines: Line[];
  /** A log axis when the positive values span more than 100×. */
  logIfWide: boolean;
  height?: number;
  describe: (w: SeriesWindow) => string;
}

function legend(lines: readonly Line[]): HTMLElement {
  return h(
    'div',
    { class: 'rp-legend', attrs: { 'aria-hidden': 'true' } },
    ...lines.map((l) => {
      const sw = h('span', { class: `pw-swatch${l.dash ? ' rp-swatch-dashed' : ''}` });
      sw.style.background = l.color;
      return h('span', null, sw, l.label);
    }),
  );
}

/** Each SLO figure's worst window shaded once, labelled on its own line where several share a window. */
function shadeWorst(u: uPlot, series: WindowSeries, p: Palette): void {
  const lines = new Map<number, number>();
  for (const worst of series.worst) {
    const w = series.windows.find((x) => x.index === worst.window);
    if (w === undefined) continue;
    const line = lines.get(w.index) ?? 0;
    shadeSpan(u, w.start_offset_ms, w.end_offset_ms, `worst ${ownerLabel(worst.metric)} ${worst.stat}`, p, line, line === 0 ? 0.12 : 0);
    lines.set(w.index, line + 1);
  }
}

function seriesChart(parent: HTMLElement, s: WindowSeries, p: Palette, spec: SeriesChartSpec, onPick: (w: SeriesWindow) => void): Chart {
  const box = chartBox(spec.label, spec.testid);
  parent.appendChild(box);
  const xs = s.windows.map((w) => (w.start_offset_ms + w.end_offset_ms) / 2000);
  const positive = spec.lines.flatMap((l) => l.values).filter((v): v is number => v !== null && v > 0);
  const log = spec.logIfWide && positive.length > 0 && Math.max(...positive) / Math.min(...positive) > 100;
  const hc = isHighContrast();
  const first = s.windows[0];
  const last = s.windows[s.windows.length - 1];
  const kind = s.kind === 'sliding' ? `${fmtSpan(s.size_ms)} windows every ${fmtSpan(s.slide_ms)}` : s.kind === 'stages' ? 'stages' : `${fmtSpan(s.size_ms)} windows`;
  const u = new uPlot(
    {
      width: width(box),
      height: spec.height ?? SMALL,
      legend: { show: false },
      cursor: { y: false, drag: { x: false, y: false }, points: { size: 7 } },
      scales: { x: { time: false, range: [first.start_offset_ms / 1000, last.end_offset_ms / 1000] }, y: log ? { distr: 3, log: 10 } : { range: (_u, lo, hi) => [Math.min(0, lo), hi > 0 ? hi * 1.08 : 1] } },
      axes: axes(p, log ? `${spec.yLabel}, log scale` : spec.yLabel, `s since the first send (${kind}; points at the window middle)`),
      series: [{}, ...spec.lines.map((l) => ({ label: l.label, stroke: l.color, width: hc ? 2.5 : 1.5, dash: l.dash, fill: l.fill ? withAlpha(l.color, 0.15) : undefined }))],
      hooks: { drawClear: [(u2: uPlot) => shadeWorst(u2, s, p)] },
    },
    [xs, ...spec.lines.map((l) => (log ? l.values.map((v) => (v !== null && v > 0 ? v : null)) : l.values))] as uPlot.AlignedData,
    box,
  );
  interactive(u, box, xs.length, (i) => spec.describe(s.windows[i]), (i) => onPick(s.windows[i]));
  box.appendChild(legend(spec.lines));
  return { element: box, destroy: () => u.destroy() };
}

const ERROR_CLASSES: ReadonlyArray<{ key: keyof SeriesWindow['errors']; label: string; color: [string, string] }> = [
  { key: 'rejected', label: 'rejected', color: ['--vscode-charts-yellow', '#cca700'] },
  { key: 'timed_out', label: 'timed out', color: ['--vscode-charts-purple', '#b180d7'] },
  { key: 'transport_failed', label: 'transport failed', color: ['--vscode-charts-blue', '#3794ff'] },
  { key: 'canceled', label: 'canceled', color: ['--vscode-descriptionForeground', '#8b8b8b'] },
  { key: 'failed', label: 'failed', color: ['--vscode-charts-red', '#f14c4c'] },
];

function stat(o: SeriesStat | undefined, k: 'p50' | 'p95'): number | null {
  return o === undefined || o.n === 0 ? null : o[k];
}

/** Owners with data in some window, in the series' order. */
function withData(s: WindowSeries, owners: readonly string[]): string[] {
  return owners.filter((o) => s.owners.includes(o) && s.windows.some((w) => (w.owners[o]?.n ?? 0) > 0));
}

/** The owner line's label: `gateway`, `transport setup`, `client total`. */
function label(o: string): string {
  return ownerLabel(o);
}

export interface SeriesChartsInput {
  series: WindowSeries;
  stat: 'p50' | 'p95';
  p: Palette;
  onPick: (w: SeriesWindow) => void;
}

/** All the series charts into `parent`; the owner charts show `stat`. */
export function seriesCharts(parent: HTMLElement, input: SeriesChartsInput): Chart[] {
  const { series: s, stat: k, p, onPick } = input;
  const charts: Chart[] = [];
  const w = s.windows;
  const hasScheduled = w.some((x) => x.scheduled_per_s !== null);
  const rates: Line[] = [
    ...(hasScheduled ? [{ label: 'scheduled/s', color: p.muted, values: w.map((x) => x.scheduled_per_s), dash: [2, 3] }] : []),
    { label: 'started/s', color: p.foreground, values: w.map((x) => x.started_per_s) },
    { label: 'completed/s', color: p.pass, values: w.map((x) => x.completed_per_s), dash: [6, 3] },
  ];
  charts.push(
    seriesChart(parent, s, p, {
      label: 'requests per second per window: scheduled, started, completed; arrows move between windows',
      testid: 'chart-series-rates',
      yLabel: 'requests/s',
      lines: rates,
      logIfWide: false,
      describe: (x) => `window ${windowName(x)}: scheduled ${fmtRate(x.scheduled_per_s)}/s, started ${fmtRate(x.started_per_s)}/s, completed ${fmtRate(x.completed_per_s)}/s, ${fmtInt(x.started)} started`,
    }, onPick),
  );
  charts.push(
    seriesChart(parent, s, p, {
      label: 'mean requests in flight per window; arrows move between windows',
      testid: 'chart-series-inflight',
      yLabel: 'in flight (mean)',
      lines: [{ label: 'in flight', color: p.foreground, values: w.map((x) => x.in_flight), fill: true }],
      logIfWide: false,
      describe: (x) => `window ${windowName(x)}: ${fmtRate(x.in_flight)} requests in flight on average`,
    }, onPick),
  );
  const errors: Line[] = ERROR_CLASSES.map((c, i) => ({ label: c.label, color: cssVar(c.color[0], c.color[1]), values: w.map((x) => x.errors[c.key]), dash: i % 2 === 1 ? [5, 3] : undefined }));
  charts.push(
    seriesChart(parent, s, p, {
      label: 'errors by class per window (by send time); arrows move between windows',
      testid: 'chart-series-errors',
      yLabel: 'errors',
      lines: errors,
      logIfWide: false,
      describe: (x) => `window ${windowName(x)}: ${ERROR_CLASSES.map((c) => `${c.label} ${fmtInt(x.errors[c.key])}`).join(', ')}`,
    }, onPick),
  );
  if (w.some((x) => x.tokens_per_s !== null)) {
    charts.push(
      seriesChart(parent, s, p, {
        label: 'output tokens per second per window; arrows move between windows',
        testid: 'chart-series-tokens',
        yLabel: 'tokens/s',
        lines: [{ label: 'output tokens/s', color: p.owner('generation'), values: w.map((x) => x.tokens_per_s) }],
        logIfWide: false,
        describe: (x) => `window ${windowName(x)}: ${x.tokens_per_s === null ? MISSING : fmtInt(x.tokens_per_s)} output tokens/s`,
      }, onPick),
    );
  }
  // The phase columns sit between transport_setup_ms and unattributed_server_ms (catalog/series.ts).
  const from = s.owners.indexOf('transport_setup_ms');
  const to = s.owners.indexOf('unattributed_server_ms');
  const phases = from >= 0 && to > from ? s.owners.slice(from + 1, to) : [];
  const ownerCharts: Array<{ testid: string; title: string; unit: string; owners: string[] }> = [
    { testid: 'chart-series-owners', title: 'client total and each owner', unit: 'ms', owners: withData(s, ['client_total_ms', 'network_envelope_ms', 'transport_setup_ms', ...phases, 'unattributed_server_ms']) },
    { testid: 'chart-series-per-token', title: 'generation per output token', unit: 'ms/token', owners: withData(s, ['generation_ms_per_output_token']) },
    { testid: 'chart-series-ttft', title: 'the TTFT pair (client TTFT = TTFT envelope + server TTFT)', unit: 'ms', owners: withData(s, ['client_ttft_ms', 'ttft_envelope_ms', 'server_ttft_ms']) },
  ];
  for (const c of ownerCharts) {
    if (c.owners.length === 0) continue;
    const unit = c.unit === 'ms' ? (v: number | null): string => fmtMs(v) : (v: number | null): string => (v === null ? MISSING : `${fmtMs(v, false)} ms/token`);
    charts.push(
      seriesChart(parent, s, p, {
        label: `${k} of ${c.title} per window, over matched successes; arrows move between windows`,
        testid: c.testid,
        yLabel: `${k} (${c.unit})`,
        height: c.testid === 'chart-series-owners' ? 220 : SMALL,
        lines: c.owners.map((o, i) => ({ label: `${label(o)} ${k}`, color: p.owner(o), values: w.map((x) => stat(x.owners[o], k)), dash: i % 2 === 1 ? [5, 3] : undefined })),
        logIfWide: c.unit === 'ms',
        describe: (x) => `window ${windowName(x)}, ${k}: ${c.owners.map((o) => `${label(o)} ${unit(stat(x.owners[o], k))}`).join(', ')} (n=${fmtInt(x.owners[c.owners[0]]?.n ?? 0)})`,
      }, onPick),
    );
  }
  return charts;
}
