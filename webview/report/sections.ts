/**
 * The report's text sections: verdict banner, join coverage both ways, quantile tables with n and
 * population, tail attribution as a stacked bar, the outcome ledger and its reconciliation, gates
 * (with their contract line), the configuration, warnings. Values are text nodes only.
 */
import type { GateResult, MetricTable, QuantileSummary, Report, TraceBreakdown } from '../../src/core/report/model';
import type { GateLink, RunConfiguration } from '../../src/core/report/view/types';
import { h } from '../shared/dom';
import { fmtDuration, fmtGateValue, fmtInt, fmtMs, fmtPct, MISSING, ownerLabel } from '../shared/format';
import type { Palette } from '../shared/theme';
import { tailBar, tailLine } from './tail';

export function section(id: string, title: string, ...children: (Node | null)[]): HTMLElement {
  return h('section', { id, class: 'rp-section', attrs: { 'aria-labelledby': `${id}-h` } }, h('h2', { id: `${id}-h` }, title), ...children);
}

const VERDICT_TEXT: Record<string, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  inconclusive: 'INCONCLUSIVE',
  instrumentation_failure: 'INSTRUMENTATION FAILURE',
  not_evaluated: 'NOT EVALUATED',
};

export function verdictBanner(r: Report): HTMLElement {
  const v = r.verdict;
  const failed = r.gates.filter((g) => g.status === 'fail');
  const headline =
    v.status === 'fail' && v.broken_phase
      ? `${VERDICT_TEXT.fail}: the ${ownerLabel(v.broken_phase)} budget broke`
      : v.status === 'fail'
        ? `${VERDICT_TEXT.fail}: ${failed.map((g) => g.id).join(', ')}`
        : (VERDICT_TEXT[v.status] ?? v.status);
  const reasons = v.reasons.length > 0 ? v.reasons : [v.status === 'not_evaluated' ? 'no gates: open the run with a load contract (or thresholds) to evaluate it' : 'the workload was delivered and every gate passed'];
  return h(
    'section',
    { class: `rp-verdict rp-verdict-${v.status}`, role: 'status', attrs: { 'data-testid': 'verdict', 'aria-label': 'verdict' } },
    h('div', { class: 'rp-verdict-head' }, headline),
    h('ul', null, ...reasons.map((t) => h('li', null, t))),
    h('div', { class: 'pw-muted' }, r.gates.length === 0 ? 'no gates' : `${r.gates.length} gates: ${r.gates.filter((g) => g.status === 'pass').length} passed, ${failed.length} failed, ${r.gates.filter((g) => g.status === 'no_data').length} without data`),
  );
}

function kv(rows: [string, string][], testid: string): HTMLElement {
  return h('table', { class: 'pw-table rp-kv', attrs: { 'data-testid': testid } }, h('tbody', null, ...rows.map(([k, v]) => h('tr', null, h('th', { attrs: { scope: 'row' } }, k), h('td', { class: 'pw-num' }, v)))));
}

