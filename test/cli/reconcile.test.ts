import * as assert from 'assert';
import { fixture } from '../helpers/paths';
import { runCli } from './runCli';

const K6 = fixture('analysis', 'reconcile.k6.ndjson');
const SPANS = fixture('analysis', 'reconcile.otlp.jsonl');
const TRACE = '0000000000000007000000000000012f';

describe('phasewise reconcile (built CLI)', function () {
  this.timeout(120_000);

  it('prints the single-request figures exactly, then the waterfall', async () => {
    const res = await runCli(['reconcile', '--trace', TRACE, '--run', K6, '--spans', SPANS]);
    assert.strictEqual(res.status, 0, res.stderr);
    const lines = res.stdout.split('\n');
    // The report of the brief, which the analysis fixture was built to reproduce.
    assert.deepStrictEqual(lines.slice(0, 8), [
      `trace_id=${TRACE}`,
      'k6_total_ms=1842',
      'server_root_ms=1691',
      'network_envelope_ms=151',
      'gateway_ms=37',
      'gpu_queue_ms=428',
      'generation_ms=1210',
      'unattributed_server_ms=16',
    ]);
    assert.strictEqual(lines[8], '');
    assert.match(lines[9], /^waterfall: \d+ spans, bars scaled to the root \(1691\.\d ms = 40 columns\)$/);
    // The root is the first span line, with a full bar.
    assert.match(lines[12], /^\S.*\|█{40}\|$/);
  });

  it('--format json carries the critical path, ms from the root start (worked out by hand, docs/metrics.md §3.4)', async () => {
    const res = await runCli(['reconcile', '--trace', TRACE, '--run', K6, '--spans', SPANS, '--format', 'json']);
    assert.strictEqual(res.status, 0, res.stderr);
    const out = JSON.parse(res.stdout) as { spans: { span_id: string; name: string }[]; critical_path: { span_id: string; start_ms: number; end_ms: number }[] };
    const name = new Map(out.spans.map((s) => [s.span_id, s.name]));
    const path = out.critical_path.map((s) => [name.get(s.span_id), Math.round(s.start_ms * 100) / 100, Math.round(s.end_ms * 100) / 100]);
    // Root [0, 1691.4]; auth.check [1, 7.4]; request.prepare [7, 18.7]; route.select [19, 21.25];
    // inference.acquire_slot [22, 450.45]; inference.generate [450, 1659.9] with a nested generation span
    // [451, 1650]; response.write [1672, 1688.35]. Walking back from 1691.4: response.write; generate and
    // its child; acquire_slot ends 0.45 ms after generate starts (ms-truncated starts; within the 1 ms
    // granularity: taken, cut at 450); route.select; request.prepare; auth.check (cut at 7, same reason).
    assert.deepStrictEqual(path, [
      [name.get(out.spans[0].span_id), 0, 1],
      ['auth.check', 1, 7],
      ['request.prepare', 7, 18.7],
      [name.get(out.spans[0].span_id), 18.7, 19],
      ['route.select', 19, 21.25],
      [name.get(out.spans[0].span_id), 21.25, 22],
      ['inference.acquire_slot', 22, 450],
      ['inference.generate', 450, 451],
      [path[8][0], 451, 1650],
      ['inference.generate', 1650, 1659.9],
      [name.get(out.spans[0].span_id), 1659.9, 1672],
      ['response.write', 1672, 1688.35],
      [name.get(out.spans[0].span_id), 1688.35, 1691.4],
    ]);
    assert.notStrictEqual(path[8][0], 'inference.generate');
  });

  it('exits 4 naming why the trace is unknown', async () => {
    const malformed = await runCli(['reconcile', '--trace', 'xyz', '--run', K6, '--spans', SPANS]);
    assert.strictEqual(malformed.status, 4);
    assert.match(malformed.stderr, /--trace: expected a W3C trace ID of 32 hex digits, not all zero, found 'xyz' \(malformed\)/);

    const absent = await runCli(['reconcile', '--trace', 'ffffffffffffffffffffffffffffffff', '--run', K6, '--spans', SPANS]);
    assert.strictEqual(absent.status, 4);
    assert.match(absent.stderr, /ffffffffffffffffffffffffffffffff: absent from the client files and from the span files/);
  });
});
