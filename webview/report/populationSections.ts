/**
 * The report's population sections (issue 17): groups with their quantile tables and tail figures,
 * the join-bias test, the user-observed figures with their definitions beside them, the provenance,
 * and the definitions the report carries. Every definition is the model's text (the catalog's, via
 * the core), never re-typed here; values are text nodes only.
 */
import type { GroupFigures, JoinSide, QuantileSummary, Report } from '../../src/core/report/model';
import { h } from '../shared/dom';
import { fmtInt, fmtMs, fmtPct, MISSING, ownerLabel } from '../shared/format';
import type { Palette } from '../shared/theme';
import { quantileTable, section } from './sections';
import { fmtBytes, fmtP, fmtRatio, tailBar, tailLine } from './tail';

/** `route=chat, model=m` as one unbreakable piece per dimension (the row wraps between dimensions only). */
function keyParts(key: string): Array<Node | string> {
  const parts = key.split(', ');
  return parts.flatMap((part, i) => [h('span', { class: 'rp-nowrap' }, i < parts.length - 1 ? `${part},` : part), ...(i < parts.length - 1 ? [' '] : [])]);
}

function largestOwner(g: GroupFigures): string {
  const top = [...g.tail_attribution.phases].sort((a, b) => b.share - a.share)[0];
  return top === undefined || g.too_small ? MISSING : `${ownerLabel(top.phase)} ${fmtPct(top.share)}`;
}

/** A group's p95: in parentheses when the group is under the floor (the CLI's convention). */
function groupP95(g: GroupFigures, q: QuantileSummary | undefined): string {
  if (q === undefined || q.n === 0) return MISSING;
  return g.too_small ? `(${fmtMs(q.p95, false)})` : fmtMs(q.p95, false);
}

function groupDetails(g: GroupFigures, p: Palette, i: number, floor: number): HTMLElement {
  const why = g.too_small ? ` · too small for a p95: ${fmtInt(g.successes)} successful calls, fewer than ${fmtInt(floor)}` : '';
  return h(
    'details',
    { class: 'rp-group', attrs: { 'data-testid': `group-${i}`, 'data-group': g.key } },
    h('summary', null, g.key, h('span', { class: 'pw-muted' }, ` · n=${fmtInt(g.successes)} successes${why}`)),
    quantileTable('Decomposition', 'matched successful requests of the group', g.metrics, `group-${i}-q-matched`),
    quantileTable('Client only', 'successful client requests of the group', g.client_only, `group-${i}-q-client`),
    g.too_small ? h('p', { class: 'pw-muted' }, 'No tail attribution: the group is under the floor.') : g.tail_attribution.n > 0 ? tailBar(g.tail_attribution, p, `who owns the tail of ${g.key}`, `group-${i}-tail-bar`) : null,
    h('p', { class: 'pw-muted', attrs: { 'data-testid': `group-${i}-tail` } }, tailLine(g.tail)),
    g.diagnoses.length > 0 ? h('p', null, `Diagnoses in this group: ${g.diagnoses.map((d) => `${d.code} (${d.title})`).join('; ')}`) : h('p', { class: 'pw-muted' }, g.diagnosis_status.summary),
  );
}