export function joinSection(r: Report): HTMLElement {
  const j = r.join;
  // Reports written before the request-ID join have no key: they joined by trace ID.
  const byRequest = j.key === 'request_id';
  const id = byRequest ? 'request ID' : 'trace ID';
  const how = byRequest ? h('p', { attrs: { 'data-testid': 'join-key' } }, `Joined by request ID: the client records' request_id against the span attribute ${j.key_attribute ?? ''}.`) : null;
  if (j.applicable === false) {
    return section(
      'join',
      'Join coverage',
      ...(how ? [how] : []),
      h('p', { attrs: { 'data-testid': 'join-not-applicable' } }, `Not applicable: none of the ${fmtInt(j.client_requests)} client requests carries a ${id}, so no span can be joined to them; the figures are client-only.`),
    );
  }
  const clientSide = kv(
    [
      ['client requests', fmtInt(j.client_requests)],
      [`with a ${id}`, fmtInt(j.with_trace_id)],
      [`valid ${id}s`, fmtInt(j.valid_trace_ids)],
      ['matched (one root)', `${fmtInt(j.matched)} · ${fmtPct(j.coverage)}`],
      ['of the valid IDs', fmtPct(j.coverage_of_valid)],
    ],
    'join-client',
  );
  const notJoined = kv(
    [
      [`without a ${id}`, fmtInt(j.client_requests - j.with_trace_id)],
      ...(byRequest ? [] : [['invalid trace IDs', fmtInt(j.invalid_trace_ids)] as [string, string]]),
      ['trace lost its root', fmtInt(j.lost_roots)],
      ['client ID collisions', fmtInt(j.client_duplicate_trace_ids)],
      ['unmatched client requests', fmtInt(j.unmatched_client)],
    ],
    'join-unmatched',
  );
  const serverRooted = j.matched + j.orphan_server_roots;
  const serverSide = kv(
    [
      ['server traces', fmtInt(j.server_traces)],
      ['server spans', fmtInt(j.server_spans)],
      ['roots no client carries', `${fmtInt(j.orphan_server_roots)}${serverRooted > 0 ? ` · ${fmtPct(j.orphan_server_roots / serverRooted)}` : ''}`],
      ['traces with several roots', fmtInt(j.server_multi_root_traces)],
      ...(byRequest ? [['request IDs on several traces', fmtInt(j.server_ambiguous_ids ?? 0)] as [string, string]] : []),
    ],
    'join-server',
  );
  return section(
    'join',
    'Join coverage',
    ...(how ? [how] : []),
    h('div', { class: 'rp-columns' }, h('div', null, h('h3', null, 'client → server'), clientSide), h('div', null, h('h3', null, 'not joined'), notJoined), h('div', null, h('h3', null, 'server → client'), serverSide)),
  );
}

function quantileRow(name: string, q: QuantileSummary): HTMLElement {
  const neg = 'negative' in q ? (q as { negative: { count: number; share: number; most_negative_ms: number | null } }).negative : null;
  return h(
    'tr',
    null,
    h('th', { attrs: { scope: 'row' } }, name),
    h('td', { class: 'pw-num' }, fmtInt(q.n)),
    h('td', { class: 'pw-num' }, fmtMs(q.p50, false)),
    h('td', { class: 'pw-num' }, fmtMs(q.p95, false)),
    h('td', { class: 'pw-num' }, fmtMs(q.p99, false)),
    h('td', { class: 'pw-num' }, fmtMs(q.mean, false)),
    h('td', { class: 'pw-num' }, fmtMs(q.max, false)),
    h('td', { class: 'pw-num' }, neg ? `${fmtInt(neg.count)} negative (${fmtPct(neg.share)}), min ${fmtMs(neg.most_negative_ms, false)}` : ''),
  );
}

export function quantileTable(title: string, population: string, t: MetricTable, testid: string): HTMLElement | null {
  const rows = Object.entries(t).filter(([, q]) => q.n > 0);
  if (rows.length === 0) return null;
  return h(
    'div',
    { class: 'rp-qtable' },
    h('h3', null, title, ' ', h('span', { class: 'pw-muted' }, `· ${population}`)),
    h(
      'table',
      { class: 'pw-table', attrs: { 'data-testid': testid } },
      h('thead', null, h('tr', null, ...['metric', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'max ms', ''].map((c, i) => h('th', { class: i > 0 ? 'pw-num' : '' }, c)))),
      h('tbody', null, ...rows.map(([k, q]) => quantileRow(k, q))),
    ),
  );
}

