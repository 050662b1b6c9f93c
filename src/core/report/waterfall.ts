/**
 * The single-request view as text: the reconciliation lines (`key=value`, integers) that tie the
 * client's total to the server's phases, and the span waterfall as a bar chart scaled to the root.
 */
import type { TraceBreakdown, WaterfallSpan } from './model';
import { escapeLine } from '../escape';
import { formatMs, MISSING } from './format';
import { renderTable } from './text';

/** What reconcileTrace returns (structurally; the analysis owns the named type). */
export interface TraceReconciliationView {
  breakdown: TraceBreakdown;
  spans: WaterfallSpan[];
  matched: boolean;
  notes: string[];
}

/** Half away from zero, so that −0.5 and 0.5 round symmetrically (Math.round rounds −0.5 up to −0). */
export function roundHalfAway(value: number): number {
  const r = Math.sign(value) * Math.round(Math.abs(value));
  return r === 0 ? 0 : r;
}

function intOrNa(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : String(roundHalfAway(value));
}

/**
 * The reconciliation block, one `key=value` per line. Each figure is computed at full precision and
 * rounded only here, so the lines need not add up exactly after rounding (the truth is the unrounded sum).
 * `phaseNames` are phase names without `_ms`, in the configured order.
 */
export function renderReconciliationLines(rec: TraceReconciliationView, phaseNames: readonly string[]): string[] {
  const b = rec.breakdown;
  const envelope =
    b.network_envelope_ms ?? (b.client_total_ms !== null && b.server_root_ms !== null ? b.client_total_ms - b.server_root_ms : null);
  const out = [
    `trace_id=${escapeLine(b.trace_id)}`,
    `k6_total_ms=${intOrNa(b.client_total_ms)}`,
    `server_root_ms=${intOrNa(b.server_root_ms)}`,
    `network_envelope_ms=${intOrNa(envelope)}`,
  ];
  for (const phase of phaseNames) {
    const key = `${phase}_ms`;
    out.push(`${key}=${intOrNa(b.phases[key] ?? b.phases[phase] ?? null)}`);
  }
  out.push(`unattributed_server_ms=${intOrNa(b.unattributed_server_ms)}`);
  return out;
}

export interface WaterfallOptions {
  /** Characters of the bar column (default 40). */
  barWidth?: number;
  /** Longest name shown before it is cut with an ellipsis (default 48, indentation included). */
  maxNameWidth?: number;
}

/**
 * One line per span, indented by depth, with service, start offset, duration, phase and a bar whose
 * length is the span's share of the root's duration. Spans reaching past the root end are cut at the
 * root and marked with `›` (the root defines the scale; a span outside it is itself a finding).
 */
export function renderWaterfallText(spans: readonly WaterfallSpan[], options: WaterfallOptions = {}): string[] {
  if (spans.length === 0) return ['(no spans)'];
  const barWidth = options.barWidth ?? 40;
  const maxName = options.maxNameWidth ?? 48;
  const root = spans.find((s) => s.depth === 0) ?? spans[0];
  const origin = root.start_ms;
  // A loop, not Math.max(...spans): a trace of 500,000 spans overflowed the call stack with the spread.
  const scale = root.duration_ms > 0 ? root.duration_ms : spans.reduce((m, s) => Math.max(m, s.start_ms + s.duration_ms - origin), 1);
  // Names and services come from the span files: escaped before they are cut to width (escape.ts).
  const rows = spans.map((s) => [
    truncate(`${'  '.repeat(s.depth)}${escapeLine(s.name ?? '')}`, maxName),
    s.service === null || s.service === undefined ? MISSING : escapeLine(s.service),
    formatMs(s.start_ms - origin, false),
    formatMs(s.duration_ms, false),
    s.phase ?? MISSING,
    `|${bar(s.start_ms - origin, s.duration_ms, scale, barWidth)}|`,
  ]);
  const head = `waterfall: ${spans.length} spans, bars scaled to the root (${formatMs(root.duration_ms)} = ${barWidth} columns)`;
  return [head, ...renderTable({ kind: 'table', header: ['span', 'service', 'start ms', 'dur ms', 'phase', 'timeline'], rows, align: ['left', 'left', 'right', 'right', 'left', 'left'] })];
}

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** A bar from start to end on a `width`-column scale; at least one column so short spans stay visible. */
export function bar(startMs: number, durationMs: number, scaleMs: number, width: number): string {
  const from = Math.min(width - 1, Math.max(0, Math.floor((startMs / scaleMs) * width)));
  const endExact = ((startMs + durationMs) / scaleMs) * width;
  const overflow = endExact > width + 1e-9;
  const to = Math.max(from + 1, Math.min(width, Math.ceil(endExact - 1e-9)));
  const cells: string[] = Array.from({ length: width }, (_, i) => (i >= from && i < to ? '█' : ' '));
  if (overflow) cells[width - 1] = '›';
  return cells.join('');
}
