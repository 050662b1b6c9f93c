import * as assert from 'assert';
import type { TraceBreakdown, WaterfallSpan } from '../../../src/core/report/model';
import { bar, renderReconciliationLines, renderWaterfallText, roundHalfAway } from '../../../src/core/report/waterfall';

function span(name: string, depth: number, start: number, duration: number, phase: string | null): WaterfallSpan {
  return { span_id: name, parent_span_id: depth === 0 ? null : 'root', name, service: 'gw', kind: 'INTERNAL', start_ms: start, duration_ms: duration, depth, phase, status: 'OK' };
}

describe('waterfall and reconciliation text', () => {
  it('rounds each figure after computing it at full precision', () => {
    const breakdown: TraceBreakdown = {
      trace_id: '0000000000000007000000000000012f',
      outcome: 'succeeded',
      start_ms: 0,
      client_total_ms: 1842.6,
      server_root_ms: 1691.4,
      network_envelope_ms: null, // computed here: 1842.6 − 1691.4 = 151.2 → 151 (rounding first would give 1843 − 1691 = 152)
      transport_setup_ms: null,
      phases: { gateway_ms: 37.5, gpu_queue_ms: 428.49 },
      unattributed_server_ms: -0.4,
      client_ttft_ms: null,
      server_ttft_ms: null,
    };
    assert.deepStrictEqual(renderReconciliationLines({ breakdown, spans: [], matched: true, notes: [] }, ['gateway', 'gpu_queue', 'generation']), [
      'trace_id=0000000000000007000000000000012f',
      'k6_total_ms=1843',
      'server_root_ms=1691',
      'network_envelope_ms=151',
      'gateway_ms=38',
      'gpu_queue_ms=428',
      'generation_ms=n/a',
      'unattributed_server_ms=0',
    ]);
    assert.strictEqual(roundHalfAway(-2.5), -3);
    assert.strictEqual(roundHalfAway(2.5), 3);
  });

  it('scales bars to the root, keeps short spans visible and marks spans past the root end', () => {
    // 12 ms of 1691 ms on 40 columns = 0.28 columns → 1 column at the start.
    assert.strictEqual(bar(0, 12, 1691, 40), '█' + ' '.repeat(39));
    // 470–1680 ms of 1691: columns floor(11.12)=11 to ceil(39.74)=40.
    assert.strictEqual(bar(470, 1210, 1691, 40), ' '.repeat(11) + '█'.repeat(29));
    // Ends at 2000 ms, past the root: cut at the last column and marked.
    assert.strictEqual(bar(1000, 1000, 1691, 40), ' '.repeat(23) + '█'.repeat(16) + '›');
    const lines = renderWaterfallText([span('root', 0, 100, 1691, null), span('auth.check', 1, 101, 12, 'gateway')]);
    assert.strictEqual(lines[0], 'waterfall: 2 spans, bars scaled to the root (1691.0 ms = 40 columns)');
    assert.match(lines[3], /^root\s+gw\s+0\.0\s+1691\.0\s+–\s+\|█{40}\|$/);
    // Start offsets are relative to the root: 101 − 100 = 1.0 ms; the child is indented by its depth.
    assert.match(lines[4], /^ {2}auth\.check\s+gw\s+1\.0\s+12\.0\s+gateway\s+\|█ {39}\|$/);
  });
});