export function tailSection(r: Report, p: Palette): HTMLElement {
  const t = r.tail_attribution;
  const legend = h(
    'table',
    { class: 'pw-table', attrs: { 'data-testid': 'tail-table' } },
    h('thead', null, h('tr', null, h('th', null, 'owner'), h('th', { class: 'pw-num' }, 'mean ms'), h('th', { class: 'pw-num' }, 'share'))),
    h(
      'tbody',
      null,
      ...t.phases.map((x) => {
        const sw = h('span', { class: 'pw-swatch', attrs: { 'data-owner': x.phase } });
        sw.style.background = p.owner(x.phase);
        return h('tr', null, h('td', null, sw, ownerLabel(x.phase)), h('td', { class: 'pw-num' }, fmtMs(x.mean_ms, false)), h('td', { class: 'pw-num' }, fmtPct(x.share)));
      }),
    ),
  );
  return section(
    'tail',
    'Who owns the tail',
    h('p', null, `The ${fmtInt(t.n)} matched successes above the client p95 (${fmtMs(t.threshold_ms)}): mean client total ${fmtMs(t.mean_client_total_ms)}, split by owner (means: percentiles are not additive).`),
    tailBar(t, p, 'who owns the tail', 'tail-bar'),
    legend,
    h('p', { class: 'pw-muted', attrs: { 'data-testid': 'tail-line' } }, tailLine(r.tail)),
  );
}

export function ledgerSection(r: Report): HTMLElement {
  const o = r.outcomes;
  const eq1 = o.scheduled === null ? 'scheduled: unknown (the generator reported no iteration count)' : `scheduled ${fmtInt(o.scheduled)} = started ${fmtInt(o.started)} + dropped ${fmtInt(o.generator_dropped)}`;
  const eq2 = `started ${fmtInt(o.started)} = succeeded ${fmtInt(o.succeeded)} + rejected ${fmtInt(o.rejected)} + timed out ${fmtInt(o.timed_out)} + transport failed ${fmtInt(o.transport_failed)} + canceled ${fmtInt(o.canceled)} + failed ${fmtInt(o.failed)}${o.in_flight > 0 ? ` (+ in flight ${fmtInt(o.in_flight)})` : ''}`;
  return section(
    'ledger',
    'Outcome ledger',
    kv(
      [
        ['scheduled', o.scheduled === null ? MISSING : fmtInt(o.scheduled)],
        ['generator dropped', fmtInt(o.generator_dropped)],
        ['started', fmtInt(o.started)],
        ['succeeded', fmtInt(o.succeeded)],
        ['rejected (429/503)', fmtInt(o.rejected)],
        ['timed out', fmtInt(o.timed_out)],
        ['transport failed', fmtInt(o.transport_failed)],
        ['canceled', fmtInt(o.canceled)],
        ['failed (other 4xx/5xx)', fmtInt(o.failed)],
        ['in flight at the end', fmtInt(o.in_flight)],
        ['error rate', fmtPct(o.error_rate)],
      ],
      'ledger',
    ),
    h('div', { class: `rp-reconcile ${o.reconciles ? 'ok' : 'bad'}`, attrs: { 'data-testid': 'ledger-reconcile' } }, h('div', null, eq1), h('div', null, eq2), h('strong', null, o.reconciles ? '✓ the ledger reconciles' : '✗ the ledger does NOT reconcile'), ...o.discrepancies.map((d) => h('div', null, d))),
  );
}

export function gatesSection(r: Report, links: Record<string, GateLink>, onOpen: (g: GateResult, link: GateLink) => void): HTMLElement {
  if (r.gates.length === 0) return section('gates', 'Gates', h('p', { class: 'pw-muted' }, 'no gates: nothing to evaluate'));
  return section(
    'gates',
    'Gates',
    h(
      'table',
      { class: 'pw-table', attrs: { 'data-testid': 'gates' } },
      h('thead', null, h('tr', null, ...['gate', 'rule', 'observed', 'n', 'population', 'status', 'contract'].map((c) => h('th', { class: c === 'observed' || c === 'n' ? 'pw-num' : '' }, c)))),
      h(
        'tbody',
        null,
        ...r.gates.map((g) => {
          const link = links[g.id];
          let where: Node = document.createTextNode(g.origin ?? MISSING);
          if (link) {
            const b = h('button', { class: 'pw-link', title: `open ${link.path}${link.line !== null ? ` at line ${link.line}` : ''}`, attrs: { type: 'button' } }, link.line !== null ? `line ${link.line}` : 'open');
            b.addEventListener('click', () => onOpen(g, link));
            where = b;
          }
          return h(
            'tr',
            { class: `rp-gate-${g.status}` },
            h('td', { class: 'pw-mono' }, g.id),
            h('td', { class: 'pw-mono' }, `${g.metric}.${g.stat} ${g.op} ${fmtGateValue(g, g.limit)}`),
            h('td', { class: 'pw-num' }, fmtGateValue(g, g.observed)),
            h('td', { class: 'pw-num' }, g.n === null ? MISSING : fmtInt(g.n)),
            h('td', null, g.window),
            h('td', null, h('span', { class: `rp-status rp-status-${g.status}` }, g.status === 'no_data' ? 'no data' : g.status)),
            h('td', null, where),
          );
        }),
      ),
    ),
  );
}

