/** Figures several report sections print the same way: the tail-attribution bar and tail line, ratios, p-values, sizes. */
import type { TailAttribution, TailFigures } from '../../src/core/report/model';
import { h } from '../shared/dom';
import { fmtInt, fmtMs, fmtPct, MISSING, ownerLabel } from '../shared/format';
import type { Palette } from '../shared/theme';

/** `1.234` → `1.23`; null → —. */
export function fmtRatio(v: number | null): string {
  return v === null || !Number.isFinite(v) ? MISSING : v.toFixed(2);
}

/** A p-value as the CLI prints it: exponent below 1e-4, else four decimals. */
export function fmtP(v: number | null): string {
  return v === null ? MISSING : v < 1e-4 ? v.toExponential(1) : v.toFixed(4);
}

/** The size of a file: bytes below 1 MB, else MB with two decimals. */
export function fmtBytes(b: number): string {
  return b >= 1_000_000 ? `${(b / 1_000_000).toFixed(2)} MB` : `${fmtInt(b)} B`;
}

/** A tail-attribution bar (owner means stacked); `label` names whose tail it is. */
export function tailBar(t: TailAttribution, p: Palette, label: string, testid: string): HTMLElement {
  const total = t.phases.reduce((a, x) => a + Math.max(0, x.mean_ms), 0);
  const bar = h('div', { class: 'rp-stack', role: 'img', attrs: { 'aria-label': `${label}: ${t.phases.map((x) => `${ownerLabel(x.phase)} ${fmtPct(x.share)}`).join(', ')}`, 'data-testid': testid } });
  for (const x of t.phases) {
    if (!(x.mean_ms > 0) || total <= 0) continue;
    const seg = h('div', { class: `rp-stack-seg${x.phase === 'unattributed_server' || x.phase === 'network_envelope' ? ' pw-hatch-light' : ''}`, title: `${ownerLabel(x.phase)}: mean ${fmtMs(x.mean_ms)}, ${fmtPct(x.share)} of the tail` }, x.share >= 0.08 ? `${ownerLabel(x.phase)} ${fmtPct(x.share)}` : '');
    seg.style.width = `${(x.mean_ms / total) * 100}%`;
    seg.style.background = p.owner(x.phase);
    bar.appendChild(seg);
  }
  return bar;
}

/** The tail line under a tail table: ratio, share above the budget, session probability. */
export function tailLine(tail: TailFigures): string {
  return `tail ratio p95/p50 ${fmtRatio(tail.tail_ratio)} · above the budget ${fmtMs(tail.budget_ms)}: ${fmtPct(tail.tail_share)}${tail.session_tail_probability !== null ? ` · a session of ${tail.calls_per_session} calls hits the tail with probability ${fmtPct(tail.session_tail_probability)}` : ''}`;
}

