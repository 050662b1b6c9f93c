/**
 * The report's stage section: a stepped run's table per stage (target and achieved start rate,
 * completions, successes, in-flight, errors, each owner's p95 over the stage alone) and the knee with
 * its evidence, or why the run has no stages.
 */
import type { Report, StageRow, StagesReport } from './model';
import { lines, table, type Section } from './document';
import { formatCount, formatMs, formatNumber, formatShare, MISSING } from './format';

/** Owner columns of the text (the p50s and the other owners are in --format json). */
const LABELS: Readonly<Record<string, string>> = {
  client_total_ms: 'total',
  network_envelope_ms: 'envelope',
  unattributed_server_ms: 'unattr',
  client_ttft_ms: 'ttft',
};

/** Total, envelope, the phases, unattributed and TTFT, each only when some stage has values of it. */
function shownOwners(list: readonly StageRow[]): string[] {
  const keys = Object.keys(list[0]?.owners ?? {});
  // The phase columns sit between transport_setup_ms and unattributed_server_ms (catalog/series.ts).
  const from = keys.indexOf('transport_setup_ms');
  const to = keys.indexOf('unattributed_server_ms');
  const phases = from >= 0 && to > from ? keys.slice(from + 1, to) : [];
  const order = ['client_total_ms', 'network_envelope_ms', ...phases, 'unattributed_server_ms', 'client_ttft_ms'];
  return order.filter((o) => list.some((r) => (r.owners[o]?.n ?? 0) > 0));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(0)}s`;
}

function row(r: StageRow, owners: readonly string[], knee: number | null): string[] {
  const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
  return [
    `${r.index === knee ? '*' : ''}${r.label}${r.partial ? ' (partial)' : ''}`,
    `${seconds(r.start_offset_ms)}–${seconds(r.end_offset_ms)}`,
    r.target_per_s === null ? MISSING : formatNumber(r.target_per_s, 1),
    formatNumber(r.started_per_s, 1),
    formatNumber(r.completed_per_s, 1),
    formatNumber(r.goodput_per_s, 1),
    formatNumber(r.in_flight, 1),
    `${formatCount(errors)}${errors > 0 ? ` (${formatShare(r.error_rate)})` : ''}`,
    ...owners.map((o) => {
      const s = r.owners[o];
      return s === undefined || s.n === 0 ? MISSING : formatMs(s.p95, false);
    }),
  ];
}

function checkLine(s: StagesReport): string[] {
  const byIndex = new Map(s.list.map((r) => [r.index, r.label]));
  return s.checks.map((c) => {
    const gain = (v: number | null): string => (v === null ? MISSING : `×${v.toFixed(2)}`);
    const against = c.compared_with === null ? 'no lower stage to compare with' : `against ${byIndex.get(c.compared_with)}: starts ${gain(c.load_gain)}, successes ${gain(c.throughput_gain)}, queue p95 ${gain(c.queue_gain)}`;
    const target = c.achieved_ratio === null ? '' : `; achieved ${formatShare(c.achieved_ratio)} of target`;
    return `${byIndex.get(c.index)}: ${against}${target}${c.reasons.length > 0 ? ` → ${c.reasons.join(', ')}` : ''}`;
  });
}

export function stagesSection(report: Report): Section | undefined {
  const s = report.stages;
  if (s.source === 'none') return undefined;
  const owners = shownOwners(s.list);
  const header = ['stage', 'offset', 'target/s', 'start/s', 'done/s', 'ok/s', 'in flight', 'errors', ...owners.map((o) => LABELS[o] ?? o.replace(/_ms$/, ''))];
  const blocks: Section['blocks'] = [lines([s.summary])];
  if (s.knee !== null) blocks.push(lines([`knee: ${s.knee.text}`]));
  blocks.push(
    lines([
      'rates per second: target/s and start/s by send time, done/s (all outcomes) and ok/s (successes) by end time; errors by send time; owner columns: p95 in ms over each stage\'s own matched successes (never pooled across stages; n and p50 in --format json)',
    ]),
    table(header, s.list.map((r) => row(r, owners, s.knee?.index ?? null)), header.map((_, i) => (i < 2 ? 'left' : 'right'))),
  );
  if (s.checks.length > 0) blocks.push(lines(['knee tests per stage (queue p95 gain with ε; queue_growth when it exceeds the successes\' gain):']), lines(checkLine(s), true));
  if (s.not_evaluated.length > 0) blocks.push(lines(['not evaluated:']), lines(s.not_evaluated, true));
  return { title: `Stages and the knee (${s.source === 'contract' ? "the contract's stages" : `detected from the ${s.basis === 'scheduled' ? 'schedule' : 'sends'}`})`, blocks };
}
