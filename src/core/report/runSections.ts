/**
 * The second half of the report: outcome ledger, windows, gates, slow traces, k6's own summary beside
 * ours, inputs with skipped lines, definitions and warnings.
 */
import type { GateResult, K6SummaryComparison, QuantileSummary, Report, TraceBreakdown } from './model';
import { lines, table, type Section } from './document';
import { formatCount, formatMegabytes, formatMetricValue, formatMs, formatNumber, formatPosition, formatShare, MISSING } from './format';

export function ledgerSection(report: Report): Section {
  const o = report.outcomes;
  const out: string[] = [];
  out.push(
    o.scheduled === null
      ? `scheduled: unknown (the generator reported no iteration count) · generator_dropped ${formatCount(o.generator_dropped)}`
      : `scheduled ${formatCount(o.scheduled)} = started ${formatCount(o.started)} + generator_dropped ${formatCount(o.generator_dropped)}`,
  );
  out.push(
    `started ${formatCount(o.started)} = succeeded ${formatCount(o.succeeded)} + rejected ${formatCount(o.rejected)}` +
      ` + timed_out ${formatCount(o.timed_out)} + transport_failed ${formatCount(o.transport_failed)}` +
      ` + canceled ${formatCount(o.canceled)} + failed ${formatCount(o.failed)}` +
      (o.in_flight > 0 ? ` (+ in_flight ${formatCount(o.in_flight)})` : ''),
  );
  out.push(`error rate ${formatShare(o.error_rate)}`);
  out.push(o.reconciles ? 'the ledger reconciles' : 'the ledger does NOT reconcile:');
  const blocks = [lines(out)];
  if (!o.reconciles && o.discrepancies.length > 0) blocks.push(lines(o.discrepancies, true));
  return { title: 'Outcome ledger', blocks };
}

