/**
 * A ProbeResult as text, for `phasewise probe` and the editor's output until the waterfall view
 * exists: the request, the client timings on one clock, the trace fetch, the propagation check on
 * top of the server side, then the reconciliation block and the waterfall of `phasewise reconcile`.
 */
import { formatMs, MISSING } from '../report/format';
import { renderWaterfallText } from '../report/waterfall';
import type { ProbeResult } from './result';

export function renderProbeText(r: ProbeResult): string[] {
  const c = r.client;
  const m = c.marks;
  const lines = [
    `probe ${r.url}  model=${r.model}  stream=${r.stream ? 'yes' : 'no'}  prompt shape=${r.prompt_shape_id}`,
    `traceparent ${r.traceparent}`,
    `outcome ${r.outcome} (${r.outcome_detail})`,
    '',
    'client (one monotonic clock; total, TTFB and TTFT from the start of the send, as k6 measures them)',
    `  dns ${ms(c.dns_ms)}  connect ${ms(c.connect_ms)}  tls ${ms(c.tls_ms)}  request written ${ms(since(m.send_start, m.request_written))}`,
    `  ttfb ${ms(c.ttfb_ms)}  ttft ${r.stream ? ms(c.ttft_ms) : 'n/a (not streaming: TTFB is the first byte, not the first token)'}` +
      `  last content ${ms(since(m.send_start, m.last_content))}  total ${ms(c.total_ms)}`,
    `  output tokens ${c.output_tokens ?? MISSING}${c.output_tokens_source ? ` (${c.output_tokens_source === 'usage' ? "the server's usage" : 'counted content events'})` : ''}` +
      `  content events ${c.content_events}${c.content_parse_errors > 0 ? `  unparsable events ${c.content_parse_errors}` : ''}`,
    `  itl ${ms(c.itl_ms)}: ${c.itl_definition}`,
  ];
  if (r.trace) {
    const t = r.trace;
    lines.push('', `trace ${t.status} at ${t.backend}: ${t.spans} span(s) after ${(t.waited_ms / 1000).toFixed(1)} s (${t.polls} look${t.polls === 1 ? '' : 's'})`);
    for (const reason of t.reasons) lines.push(`  - ${reason}`);
  } else {
    lines.push('', 'trace not fetched (no backend given, or the request never reached a server)');
  }
  if (r.propagation) {
    const p = r.propagation;
    lines.push(`propagation ${p.ok ? 'ok' : 'BROKEN'}: root parent ${p.root_parent_span_id ?? MISSING}, probe parent-id ${p.expected_parent_span_id}`);
    lines.push(`  phases present: ${p.phases_present.join(', ') || 'none'}${p.phases_missing.length > 0 ? `; missing: ${p.phases_missing.join(', ')}` : ''}`);
    for (const problem of p.problems) lines.push(`  - ${problem}`);
  }
  if (r.reconcile.length > 0) {
    lines.push('', ...r.reconcile, '', ...renderWaterfallText(r.spans));
  }
  for (const n of r.notes) lines.push(`note: ${n}`);
  return lines;
}

function since(from: number | null, to: number | null): number | null {
  return from === null || to === null ? null : to - from;
}

function ms(v: number | null): string {
  return formatMs(v);
}