export function groupsSection(r: Report, p: Palette): HTMLElement | null {
  const g = r.grouping;
  if (g.by.length === 0 && g.mixes.length === 0) return null;
  const mixes = g.mixes.map((mix) =>
    h('p', { class: 'rp-warn', role: 'note', attrs: { 'data-testid': 'group-mix' } }, `The run mixes ${mix.values.length} ${mix.dimension}s (${mix.values.map((v) => `${v.value} ${fmtInt(v.calls)}`).join(', ')}): the whole-run tail mixes them.`),
  );
  if (g.by.length === 0) return section('groups', 'Groups', ...mixes, h('p', { class: 'pw-muted' }, 'Not grouped (--group-by none).'));
  const source = g.source === 'auto' ? 'the run holds several' : g.source === 'option' ? '--group-by' : "the contract's report.group_by";
  const head = ['group', 'started', 'ok', 'errors', 'matched', 'client p50 ms', 'client p95 ms', 'p95/p50', 'above budget', 'session tail', 'tail owner'];
  const rows = r.groups.map((x) =>
    h(
      'tr',
      { class: x.too_small ? 'rp-small' : '', attrs: { 'data-group': x.key } },
      h('th', { attrs: { scope: 'row' } }, ...keyParts(x.key), x.too_small ? h('span', { class: 'pw-badge rp-badge-small' }, 'too small for a p95') : null),
      h('td', { class: 'pw-num' }, fmtInt(x.outcomes.started)),
      h('td', { class: 'pw-num' }, fmtInt(x.successes)),
      h('td', { class: 'pw-num' }, fmtPct(x.outcomes.error_rate)),
      h('td', { class: 'pw-num' }, fmtPct(x.join.coverage)),
      h('td', { class: 'pw-num' }, fmtMs(x.metrics.client_total_ms?.p50 ?? null, false)),
      h('td', { class: 'pw-num' }, groupP95(x, x.metrics.client_total_ms)),
      h('td', { class: 'pw-num' }, x.too_small ? MISSING : fmtRatio(x.tail.tail_ratio)),
      h('td', { class: 'pw-num' }, fmtPct(x.tail.tail_share)),
      h('td', { class: 'pw-num' }, fmtPct(x.tail.session_tail_probability)),
      h('td', null, largestOwner(x)),
    ),
  );
  return section(
    'groups',
    `Groups (${r.groups.length})`,
    ...mixes,
    h('p', { class: 'pw-muted' }, `Grouped by ${g.by.join(', ')} (${source}). A group with fewer than ${fmtInt(g.min_group_size)} successful calls keeps its row with its n and is marked too small for a p95 (its p95 in parentheses).`),
    h(
      'div',
      { class: 'rp-qtable' },
      h('table', { class: 'pw-table', attrs: { 'data-testid': 'groups' } }, h('thead', null, h('tr', null, ...head.map((c, i) => h('th', { class: i > 0 && i < 10 ? 'pw-num' : '' }, c)))), h('tbody', null, ...rows)),
    ),
    g.omitted.groups > 0 ? h('p', { class: 'pw-muted', attrs: { 'data-testid': 'groups-omitted' } }, `${fmtInt(g.omitted.groups)} smaller groups (${fmtInt(g.omitted.calls)} calls) are not listed.`) : null,
    h('h3', null, 'Each group: quantile tables and who owns its tail (Enter or Space opens one)'),
    ...r.groups.map((x, i) => groupDetails(x, p, i, g.min_group_size)),
    definitionList(g.definitions, 'group-definitions'),
  );
}

/** Term → definition, as the model carries them. */
export function definitionList(defs: Record<string, string>, testid: string): HTMLElement | null {
  const entries = Object.entries(defs);
  if (entries.length === 0) return null;
  return h('dl', { class: 'rp-defs', attrs: { 'data-testid': testid } }, ...entries.flatMap(([k, v]) => [h('dt', { class: 'pw-mono' }, k), h('dd', null, v)]));
}

export function joinBiasSection(r: Report): HTMLElement | null {
  const b = r.join_bias;
  if (b.matched.n === 0 && b.unmatched.n === 0) return null;
  const row = (name: string, s: JoinSide): HTMLElement => h('tr', null, h('th', { attrs: { scope: 'row' } }, name), h('td', { class: 'pw-num' }, fmtInt(s.n)), h('td', { class: 'pw-num' }, fmtMs(s.p50, false)), h('td', { class: 'pw-num' }, fmtMs(s.p95, false)));
  const test = b.statistic === null ? 'No two-sample test: one side is empty.' : `${b.test}: D = ${b.statistic.toFixed(3)}, p = ${fmtP(b.p_value)} (a warning below ${b.alpha}).`;
  return section(
    'join-bias',
    b.biased ? 'Join bias: WARNING, the matched sample is skewed' : 'Join bias',
    h('p', { class: b.biased ? 'rp-warn' : '', role: b.biased ? 'alert' : undefined, attrs: { 'data-testid': 'join-bias-message' } }, b.message),
    h(
      'table',
      { class: 'pw-table', attrs: { 'data-testid': 'join-bias' } },
      h('thead', null, h('tr', null, ...['successful requests', 'n', 'client total p50 ms', 'p95 ms'].map((c, i) => h('th', { class: i > 0 ? 'pw-num' : '' }, c)))),
      h('tbody', null, row('matched', b.matched), row('unmatched', b.unmatched)),
    ),
    h('p', { class: 'pw-muted', attrs: { 'data-testid': 'join-bias-test' } }, test, ' ', b.declared_sampling === null ? 'No trace.sampling declared.' : `Declared trace.sampling: ${b.declared_sampling}.`),
  );
}