function quantileCell(q: QuantileSummary, stat: 'p95' | 'p50'): string {
  return q.n === 0 ? MISSING : `${formatMs(q[stat], false)} (n=${formatCount(q.n)})`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

export function windowsSection(report: Report): Section | undefined {
  const w = report.windows;
  if (w.windows.length === 0) return undefined;
  const worst = w.worst === null ? undefined : w.windows.find((x) => x.index === w.worst);
  const head = worst
    ? `worst window #${worst.index} (${seconds(worst.start_offset_ms)}–${seconds(worst.end_offset_ms)}):` +
      ` client_total_ms p95 ${formatMs(worst.client_total_ms.p95)} (n=${formatCount(worst.client_total_ms.n)}),` +
      ` ${formatCount(worst.errors)} errors of ${formatCount(worst.started)} started`
    : 'no window has matched successful requests (the per-window latency figures need the join)';
  const rows = w.windows.map((x) => [
    `${x.index === w.worst ? '*' : ''}${x.index}`,
    `${seconds(x.start_offset_ms)}–${seconds(x.end_offset_ms)}`,
    formatCount(x.started),
    formatCount(x.succeeded),
    formatCount(x.errors),
    quantileCell(x.client_total_ms, 'p95'),
    quantileCell(x.network_envelope_ms, 'p95'),
    x.steady ? 'yes' : 'no',
  ]);
  return {
    title: `Windows (${seconds(w.size_ms)} each)`,
    blocks: [
      lines([head]),
      lines(['latency columns: matched successful requests in the window']),
      table(['#', 'offset', 'started', 'ok', 'errors', 'client p95 ms', 'envelope p95 ms', 'steady'], rows, [
        'right',
        'left',
        'right',
        'right',
        'right',
        'right',
        'right',
        'left',
      ]),
    ],
  };
}

function gateName(g: GateResult): string {
  return g.origin ? `${g.id} (${g.origin})` : g.id;
}

export function gatesSection(report: Report): Section | undefined {
  if (report.gates.length === 0) return undefined;
  const rows = report.gates.map((g) => [
    g.status === 'no_data' ? 'NO DATA' : g.status.toUpperCase(),
    gateName(g),
    `${g.metric}.${g.stat}`,
    formatMetricValue(g.metric, g.stat, g.observed),
    `${g.op} ${formatMetricValue(g.metric, g.stat, g.limit)}`,
    g.n === null ? MISSING : formatCount(g.n),
    g.window,
  ]);
  return {
    title: 'Gates',
    blocks: [
      table(['status', 'gate', 'figure', 'observed', 'limit', 'n', 'window'], rows, [
        'left',
        'left',
        'left',
        'right',
        'right',
        'right',
        'left',
      ]),
    ],
  };
}

export function slowTracesSection(report: Report): Section | undefined {
  if (report.slow_traces.length === 0) return undefined;
  const phaseNames = phaseColumns(report.slow_traces);
  const rows = report.slow_traces.map((t) => [
    t.trace_id,
    t.outcome,
    formatMs(t.client_total_ms, false),
    formatMs(t.server_root_ms, false),
    formatMs(t.network_envelope_ms, false),
    ...phaseNames.map((p) => formatMs(t.phases[p], false)),
    formatMs(t.unattributed_server_ms, false),
  ]);
  return {
    title: 'Slow traces (ms)',
    blocks: [
      lines(['the slowest matched successes by client_total_ms; `phasewise reconcile --trace ID` shows one in full']),
      table(['trace_id', 'outcome', 'client_total', 'server_root', 'envelope', ...phaseNames, 'unattributed'], rows, [
        'left',
        'left',
      ]),
    ],
  };
}

/** Phase keys in first-seen order (the analysis writes them in the configured phase order). */
export function phaseColumns(traces: readonly TraceBreakdown[]): string[] {
  const seen: string[] = [];
  for (const t of traces) for (const key of Object.keys(t.phases)) if (!seen.includes(key)) seen.push(key);
  return seen;
}

/** k6 stat names → our QuantileSummary fields. */
const K6_STATS: Array<[string, keyof QuantileSummary]> = [
  ['avg', 'mean'],
  ['med', 'p50'],
  ['p(95)', 'p95'],
  ['p(99)', 'p99'],
  ['min', 'min'],
  ['max', 'max'],
];

/** k6 metrics that have a Phasewise client-only counterpart. */
const K6_COUNTERPARTS: Record<string, string> = {
  http_req_duration: 'client_total_ms',
  http_req_waiting: 'client_ttfb_ms',
};

export function k6SummarySection(report: Report): Section | undefined {
  if (report.k6_summaries.length === 0) return undefined;
  const blocks = report.k6_summaries.flatMap((summary) => k6Blocks(summary, report));
  return { title: "k6's own summary, beside ours", blocks };
}

function k6Blocks(summary: K6SummaryComparison, report: Report): Section['blocks'] {
  const rows: string[][] = [];
  for (const [k6Metric, ours] of Object.entries(K6_COUNTERPARTS)) {
    const k6 = summary.metrics[k6Metric];
    if (!k6) continue;
    const mine = report.client_only[ours];
    for (const [stat, field] of K6_STATS) {
      if (k6[stat] === undefined && !mine) continue;
      rows.push([
        `${k6Metric} ${stat}`,
        formatMs(k6[stat], false),
        mine ? formatMs(mine[field], false) : MISSING,
        mine ? `${ours} (n=${formatCount(mine.n)})` : MISSING,
      ]);
    }
  }
  const others = Object.entries(summary.metrics)
    .filter(([m]) => !(m in K6_COUNTERPARTS))
    .map(([m, stats]) => `${m}: ${Object.entries(stats).map(([s, v]) => `${s}=${formatNumber(v)}`).join(', ')}`);
  const blocks: Section['blocks'] = [lines([`from ${summary.path} (aggregates only; never used in place of our figures)`])];
  if (rows.length > 0) blocks.push(table(['k6 figure', 'k6 ms', 'phasewise ms', 'phasewise figure (all client successes)'], rows));
  if (others.length > 0) blocks.push(lines(others, true));
  return blocks;
}

export function inputsSection(report: Report): Section {
  const rows = report.inputs.map((s) => [
    s.side,
    s.format,
    formatMegabytes(s.bytes),
    formatCount(s.records),
    formatCount(s.skipped),
    s.path,
  ]);
  const blocks: Section['blocks'] = [
    table(['side', 'format', 'size', 'records', 'skipped', 'path'], rows, ['left', 'left', 'right', 'right', 'right', 'left']),
  ];
  const issues = report.load_issues;
  if (issues.total > 0) {
    const byCode = Object.entries(issues.by_code)
      .map(([code, n]) => `${code} ${formatCount(n)}`)
      .join(', ');
    blocks.push(lines([`${formatCount(issues.total)} load issues: ${byCode}`]));
    const skips = report.inputs.flatMap((s) =>
      Object.entries(s.skipped_by_kind).map(([code, k]) => `${s.path}: skipped ${formatCount(k.count)} ${k.unit}${k.count === 1 ? '' : 's'} (${code})`),
    );
    if (skips.length > 0) blocks.push(lines(skips, true));
    blocks.push(
      lines(
        issues.examples.map((e) => `${formatPosition(e.path, e.line, e.position)}: ${e.severity} ${e.code}: ${e.message}`),
        true,
      ),
    );
  } else {
    blocks.push(lines(['no lines skipped, no load issues']));
  }
  return { title: 'Inputs and skipped lines', blocks };
}

export function definitionsSection(report: Report): Section | undefined {
  const entries = Object.entries(report.definitions);
  if (entries.length === 0) return undefined;
  return { title: 'Definitions', blocks: [lines(entries.map(([k, v]) => `${k}: ${v}`), true)] };
}

export function warningsSection(report: Report): Section | undefined {
  if (report.warnings.length === 0) return undefined;
  return { title: 'Warnings', blocks: [lines(report.warnings, true)] };
}
