/**
 * The workload: its fields, the run's timeline (rate over time through ramp, plateau or stages and
 * drain, the warm-up excluded and the steady window marked), Little's law against max_in_flight and
 * pre_allocated_vus, and the session tail probability. SVG drawn with CSS classes, so it follows the
 * theme without a redraw; every figure is also written out as text.
 */
import type { ContractFormModel, InFlightEstimate, SessionTail, WorkloadTimeline } from '../../src/core/contract/form/types';
import { h } from '../shared/dom';
import { fmtDuration, fmtInt, fmtPct } from '../shared/format';
import { fieldGrid, type FormContext } from './fields';

const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.appendChild(document.createTextNode(text));
  return el;
}

/** `5m`, `1h 2m`, `45s`, `250ms`: for axis labels. */
function span(ms: number): string {
  if (ms >= 3_600_000) return `${Math.floor(ms / 3_600_000)}h${ms % 3_600_000 ? ` ${Math.round((ms % 3_600_000) / 60_000)}m` : ''}`;
  if (ms >= 60_000) return `${Math.floor(ms / 60_000)}m${ms % 60_000 ? ` ${Math.round((ms % 60_000) / 1000)}s` : ''}`;
  if (ms >= 1000) return `${+(ms / 1000).toFixed(1)}s`;
  return `${ms}ms`;
}

function unitLabel(t: WorkloadTimeline): string {
  return t.unit === 'vus' ? 'VUs' : `per ${span(t.timeUnitMs)}`;
}

export function timelineChart(t: WorkloadTimeline): SVGSVGElement {
  const W = 720;
  const H = 150;
  const pad = { l: 44, r: 10, t: 16, b: 30 };
  const peak = Math.max(1, ...t.segments.map((s) => Math.max(s.fromRate, s.toRate)));
  const total = Math.max(1, t.totalMs);
  const x = (ms: number): number => pad.l + (ms / total) * (W - pad.l - pad.r);
  const y = (r: number): number => H - pad.b - (r / peak) * (H - pad.t - pad.b);
  const desc = `Timeline: ${t.segments.map((s) => `${s.kind} ${span(s.endMs - s.startMs)} ${s.fromRate === s.toRate ? `at ${s.toRate}` : `${s.fromRate}→${s.toRate}`}`).join(', ')} (${unitLabel(t)})${t.steady ? `; steady window ${span(t.steady.startMs)}–${span(t.steady.endMs)}` : ''}`;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'cf-timeline', role: 'img', 'aria-label': desc, 'data-testid': 'timeline' });
  root.appendChild(svg('title', {}, desc));
  if (t.warmup) root.appendChild(svg('rect', { class: 'cf-tl-warmup', x: x(t.warmup.startMs), y: pad.t, width: Math.max(0, x(t.warmup.endMs) - x(t.warmup.startMs)), height: H - pad.t - pad.b }));
  if (t.steady) root.appendChild(svg('rect', { class: 'cf-tl-steady', x: x(t.steady.startMs), y: pad.t, width: Math.max(0, x(t.steady.endMs) - x(t.steady.startMs)), height: H - pad.t - pad.b }));
  const points: string[] = [];
  for (const s of t.segments) points.push(`${x(s.startMs)},${y(s.fromRate)}`, `${x(s.endMs)},${y(s.toRate)}`);
  root.appendChild(svg('polyline', { class: 'cf-tl-rate', points: points.join(' ') }));
  root.appendChild(svg('line', { class: 'cf-tl-axis', x1: pad.l, y1: H - pad.b, x2: W - pad.r, y2: H - pad.b }));
  root.appendChild(svg('line', { class: 'cf-tl-axis', x1: pad.l, y1: pad.t, x2: pad.l, y2: H - pad.b }));
  root.appendChild(svg('text', { class: 'cf-tl-label', x: pad.l - 4, y: y(peak) + 4, 'text-anchor': 'end' }, fmtInt(peak)));
  root.appendChild(svg('text', { class: 'cf-tl-label', x: pad.l - 4, y: H - pad.b + 4, 'text-anchor': 'end' }, '0'));
  root.appendChild(svg('text', { class: 'cf-tl-label', x: pad.l + 4, y: pad.t - 4 }, t.unit === 'vus' ? 'VUs' : `arrivals ${unitLabel(t)}`));
  for (const s of t.segments) {
    if (x(s.endMs) - x(s.startMs) < 36) continue;
    root.appendChild(svg('text', { class: 'cf-tl-label', x: (x(s.startMs) + x(s.endMs)) / 2, y: H - 10, 'text-anchor': 'middle' }, `${s.kind} ${span(s.endMs - s.startMs)}`));
  }
  if (t.steady && x(t.steady.endMs) - x(t.steady.startMs) > 60) {
    root.appendChild(svg('text', { class: 'cf-tl-label cf-tl-steady-label', x: (x(t.steady.startMs) + x(t.steady.endMs)) / 2, y: pad.t - 4, 'text-anchor': 'middle' }, 'steady window'));
  }
  return root;
}