export function userObservedSection(r: Report): HTMLElement {
  const u = r.user_observed;
  const c = u.censored_total_ms;
  const defs = u.definitions;
  const row = (name: string, s: QuantileSummary): HTMLElement =>
    h(
      'tr',
      { attrs: { 'data-figure': name } },
      h('th', { class: 'pw-mono', attrs: { scope: 'row' } }, name),
      h('td', { class: 'pw-num' }, fmtInt(s.n)),
      h('td', { class: 'pw-num' }, fmtMs(s.p50, false)),
      h('td', { class: 'pw-num' }, fmtMs(s.p95, false)),
      h('td', { class: 'pw-num' }, fmtMs(s.p99, false)),
      h('td', { class: 'rp-def' }, defs[name] ?? ''),
    );
  const rest = Object.fromEntries(Object.entries(defs).filter(([k]) => !['first_content_ms', 'censored_total_ms', 'api_total_ms'].includes(k)));
  return section(
    'user-observed',
    'User-observed',
    h(
      'table',
      { class: 'pw-table rp-observed', attrs: { 'data-testid': 'user-observed' } },
      h('thead', null, h('tr', null, ...['figure', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'definition'].map((x, i) => h('th', { class: i > 0 && i < 5 ? 'pw-num' : '' }, x)))),
      h('tbody', null, row('first_content_ms', u.first_content_ms), row('censored_total_ms', c), row('api_total_ms', u.api_total_ms)),
    ),
    h('p', { class: 'pw-muted', attrs: { 'data-testid': 'user-observed-censored' } }, `Censored total: ${fmtInt(c.succeeded)} successes at their own total, ${fmtInt(c.censored)} counted at the timeout (${fmtMs(u.timeout_ms)}), ${fmtInt(c.excluded)} other failures left out.`),
    definitionList(rest, 'user-observed-definitions'),
  );
}

function kvRows(rows: [string, string][], testid: string): HTMLElement {
  return h('table', { class: 'pw-table rp-config', attrs: { 'data-testid': testid } }, h('tbody', null, ...rows.map(([k, v]) => h('tr', null, h('th', { attrs: { scope: 'row' } }, k), h('td', { class: 'pw-mono' }, v)))));
}

export function provenanceSection(r: Report): HTMLElement {
  const p = r.provenance;
  const cell = (v: string | null): string => v ?? MISSING;
  const inputs = h(
    'table',
    { class: 'pw-table rp-prov', attrs: { 'data-testid': 'provenance-inputs' } },
    h('thead', null, h('tr', null, ...['side', 'format', 'size', 'SHA-256', 'path'].map((x) => h('th', { class: x === 'size' ? 'pw-num' : '' }, x)))),
    h('tbody', null, ...p.inputs.map((i) => h('tr', null, h('td', null, i.side), h('td', null, i.format), h('td', { class: 'pw-num', title: `${fmtInt(i.bytes)} bytes` }, fmtBytes(i.bytes)), h('td', { class: 'pw-mono rp-hash' }, i.sha256 ?? 'not recorded'), h('td', { class: 'pw-mono' }, i.path)))),
  );
  const resources =
    p.resources.length === 0
      ? null
      : h(
          'table',
          { class: 'pw-table rp-prov', attrs: { 'data-testid': 'provenance-resources' } },
          h('thead', null, h('tr', null, ...['service', 'version', 'SDK', 'SDK version', 'language', 'schema URL', 'seen in'].map((x) => h('th', null, x)))),
          h('tbody', null, ...p.resources.map((x) => h('tr', null, ...[x.service_name, x.service_version, x.sdk_name, x.sdk_version, x.sdk_language, x.schema_url].map((v) => h('td', { class: 'pw-mono' }, cell(v))), h('td', { class: 'pw-mono' }, x.sources.join(', '))))),
        );
  const options = Object.entries(p.options)
    .filter(([k]) => k !== 'phases')
    .map(([k, v]): [string, string] => [`option ${k}`, JSON.stringify(v) ?? 'undefined']);
  return section(
    'provenance',
    'Provenance',
    h('p', { class: 'pw-muted' }, 'What a later comparison needs: the inputs as loaded, the contract, the systems that wrote the spans, the sampling and the options.'),
    h('h3', null, 'Inputs'),
    inputs,
    h('h3', null, 'Run'),
    kvRows(
      [
        ['phasewise', p.phasewise_version],
        ['contract', p.contract === null ? 'none' : `${p.contract.name}: ${p.contract.path} (${fmtInt(p.contract.bytes)} bytes)`],
        ['contract SHA-256', p.contract === null ? MISSING : p.contract.sha256],
        ['sampling', p.sampling.declared === null ? 'none declared' : `trace.sampling ${p.sampling.declared} (${p.sampling.source ?? 'declared'})`],
        ['services of the spans', p.services.length === 0 ? MISSING : p.services.map((s) => `${s.service ?? '(none)'} ${fmtInt(s.spans)}`).join(', ')],
        ...options,
      ],
      'provenance-run',
    ),
    h('h3', null, 'Resources (OTLP)'),
    resources,
    h('p', { class: 'pw-muted' }, p.resources_note),
  );
}

export function definitionsSection(r: Report): HTMLElement | null {
  const list = definitionList(r.definitions, 'definitions');
  return list === null ? null : section('definitions', 'Definitions', list);
}