export function configurationSection(c: RunConfiguration): HTMLElement {
  const rows: [string, string][] = [
    ['contract', c.contract ?? 'none (default options)'],
    ['window size', fmtDuration(c.window_size_ms)],
    ['steady window', c.steady_window.start_ms === null && c.steady_window.end_ms === null ? 'not declared: the whole run' : `${fmtMs(c.steady_window.start_ms)} – ${fmtMs(c.steady_window.end_ms)} after the first send`],
    ['root span', `SERVER span whose parent is not in the trace${c.root.service ? `, service ${c.root.service}` : ''}${c.root.span_name ? `, named ${c.root.span_name}` : ''}`],
    ...c.phases.map((p): [string, string] => [`phase ${p.name}`, p.selectors.join(' or ')]),
    ['timestamp granularity', fmtMs(c.timestamp_granularity_ms)],
    ['first token', `event ${c.first_token.event} or the end of span ${c.first_token.span}`],
    ['content event', c.content_event ?? '—'],
    ['trace ID tag (k6)', c.trace_id_tag],
    ['slow traces listed', fmtInt(c.slow_trace_count)],
    ['calls per session', c.calls_per_session === null ? '—' : fmtInt(c.calls_per_session)],
    ['tail budget', fmtMs(c.tail_budget_ms)],
  ];
  return section(
    'configuration',
    'Configuration',
    h('table', { class: 'pw-table rp-config', attrs: { 'data-testid': 'configuration' } }, h('tbody', null, ...rows.map(([k, v]) => h('tr', null, h('th', { attrs: { scope: 'row' } }, k), h('td', null, v))))),
  );
}

/** A table of traces (slow traces, or the traces of a window or bucket); a trace ID opens its waterfall. */
export function traceTable(traces: readonly TraceBreakdown[], phases: readonly string[], onOpen: (id: string) => void, testid: string): HTMLElement {
  const head = ['trace', 'client total', 'envelope', ...phases.map(ownerLabel), 'unattributed'];
  return h(
    'table',
    { class: 'pw-table rp-traces', attrs: { 'data-testid': testid } },
    h('thead', null, h('tr', null, ...head.map((c, i) => h('th', { class: i > 0 ? 'pw-num' : '' }, c)))),
    h(
      'tbody',
      null,
      ...traces.map((t) => {
        const open = h('button', { class: 'pw-link pw-mono', title: 'open the waterfall', attrs: { type: 'button', 'data-trace': t.trace_id } }, t.trace_id);
        open.addEventListener('click', () => onOpen(t.trace_id));
        return h(
          'tr',
          null,
          h('td', null, open),
          h('td', { class: 'pw-num' }, fmtMs(t.client_total_ms)),
          h('td', { class: `pw-num${t.network_envelope_ms !== null && t.network_envelope_ms < 0 ? ' rp-neg' : ''}` }, fmtMs(t.network_envelope_ms)),
          ...phases.map((p) => h('td', { class: 'pw-num' }, fmtMs(t.phases[`${p}_ms`] ?? null))),
          h('td', { class: 'pw-num' }, fmtMs(t.unattributed_server_ms)),
        );
      }),
    ),
  );
}