function check(ok: boolean): HTMLElement {
  return h('span', { class: ok ? 'cf-ok' : 'cf-bad' }, ok ? '✓' : '✗');
}

export function inFlightBox(e: InFlightEstimate | null, m: ContractFormModel): HTMLElement {
  if (!e) return h('p', { class: 'pw-muted', attrs: { 'data-testid': 'littles-law' } }, m.fields['/workload/executor']?.value?.toString().includes('vus') ? 'A closed model: the VUs are the concurrency; Little’s law applies to arrival-rate executors.' : 'Little’s law needs an arrival rate and a total-latency objective.');
  const basis = e.rows.find((r) => r.stat === e.basis) ?? e.rows[0];
  const calls = e.callsPerIteration > 1 ? ` × ${e.callsPerIteration} calls per session` : '';
  const lines = e.rows.map((r) => h('li', { class: r.stat === e.basis ? 'cf-basis' : '' }, `at ${r.stat} ${fmtDuration(r.sloMs)}: ${fmtNum(e.peakPerSecond)}/s × ${fmtNum(r.sloMs / 1000)} s${calls} = ${fmtNum(r.inFlight)} in flight`));
  const max = e.maxInFlight;
  const pre = e.preAllocatedVus;
  return h(
    'div',
    { class: 'cf-box', attrs: { 'data-testid': 'littles-law' } },
    h('h3', null, 'Little’s law: concurrency the generator must hold'),
    h('ul', null, ...lines),
    h('p', null, check(max !== null && max >= basis.needed), ' ', max === null ? `max_in_flight not set: the k6 script allows what the timeout can hold; at least ${fmtInt(basis.needed)} are needed` : max >= basis.needed ? `max_in_flight ${fmtInt(max)} covers the ${fmtInt(basis.needed)} needed at ${basis.stat} (${fmtNum(max / basis.needed)}×)` : `max_in_flight ${fmtInt(max)} is below the ${fmtInt(basis.needed)} needed at ${basis.stat}: the generator drops iterations when latency nears the SLO`),
    h('p', null, check(pre === null || pre >= basis.needed), ' ', pre === null ? `pre_allocated_vus not set: the k6 script pre-allocates Little’s law at the SLO` : pre >= basis.needed ? `pre_allocated_vus ${fmtInt(pre)} covers it` : `pre_allocated_vus ${fmtInt(pre)} is below ${fmtInt(basis.needed)}: k6 starts the other ${fmtInt(basis.needed - pre)} VUs during the run, while it is measuring`),
  );
}

function fmtNum(v: number): string {
  return Number.isInteger(v) ? fmtInt(v) : String(Math.round(v * 100) / 100);
}

export function sessionTailBox(s: SessionTail): HTMLElement {
  const k = s.callsPerSession ?? 1;
  return h(
    'div',
    { class: 'cf-box', attrs: { 'data-testid': 'session-tail' } },
    h('h3', null, `Session tail: ${k} call${k === 1 ? '' : 's'} per session${s.callsPerSession === null ? ' (calls_per_session not set)' : ''}`),
    s.rows.length === 0
      ? h('p', { class: 'pw-muted' }, 'No total or TTFT objective to compute it for.')
      : h('ul', null, ...s.rows.map((r) => h('li', null, `${r.metric} ${r.stat}: ${fmtPct(r.share)} of calls may exceed it, so 1 − (1 − ${fmtPct(r.share)})^${k} = `, h('strong', null, fmtPct(r.probability)), ` of sessions see at least one`))),
  );
}

const WORKLOAD_FIELDS = ['model', 'executor', 'rate', 'time_unit', 'start_rate', 'vus', 'ramp', 'plateau', 'drain', 'warmup_exclude', 'max_in_flight', 'pre_allocated_vus', 'calls_per_session'].map((k) => `/workload/${k}`);

export function workloadSection(ctx: FormContext): Node[] {
  const m = ctx.model;
  const stages = Object.keys(m.fields).filter((p) => /^\/workload\/stages\/\d+\/(target|duration)$/.test(p));
  const t = m.timeline;
  const total = h('p', { class: 'pw-muted', attrs: { 'data-testid': 'timeline-text' } }, `${span(t.totalMs)} in all: ${t.segments.map((s) => `${s.kind} ${span(s.endMs - s.startMs)}`).join(' → ')}; rate ${unitLabel(t)}${t.steady ? `; steady window ${span(t.steady.startMs)} → ${span(t.steady.endMs)} (${span(t.steady.endMs - t.steady.startMs)})` : '; no steady window'}`);
  return [
    fieldGrid(ctx, WORKLOAD_FIELDS),
    ...(stages.length > 0 ? [h('h3', null, 'Stages'), fieldGrid(ctx, stages)] : []),
    timelineChart(t),
    total,
    h('div', { class: 'cf-columns' }, inFlightBox(m.inFlight, m), sessionTailBox(m.sessionTail)),
  ];
}
