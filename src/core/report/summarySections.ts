/**
 * The first half of the report: the verdict and why, join coverage both ways, who owns the p95, and
 * the decomposition with its populations. Each builder returns a Section or undefined (nothing to say).
 */
import type { EnvelopeSummary, MetricTable, QuantileSummary, Report } from './model';
import { lines, table, type Section } from './document';
import { formatCount, formatMs, formatNumber, formatShare, isDurationMetric, MISSING, verdictLabel } from './format';

/** The report's first line: the verdict, and the broken phase when a budget broke. */
export function verdictTitle(report: Report): string {
  const { verdict } = report;
  const broken = verdict.broken_phase ? ` (${verdict.broken_phase} budget broke)` : '';
  return `Phasewise verdict: ${verdictLabel(verdict.status)}${broken}`;
}

export function verdictSection(report: Report): Section {
  const { verdict } = report;
  const reasons = verdict.reasons.length > 0 ? verdict.reasons : [defaultReason(verdict.status)];
  const failed = report.gates.filter((g) => g.status === 'fail').length;
  const noData = report.gates.filter((g) => g.status === 'no_data').length;
  const summary =
    report.gates.length === 0
      ? 'no gates: give a load contract or thresholds to evaluate the run'
      : `${report.gates.length} gates: ${report.gates.length - failed - noData} passed, ${failed} failed, ${noData} without data`;
  return { title: 'Why', blocks: [lines(reasons, true), lines([summary])] };
}

function defaultReason(status: string): string {
  switch (status) {
    case 'pass':
      return 'the workload was delivered and every gate passed';
    case 'not_evaluated':
      return 'nothing to evaluate: no gates';
    default:
      return 'no reason was recorded';
  }
}

/** Join coverage both ways: client → server (the coverage of docs/metrics.md §1) and server → client (orphans). */
export function joinSection(report: Report): Section {
  const j = report.join;
  // Older reports (JSON written before the request-ID join) have no key: they joined by trace ID.
  const byRequest = j.key === 'request_id';
  const id = byRequest ? 'request ID' : 'trace ID';
  const how = byRequest
    ? [`joined by request ID: the client records' request_id against the span attribute ${j.key_attribute ?? ''}`]
    : [];
  if (j.applicable === false) {
    return {
      title: 'Join coverage',
      blocks: [lines([...how, `not applicable: none of the ${formatCount(j.client_requests)} client requests carries a ${id}, so no span can be joined to them; the figures are client-only`])],
    };
  }
  const clientSide = [
    `client → server: ${formatCount(j.matched)} of ${formatCount(j.client_requests)} client requests matched a trace with exactly one root (${formatShare(j.coverage)})`,
    `  of ${formatCount(j.valid_trace_ids)} with a valid ${id}: ${formatShare(j.coverage_of_valid)}` +
      ` · without a ${id} ${formatCount(j.client_requests - j.with_trace_id)}` +
      (byRequest ? '' : ` · invalid trace IDs ${formatCount(j.invalid_trace_ids)}`),
    `  unmatched ${formatCount(j.unmatched_client)} · lost roots ${formatCount(j.lost_roots)}` +
      ` · duplicate client ${id}s ${formatCount(j.client_duplicate_trace_ids)}`,
  ];
  const serverRooted = j.matched + j.orphan_server_roots;
  const serverSide = [
    `server → client: ${formatCount(j.server_traces)} traces (${formatCount(j.server_spans)} spans);` +
      ` ${formatCount(j.orphan_server_roots)} server roots ${byRequest ? 'no client record is joined to' : 'carry a trace ID no client record has'}` +
      (serverRooted > 0 ? ` (${formatShare(j.orphan_server_roots / serverRooted)} of rooted traces)` : ''),
    `  traces with several candidate roots ${formatCount(j.server_multi_root_traces)} (collisions: not joined)`,
    ...(byRequest ? [`  request IDs on the spans of several traces ${formatCount(j.server_ambiguous_ids ?? 0)} (collisions: not joined)`] : []),
  ];
  return { title: 'Join coverage', blocks: [lines([...how, ...clientSide, ...serverSide])] };
}

/** "Who owns the p95": mean of each phase over the requests above the client p95, and its share. */
export function tailAttributionSection(report: Report): Section {
  const t = report.tail_attribution;
  const head =
    t.n === 0
      ? ['no matched successful requests above the p95: nothing to attribute']
      : [
          `the tail = ${formatCount(t.n)} matched successful requests with client_total_ms above its p95 (${formatMs(t.threshold_ms)});` +
            ` mean client_total_ms ${formatMs(t.mean_client_total_ms)}`,
        ];
  const owner = [...t.phases].sort((a, b) => b.share - a.share)[0];
  if (owner && t.n > 0) head.push(`largest owner: ${owner.phase} (${formatShare(owner.share)} of the tail's time)`);
  const blocks: Section['blocks'] = [lines(head)];
  if (t.phases.length > 0) {
    blocks.push(table(['owner', 'mean ms', 'share'], t.phases.map((p) => [p.phase, formatMs(p.mean_ms, false), formatShare(p.share)])));
  }
  const tail = report.tail;
  const figures = [
    `tail ratio p95/p50 ${formatNumber(tail.tail_ratio)}`,
    tail.budget_ms !== null ? `share above the ${formatMs(tail.budget_ms)} budget ${formatShare(tail.tail_share)}` : 'no tail budget given',
  ];
  if (tail.calls_per_session !== null) {
    figures.push(`session tail probability (${tail.calls_per_session} calls/session) ${formatShare(tail.session_tail_probability)}`);
  }
  blocks.push(lines([figures.join(' · ')]));
  return { title: 'Who owns the p95', blocks };
}

/** One metric table (decomposition, client-only or server-only), each row with its n. */
export function metricTableSection(title: string, population: string, metrics: MetricTable): Section | undefined {
  const names = Object.keys(metrics);
  if (names.length === 0) return undefined;
  const rows = names.map((name) => metricRow(name, metrics[name]));
  return {
    title,
    blocks: [lines([`population: ${population}`]), table(['metric', 'n', 'p50', 'p95', 'p99', 'mean', 'max'], rows)],
  };
}

function metricRow(name: string, s: QuantileSummary): string[] {
  const f = (v: number | null): string => (isDurationMetric(name) ? formatMs(v, false) : formatNumber(v));
  return [name, formatCount(s.n), f(s.p50), f(s.p95), f(s.p99), f(s.mean), f(s.max)];
}

function isEnvelope(summary: QuantileSummary): summary is EnvelopeSummary {
  return (summary as Partial<EnvelopeSummary>).negative !== undefined;
}

/** Negative envelopes are never clamped: they are shown with count, share and the most negative value. */
export function negativeEnvelopeSection(report: Report): Section {
  const found: string[] = [];
  for (const [name, summary] of Object.entries(report.metrics)) {
    if (!isEnvelope(summary)) continue;
    const neg = summary.negative;
    found.push(
      `${name} < 0 in ${formatCount(neg.count)} of ${formatCount(summary.n)} matched requests (${formatShare(neg.share)});` +
        ` most negative ${neg.most_negative_ms === null ? MISSING : formatMs(neg.most_negative_ms)}`,
    );
  }
  if (found.length === 0) found.push('no envelope figures (no matched requests)');
  const hint =
    'a few ms below zero usually means the root span ends before the response is flushed (extend it through response.write);' +
    ' large negatives mean wrong units or a bad join';
  return { title: 'Negative envelopes', blocks: [lines(found), lines([hint])] };
}
