/**
 * The report's time sections: the diagnoses of the symptom table (what fired, its evidence and the
 * first thing to check, or that nothing fired), and the window series with the worst window per SLO
 * metric and the owner that grew there.
 */
import type { Report, SeriesStat, SeriesWindow, WindowSeries } from './model';
import { lines, table, type Section } from './document';
import { formatCount, formatMs, formatNumber, MISSING } from './format';

export function diagnosesSection(report: Report): Section {
  const status = report.diagnosis_status;
  const blocks: Section['blocks'] = [lines([status.summary])];
  for (const d of report.diagnoses) {
    blocks.push(lines([`[${d.code}] ${d.title}`]));
    blocks.push(lines(d.evidence.map((e) => e.text), true));
    blocks.push(lines([`first check: ${d.first_check}`]));
  }
  if (status.not_evaluated.length > 0) {
    blocks.push(lines(['not evaluated:']), lines(status.not_evaluated.map((x) => `${x.code}: ${x.why}`), true));
  }
  return { title: 'Diagnoses', blocks };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(0)}s`;
}

function p95(s: SeriesStat | undefined): string {
  return s === undefined || s.n === 0 ? MISSING : formatMs(s.p95, false);
}

/** The window series' columns: rates, in-flight, errors, tokens/s, then each owner's p95. */
function windowRow(w: SeriesWindow, owners: readonly string[], worst: ReadonlySet<number>): string[] {
  const errors = Object.values(w.errors).reduce((a, b) => a + b, 0);
  return [
    `${worst.has(w.index) ? '*' : ''}${w.label ?? w.index}${w.partial ? ' (partial)' : ''}`,
    `${seconds(w.start_offset_ms)}–${seconds(w.end_offset_ms)}`,
    w.scheduled_per_s === null ? MISSING : formatNumber(w.scheduled_per_s, 1),
    formatNumber(w.started_per_s, 1),
    formatNumber(w.completed_per_s, 1),
    formatNumber(w.in_flight, 1),
    formatCount(errors),
    w.tokens_per_s === null ? MISSING : formatNumber(w.tokens_per_s, 0),
    ...owners.map((o) => p95(w.owners[o])),
  ];
}

/** Short column labels of the owners the text shows (the others, and p50/p99/mean/n, are in --format json). */
const SHOWN: Readonly<Record<string, string>> = {
  client_total_ms: 'total',
  network_envelope_ms: 'envelope',
  transport_setup_ms: 'setup',
  unattributed_server_ms: 'unattr',
  generation_ms_per_output_token: 'gen/tok',
  client_ttft_ms: 'ttft',
};

/** Owners shown as columns: those with data among the total, envelope, setup, the phases, unattributed, gen/token, TTFT. */
function shownOwners(series: WindowSeries, phases: readonly string[]): Array<{ owner: string; label: string }> {
  const order = ['client_total_ms', 'network_envelope_ms', 'transport_setup_ms', ...phases, 'unattributed_server_ms', 'generation_ms_per_output_token', 'client_ttft_ms'];
  return order
    .filter((o) => series.owners.includes(o) && series.windows.some((w) => (w.owners[o]?.n ?? 0) > 0))
    .map((o) => ({ owner: o, label: SHOWN[o] ?? o.replace(/_ms$/, '') }));
}

export function windowSeriesSection(report: Report): Section | undefined {
  const s = report.window_series;
  if (s.windows.length === 0) return undefined;
  const kind =
    s.kind === 'stages'
      ? "the contract's stages"
      : s.kind === 'sliding'
        ? `${seconds(s.size_ms ?? 0)} windows sliding by ${seconds(s.slide_ms ?? 0)}`
        : `fixed ${seconds(s.size_ms ?? 0)} windows`;
  const worstSet = new Set(s.worst.map((w) => w.window));
  const head = s.worst.map((w) => {
    const grew = w.owner_grew === null ? 'no owner grew' : `${w.owner_grew.owner} grew ${formatMs(w.owner_grew.typical_mean_ms)} → ${formatMs(w.owner_grew.worst_mean_ms)} (mean)`;
    return `worst ${w.metric} ${w.stat}: window ${w.window} with ${formatMs(w.value)} (n=${formatCount(w.n)}; typical ${formatMs(w.typical)}; ${w.source === 'default' ? 'default SLO figure' : w.source}): ${grew}`;
  });
  if (head.length === 0) head.push('no window has enough matched successful requests to pick a worst window');
  // The phase columns sit between transport_setup_ms and unattributed_server_ms (catalog/series.ts).
  const from = s.owners.indexOf('transport_setup_ms');
  const to = s.owners.indexOf('unattributed_server_ms');
  const phases = from >= 0 && to > from ? s.owners.slice(from + 1, to) : [];
  const shown = shownOwners(s, phases);
  const owners = shown.map((o) => o.owner);
  const header = ['window', 'offset', 'sched/s', 'start/s', 'done/s', 'in flight', 'errors', 'tok/s', ...shown.map((o) => o.label)];
  return {
    title: `Window series (${kind})`,
    blocks: [
      lines(head),
      lines(['rates by send (scheduled, started) and end time; in flight = mean requests in flight; owner columns: p95 in ms over the window\'s matched successes (p50, p99, mean and n in --format json)']),
      table(header, s.windows.map((w) => windowRow(w, owners, worstSet)), header.map((_, i) => (i < 2 ? 'left' : 'right'))),
    ],
  };
}
