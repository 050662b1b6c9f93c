/**
 * The report's population sections: the groups (route, model, …) with the small-group floor, the
 * join-bias test, the user-observed figures and the provenance a later comparison needs.
 */
import type { GroupFigures, Report } from './model';
import { lines, table, type Section } from './document';
import { formatCount, formatMegabytes, formatMs, formatNumber, formatShare, MISSING } from './format';

function p95Cell(g: GroupFigures, metric: string): string {
  const s = g.metrics[metric];
  if (s === undefined || s.n === 0) return MISSING;
  return g.too_small ? `(${formatMs(s.p95, false)})` : formatMs(s.p95, false);
}

function largestOwner(g: GroupFigures): string {
  const top = [...g.tail_attribution.phases].sort((a, b) => b.share - a.share)[0];
  return top === undefined || g.too_small ? MISSING : `${top.phase} ${formatShare(top.share)}`;
}

export function groupsSection(report: Report): Section | undefined {
  const g = report.grouping;
  const head: string[] = [];
  for (const mix of g.mixes) {
    head.push(
      `the run mixes ${mix.values.length} ${mix.dimension}s (${mix.values.map((v) => `${v.value} ${formatCount(v.calls)}`).join(', ')}): the whole-run tail mixes them`,
    );
  }
  if (g.by.length === 0) return head.length > 0 ? { title: 'Groups', blocks: [lines(head), lines(['not grouped (--group-by none)'])] } : undefined;
  const source = g.source === 'auto' ? 'the run holds several' : g.source === 'option' ? '--group-by' : "the contract's report.group_by";
  head.push(`grouped by ${g.by.join(', ')} (${source}); a group with fewer than ${formatCount(g.min_group_size)} successful calls is marked too small for a p95 (its p95 in parentheses)`);
  const rows = report.groups.map((x) => [
    x.key,
    formatCount(x.outcomes.started),
    formatCount(x.successes),
    formatShare(x.outcomes.error_rate),
    formatShare(x.join.coverage),
    formatMs(x.metrics.client_total_ms?.p50 ?? null, false),
    p95Cell(x, 'client_total_ms'),
    x.too_small ? MISSING : formatNumber(x.tail.tail_ratio),
    formatShare(x.tail.tail_share),
    x.tail.session_tail_probability === null ? MISSING : formatShare(x.tail.session_tail_probability),
    largestOwner(x),
    x.too_small ? 'too small for a p95' : '',
  ]);
  const blocks: Section['blocks'] = [
    lines(head),
    table(['group', 'started', 'ok', 'errors', 'matched', 'client p50 ms', 'client p95 ms', 'p95/p50', 'above budget', 'session tail', 'tail owner', ''], rows, [
      'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left',
    ]),
  ];
  if (g.omitted.groups > 0) blocks.push(lines([`${formatCount(g.omitted.groups)} smaller groups (${formatCount(g.omitted.calls)} calls) not listed`]));
  const fired = report.groups.filter((x) => x.diagnoses.length > 0).map((x) => `${x.key}: ${x.diagnoses.map((d) => d.code).join(', ')}`);
  if (fired.length > 0) blocks.push(lines(['diagnoses per group:']), lines(fired, true));
  blocks.push(lines(Object.entries(g.definitions).map(([d, text]) => `${d}: ${text}`), true));
  return { title: 'Groups', blocks };
}

export function joinBiasSection(report: Report): Section | undefined {
  const b = report.join_bias;
  if (b.matched.n === 0 && b.unmatched.n === 0) return undefined;
  const side = (name: string, s: typeof b.matched): string[] => [name, formatCount(s.n), formatMs(s.p50, false), formatMs(s.p95, false)];
  const test =
    b.statistic === null
      ? 'no two-sample test (one side is empty)'
      : `${b.test}: D = ${formatNumber(b.statistic, 3)}, p = ${b.p_value === null ? MISSING : b.p_value < 1e-4 ? b.p_value.toExponential(1) : b.p_value.toFixed(4)} (warning below ${b.alpha})`;
  return {
    title: b.biased ? 'Join bias: WARNING, the matched sample is skewed' : 'Join bias',
    blocks: [
      lines([b.message]),
      table(['successful requests', 'n', 'client total p50 ms', 'p95 ms'], [side('matched', b.matched), side('unmatched', b.unmatched)]),
      lines([test, b.declared_sampling === null ? 'no trace.sampling declared' : `declared trace.sampling: ${b.declared_sampling}`]),
    ],
  };
}

export function userObservedSection(report: Report): Section {
  const u = report.user_observed;
  const row = (name: string, s: { n: number; p50: number | null; p95: number | null; p99: number | null }): string[] => [
    name,
    formatCount(s.n),
    formatMs(s.p50, false),
    formatMs(s.p95, false),
    formatMs(s.p99, false),
  ];
  const c = u.censored_total_ms;
  return {
    title: 'User-observed',
    blocks: [
      table(['figure', 'n', 'p50', 'p95', 'p99'], [row('first_content_ms', u.first_content_ms), row('censored_total_ms', c), row('api_total_ms', u.api_total_ms)]),
      lines([`censored total: ${formatCount(c.succeeded)} successes at their own total, ${formatCount(c.censored)} counted at the timeout, ${formatCount(c.excluded)} other failures left out`]),
      lines(Object.entries(u.definitions).map(([k, v]) => `${k}: ${v}`), true),
    ],
  };
}

export function provenanceSection(report: Report): Section {
  const p = report.provenance;
  const blocks: Section['blocks'] = [
    table(
      ['side', 'format', 'size', 'sha256', 'path'],
      p.inputs.map((i) => [i.side, i.format, formatMegabytes(i.bytes), i.sha256 ?? 'not recorded', i.path]),
      ['left', 'left', 'right', 'left', 'left'],
    ),
  ];
  const head = [
    `phasewise ${p.phasewise_version}`,
    p.contract === null ? 'no contract' : `contract ${p.contract.name}: ${p.contract.path} (${formatCount(p.contract.bytes)} bytes, sha256 ${p.contract.sha256})`,
    p.sampling.declared === null ? 'sampling: none declared' : `sampling: trace.sampling ${p.sampling.declared} (${p.sampling.source})`,
  ];
  blocks.push(lines(head));
  if (p.resources.length > 0) {
    const cell = (v: string | null): string => v ?? MISSING;
    blocks.push(
      table(
        ['service', 'version', 'sdk', 'sdk version', 'language', 'schema url'],
        p.resources.map((r) => [cell(r.service_name), cell(r.service_version), cell(r.sdk_name), cell(r.sdk_version), cell(r.sdk_language), cell(r.schema_url)]),
        ['left', 'left', 'left', 'left', 'left', 'left'],
      ),
    );
  }
  blocks.push(lines([p.resources_note]));
  if (p.services.length > 0) blocks.push(lines([`services of the spans: ${p.services.map((s) => `${s.service ?? '(none)'} ${formatCount(s.spans)}`).join(', ')}`]));
  const opts = Object.entries(p.options)
    .filter(([k]) => k !== 'phases')
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  blocks.push(lines([`options: ${opts.join(' ')}`]));
  return { title: 'Provenance', blocks };
}
