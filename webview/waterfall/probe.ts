/**
 * The top of a probe's waterfall: the request the probe sent (its traceparent, outcome and status),
 * the propagation check (did the server's root name the probe's span as its parent; which phases'
 * spans are there) and how the trace was fetched, with why it may be incomplete. Text nodes only.
 */
import type { ProbeBanner } from '../../src/protocol/waterfall';
import { h } from '../shared/dom';
import { fmtInt, ownerLabel } from '../shared/format';

export function probeBanner(p: ProbeBanner): HTMLElement {
  const prop = p.propagation;
  const state = prop === null ? 'unknown' : prop.ok ? 'ok' : 'broken';
  const head =
    prop === null
      ? 'Propagation not checked: no trace was fetched'
      : prop.ok
        ? 'Propagation OK: the server root is a child of the probe’s span'
        : `Propagation problem${prop.problems.length > 1 ? `s (${prop.problems.length})` : ''}`;
  const fetch = p.fetch;
  return h(
    'section',
    { class: `wf-probe wf-probe-${state}`, attrs: { 'aria-label': 'probe request and propagation check', 'data-testid': 'probe' } },
    h('div', { class: 'wf-probe-head', attrs: { 'data-testid': 'propagation' } }, head),
    prop !== null && prop.problems.length > 0 ? h('ul', null, ...prop.problems.map((x) => h('li', null, x))) : null,
    h(
      'div',
      { class: 'wf-probe-facts' },
      h('span', null, 'Probe ', h('span', { class: 'pw-mono' }, p.url)),
      h('span', { class: 'pw-badge' }, `outcome ${p.outcome}${p.http_status !== null ? ` (HTTP ${p.http_status})` : ''}`),
      h('span', { class: 'pw-muted' }, 'traceparent ', h('span', { class: 'pw-mono' }, p.traceparent)),
      prop !== null ? h('span', { class: 'pw-muted' }, `root parent ${prop.root_parent_span_id ?? 'none'} (expected ${prop.expected_parent_span_id})`) : null,
      prop !== null && prop.phases_present.length > 0 ? h('span', { class: 'pw-muted' }, `phases present: ${prop.phases_present.map(ownerLabel).join(', ')}`) : null,
    ),
    p.outcome !== 'succeeded' ? h('p', { class: 'pw-muted' }, p.outcome_detail) : null,
    fetch !== null
      ? h(
          'p',
          { class: 'pw-muted' },
          `Trace from ${fetch.backend}: ${fetch.status}, ${fmtInt(fetch.spans)} span${fetch.spans === 1 ? '' : 's'} after ${(fetch.waited_ms / 1000).toFixed(1)} s.`,
          ...fetch.reasons.map((r) => h('span', { class: 'wf-probe-reason' }, ` ${r}`)),
        )
      : null,
  );
}
