import * as assert from 'assert';
import { parseArgs, parseDurationMs, UsageError } from '../../src/cli/args';
import { parseThreshold } from '../../src/cli/thresholds';
import { DEFAULT_PHASES } from '../../src/core/analysis/options';

describe('CLI arguments', () => {
  it('maps each threshold figure to the verdict category docs/metrics.md §2 gives it', () => {
    const cat = (t: string): string => parseThreshold(t, DEFAULT_PHASES).category;
    assert.strictEqual(cat('client_total_ms.p95<=2000'), 'slo');
    assert.strictEqual(cat('client_ttft_ms.p95<=300'), 'slo');
    assert.strictEqual(cat('gpu_queue_ms.p95<=400'), 'budget');
    assert.strictEqual(cat('error_rate.value<=0.01'), 'quality');
    assert.strictEqual(cat('dropped_iterations.value<=0'), 'workload');
    assert.strictEqual(cat('scheduler_lag_ms.p95<=50'), 'workload');
    assert.strictEqual(cat('achieved_start_rate.value>=9.5'), 'workload');
    assert.strictEqual(cat('join_coverage.value>=0.95'), 'coverage');
    assert.strictEqual(cat('negative_envelope_share.value<=0.01'), 'instrumentation');
  });

  it('parses op, limit and units, and names the phase of a budget', () => {
    assert.deepStrictEqual(parseThreshold('gpu_queue_ms.p95 <= 0.4s', DEFAULT_PHASES), {
      id: 'threshold.gpu_queue_ms.p95',
      category: 'budget',
      metric: 'gpu_queue_ms',
      stat: 'p95',
      op: '<=',
      limit: 400,
      origin: '--threshold',
      phase: 'gpu_queue',
    });
    assert.strictEqual(parseThreshold('error_rate.value<2.5%', DEFAULT_PHASES).limit, 0.025);
    // A phase declared by a contract becomes a budget figure too.
    assert.strictEqual(parseThreshold('provider_request_ms.p99<=900', [{ name: 'provider_request', anyOf: [] }]).phase, 'provider_request');
    assert.throws(() => parseThreshold('provider_request_ms.p99<=900', DEFAULT_PHASES), /unknown figure 'provider_request_ms'/);
    assert.throws(() => parseThreshold('client_total_ms.p90<=1', DEFAULT_PHASES), /unknown statistic 'p90'/);
    assert.throws(() => parseThreshold('error_rate.value<=1s', DEFAULT_PHASES), UsageError);
  });

  it('takes several files after one flag, repeats, and rejects unknown flags', () => {
    const args = parseArgs(['--run', 'a.ndjson', 'b.ndjson', '--spans=c.jsonl', '--threshold', 'x', '--threshold', 'y', '-q'], {
      run: { kind: 'list' },
      spans: { kind: 'list' },
      threshold: { kind: 'list' },
      quiet: { kind: 'boolean', alias: 'q' },
    });
    assert.deepStrictEqual(args.flags.get('run'), ['a.ndjson', 'b.ndjson']);
    assert.deepStrictEqual(args.flags.get('spans'), ['c.jsonl']);
    assert.deepStrictEqual(args.flags.get('threshold'), ['x', 'y']);
    assert.ok(args.flags.has('quiet'));
    assert.throws(() => parseArgs(['--nope'], {}), /unknown option --nope/);
    assert.strictEqual(parseDurationMs('30s', '--window'), 30_000);
    assert.strictEqual(parseDurationMs('1.5m', '--window'), 90_000);
    assert.throws(() => parseDurationMs('30 seconds', '--window'), UsageError);
  });
});
