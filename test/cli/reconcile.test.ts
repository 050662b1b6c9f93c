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

  it('exits 4 naming why the trace is unknown', async () => {
    const malformed = await runCli(['reconcile', '--trace', 'xyz', '--run', K6, '--spans', SPANS]);
    assert.strictEqual(malformed.status, 4);
    assert.match(malformed.stderr, /--trace: expected a W3C trace ID of 32 hex digits, not all zero, found 'xyz' \(malformed\)/);

    const absent = await runCli(['reconcile', '--trace', 'ffffffffffffffffffffffffffffffff', '--run', K6, '--spans', SPANS]);
    assert.strictEqual(absent.status, 4);
    assert.match(absent.stderr, /ffffffffffffffffffffffffffffffff: absent from the client files and from the span files/);
  });
});
