import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { EnvelopeSummary, Report } from '../../src/core/report/model';
import { fixture, sharedSamplesDir } from '../helpers/paths';
import { linearQuantile, runCli } from './runCli';

const K6 = path.join(sharedSamplesDir, 'joined-otel-js', 'k6.ndjson');
const DROPPED = fixture('cli', 'dropped.k6.ndjson');

/** The sample's requests, counted with plain JSON.parse (independently of the DuckDB readers). */
function k6Durations(file: string): { ok: number[]; failed: number } {
  const ok: number[] = [];
  let failed = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"http_req_duration"') || !line.includes('"Point"')) continue;
    const point = JSON.parse(line) as { data: { value: number; tags: { status: string } } };
    if (/^2\d\d$/.test(point.data.tags.status)) ok.push(point.data.value);
    else failed++;
  }
  return { ok, failed };
}

describe('phasewise analyze (built CLI)', function () {
  this.timeout(120_000);

  it('exits 0 on pass and reports client-only figures that match an independent count', async () => {
    const { ok, failed } = k6Durations(K6);
    assert.strictEqual(ok.length + failed, 120); // 120 requests in the sample, 4 of them HTTP 500
    const res = await runCli(['analyze', '--run', K6, '--threshold', 'error_rate.value<=5%', '--format', 'json']);
    assert.strictEqual(res.status, 0, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.strictEqual(report.verdict.status, 'pass');
    assert.strictEqual(report.outcomes.started, 120);
    assert.strictEqual(report.outcomes.succeeded, ok.length);
    assert.strictEqual(report.outcomes.failed, failed);
    const total = report.client_only.client_total_ms;
    assert.strictEqual(total.n, ok.length);
    assert.ok(Math.abs((total.p95 as number) - linearQuantile(ok, 0.95)) < 1e-6, `${total.p95} vs ${linearQuantile(ok, 0.95)}`);
    assert.ok(Math.abs((total.p50 as number) - linearQuantile(ok, 0.5)) < 1e-6);
    for (const key of ['join', 'metrics', 'client_only', 'server_only', 'outcomes', 'windows', 'tail_attribution', 'gates', 'verdict', 'slow_traces']) {
      assert.ok(key in report, `--format json lacks ${key}`);
    }
    assert.deepStrictEqual(report.gates.map((g) => [g.id, g.category, g.limit, g.status]), [['threshold.error_rate.value', 'quality', 0.05, 'pass']]);
  });

  it('exits 1 when a gate fails, and the text report says why', async () => {
    const res = await runCli(['analyze', '--run', K6, '--threshold', 'error_rate.value<=0']);
    assert.strictEqual(res.status, 1, res.stderr);
    const lines = res.stdout.split('\n');
    assert.strictEqual(lines[0], 'Phasewise verdict: FAIL · phasewise 0.1.0');
    // 4 failed of 120 started = 3.3%
    assert.ok(lines.some((l) => /^\s+FAIL\s+threshold\.error_rate\.value \(--threshold\)\s+error_rate\.value\s+3\.3%\s+<= 0\.0%\s+120\s/.test(l)), res.stdout);
  });

  it('exits 2 (inconclusive) when the generator dropped iterations', async () => {
    const res = await runCli(['analyze', '--run', DROPPED, '--threshold', 'dropped_iterations.value<=0', '--format', 'json']);
    assert.strictEqual(res.status, 2, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    // The fixture has 6 requests, 6 iterations and 2 dropped_iterations Points (test/fixtures/cli/README.md).
    assert.strictEqual(report.outcomes.generator_dropped, 2);
    assert.strictEqual(report.outcomes.scheduled, 8);
    assert.strictEqual(report.verdict.status, 'inconclusive');
  });

  it('exits 3 (instrumentation failure) when negative envelopes exceed their limit', async () => {
    const spans = path.join(sharedSamplesDir, 'joined-otel-js', 'spans.otlp.jsonl');
    const res = await runCli(['analyze', '--run', K6, '--spans', spans, '--threshold', 'negative_envelope_share.value<=1%', '--format', 'json']);
    assert.strictEqual(res.status, 3, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    const envelope = report.metrics.network_envelope_ms as EnvelopeSummary;
    // OpenTelemetry JS stamps span starts at ms granularity: some roots outlast the client's request.
    assert.ok(envelope.negative.count > 0 && envelope.negative.share > 0.01, JSON.stringify(envelope.negative));
    assert.strictEqual(report.gates[0].status, 'fail');
    assert.strictEqual(report.verdict.status, 'instrumentation_failure');
  });

  describe('exit 4 on bad input, naming the file', () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['an empty file', ['--run', fixture('cli', 'empty.ndjson')], /^phasewise: .*empty\.ndjson:1: expected k6 JSON output .*found an empty file$/m],
      ['a file in no known format', ['--run', fixture('cli', 'notes.txt')], /^phasewise: .*notes\.txt:1: expected .*found 'hello, this is not a run'$/m],
      ['a missing file', ['--run', fixture('cli', 'missing.ndjson')], /^phasewise: .*missing\.ndjson: expected an existing, readable file, found no such file$/m],
      ['a run file given as spans', ['--spans', K6], /^phasewise: .*k6\.ndjson: expected a span export .* for --spans, found k6-json$/m],
      ['an unknown option', ['--run', K6, '--tresholds', 'x'], /^phasewise: unknown option --tresholds$/m],
      ['a malformed threshold', ['--run', K6, '--threshold', 'client_total_ms.p95=<2000'], /^phasewise: --threshold expects METRIC\.STAT OP LIMIT/m],
      ['an unknown threshold figure', ['--run', K6, '--threshold', 'total.p95<=2000'], /unknown figure 'total'/],
      ['no input at all', [], /give --run FILE\.\.\. and\/or --spans FILE\.\.\./],
      // The flow sequence opened on line 5 is still open at the end of the file (line 6, column 1).
      ['a contract with errors', ['--run', DROPPED, '--contract', fixture('cli', 'broken.loadcontract.yaml')], /^\S*broken\.loadcontract\.yaml:6:1: error syntax /m],
      ['a --db path that is not a database', ['--db', fixture('cli', 'notes.txt')], /notes\.txt: expected a database written by `phasewise analyze --db` .*, found a file that is not a DuckDB database; it was not modified/],
    ];
    for (const [what, args, expected] of cases) {
      it(what, async () => {
        const res = await runCli(['analyze', ...args]);
        assert.strictEqual(res.status, 4, res.stderr);
        assert.match(res.stderr, expected);
        assert.strictEqual(res.stdout, '');
      });
    }
  });

  it('reports skipped lines on stderr with their line numbers, never silently', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-cli-'));
    const lines = fs.readFileSync(DROPPED, 'utf8').split('\n');
    lines.splice(20, 0, '{"metric":"http_req_duration","type":"Point","data":{'); // becomes line 21
    const file = path.join(dir, 'broken.k6.ndjson');
    fs.writeFileSync(file, lines.join('\n'));
    const res = await runCli(['analyze', '--run', file, '--quiet']);
    assert.strictEqual(res.stdout, '', '--quiet prints no report');
    assert.match(res.stderr, /^phasewise: .*broken\.k6\.ndjson: skipped 1 line: not a JSON object \(1\); first at line 21$/m);
  });

  it('--out writes the report; --db re-analyses without the input files', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-cli-'));
    const input = path.join(dir, 'run.k6.ndjson');
    fs.copyFileSync(DROPPED, input);
    const db = path.join(dir, 'run.duckdb');
    const out = path.join(dir, 'first.json');
    const first = await runCli(['analyze', '--run', input, '--db', db, '--format', 'json', '--out', out, '--threshold', 'dropped_iterations.value<=0']);
    assert.strictEqual(first.status, 2, first.stderr);
    assert.strictEqual(first.stdout, '');
    assert.match(first.stderr, /report written to .*first\.json/);
    const firstReport = JSON.parse(fs.readFileSync(out, 'utf8')) as Report;
    assert.strictEqual(firstReport.outcomes.started, 6);

    fs.unlinkSync(input); // proves the second call reads nothing but the database
    const second = await runCli(['analyze', '--db', db, '--format', 'json', '--threshold', 'dropped_iterations.value<=0']);
    assert.strictEqual(second.status, 2, second.stderr);
    assert.deepStrictEqual(JSON.parse(second.stdout), firstReport);

    // Re-analysis with other options works on the same database (here: a different window size).
    const third = await runCli(['analyze', '--db', db, '--format', 'json', '--window', '1s']);
    assert.strictEqual(third.status, 0, third.stderr);
    assert.strictEqual((JSON.parse(third.stdout) as Report).windows.size_ms, 1000);
  });

  it('--db without inputs on a missing database is bad input', async () => {
    const res = await runCli(['analyze', '--db', path.join(os.tmpdir(), 'phasewise-no-such.duckdb')]);
    assert.strictEqual(res.status, 4);
    assert.match(res.stderr, /phasewise-no-such\.duckdb: expected a database file written by an earlier/);
  });

  it('renders markdown with --format md', async () => {
    const res = await runCli(['analyze', '--run', DROPPED, '--format', 'md']);
    assert.strictEqual(res.status, 0, res.stderr);
    const lines = res.stdout.split('\n');
    assert.strictEqual(lines[0], '# Phasewise verdict: NOT EVALUATED (no gates) · phasewise 0.1.0');
    assert.ok(lines.includes('scheduled 8 = started 6 + generator_dropped 2  '), res.stdout);
    assert.ok(lines.includes('## Outcome ledger'));
  });
});
