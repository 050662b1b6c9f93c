import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runCli } from './runCli';
import { sharedSamplesDir } from '../helpers/paths';

describe('phasewise analyze: --memory-limit and --threads', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-memflags-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const sample = path.join(sharedSamplesDir, 'joined-otel-js');

  it('takes them and gives the same report as the defaults', async () => {
    const args = ['analyze', '--run', path.join(sample, 'k6.ndjson'), '--spans', path.join(sample, 'spans.otlp.jsonl'), '--format', 'json'];
    const plain = await runCli(args);
    const limited = await runCli([...args, '--memory-limit', '256MB', '--threads', '1']);
    assert.strictEqual(plain.status, 0, plain.stderr);
    assert.strictEqual(limited.status, 0, limited.stderr);
    const a = JSON.parse(plain.stdout) as { join: unknown; metrics: { network_envelope_ms: unknown } };
    const b = JSON.parse(limited.stdout) as typeof a;
    assert.deepStrictEqual(b.join, a.join);
    assert.deepStrictEqual(b.metrics.network_envelope_ms, a.metrics.network_envelope_ms);
  });

  it('refuses values it cannot use with exit 4 and what was expected', async () => {
    const base = ['analyze', '--spans', path.join(sample, 'spans.otlp.jsonl')];
    const bad = await runCli([...base, '--memory-limit', 'lots']);
    assert.strictEqual(bad.status, 4);
    assert.match(bad.stderr, /--memory-limit expects a size such as 2GB, 1500MB or 1\.5GiB, got 'lots'/);
    const small = await runCli([...base, '--memory-limit', '20MB']);
    assert.strictEqual(small.status, 4);
    assert.match(small.stderr, /--memory-limit must be at least 128MB/);
    const threads = await runCli([...base, '--threads', '0']);
    assert.strictEqual(threads.status, 4);
    assert.match(threads.stderr, /--threads expects a whole number of threads from 1 to 1024, got '0'/);
  });

  it('says what ran out and which flag to change when a file cannot fit, never DuckDB\'s text (exit 4)', async () => {
    // A single 40 MB JSON document is read whole (it cannot spill or be cut): too much for 128MB.
    const doc = path.join(dir, 'spans.json');
    const body = fs.readFileSync(path.join(sample, 'spans.otlp.jsonl'), 'utf8').split('\n')[0];
    fs.writeFileSync(doc, JSON.stringify(JSON.parse(body), null, 2).padEnd(40_000_000, '\n'));
    const r = await runCli(['analyze', '--spans', doc, '--memory-limit', '128MB']);
    assert.strictEqual(r.status, 4, r.stderr);
    assert.match(r.stderr, /^phasewise: .*spans\.json is one JSON document of 40MB: .* memory limit of 128MB; raise it with --memory-limit \d+MB, or write the spans one request per line/);
    assert.doesNotMatch(r.stderr, /Out of Memory Error|internal error/);
  });
});
