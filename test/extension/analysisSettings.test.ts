// The editor's phasewise.duckdb.* settings reach the run worker's store, and its out-of-memory error
// crosses the thread boundary as an OutOfMemoryError that the editor words with the settings' names.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { OutOfMemoryError, outOfMemoryMessage } from '../../src/core/errors';
import { RunClient, type ProgressEvent } from '../../src/extension/runs/runClient';
import * as P from '../../src/extension/runs/workerProtocol';
import { sharedSamplesDir } from '../helpers/paths';

describe('run worker: DuckDB settings', function () {
  this.timeout(120_000);
  let dir: string;
  let cache: string;
  let doc: string;
  let client: RunClient;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-settings-'));
    cache = path.join(dir, 'cache');
    fs.mkdirSync(cache);
    doc = path.join(dir, 'spans.json');
    const body = fs.readFileSync(path.join(sharedSamplesDir, 'joined-otel-js', 'spans.otlp.jsonl'), 'utf8').split('\n')[0];
    fs.writeFileSync(doc, JSON.stringify(JSON.parse(body), null, 2).padEnd(30_000_000, '\n'));
    client = new RunClient();
  });
  after(async () => {
    await client.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loads under the memory limit given (a 30 MB single document fits 1200MB, not 128MB) and names the setting', async () => {
    const inputs = { run: [], spans: [doc], contract: null };
    const events: ProgressEvent[] = [];
    const fits = await client.job(P.OpenRun, { dir: cache, inputs, settings: { slowTraceCount: 10, memoryLimit: '1200MB', threads: 1 }, base: null }, (e) => events.push(e));
    assert.ok(fits.summary.inputs.some((i) => i.side === 'server' && i.records > 0), JSON.stringify(fits.summary.inputs));
    // The file message carries the load's total (here the one file), so the bar is a share of all the bytes.
    const started = events.filter((e) => e.file !== null);
    assert.deepStrictEqual(started.map((e) => [e.file, e.bytes, e.total_bytes]), [[doc, 30_000_000, 30_000_000]]);
    // Another memory limit is another load's settings, not a reason to reuse a store opened at 1200MB: a fresh cache.
    const small = path.join(dir, 'small');
    fs.mkdirSync(small);
    const err = await client.job(P.OpenRun, { dir: small, inputs, settings: { slowTraceCount: 10, memoryLimit: '128MB' }, base: null }).then(
      () => assert.fail('expected out of memory'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof OutOfMemoryError, String(err));
    assert.strictEqual(err.file, doc);
    assert.strictEqual(err.memoryLimit, '128MB');
    const text = outOfMemoryMessage(err, 'editor');
    assert.match(text, /raise it with the phasewise\.duckdb\.memoryLimit setting \("\d+MB"\)/);
    assert.doesNotMatch(text, /--memory-limit/);
  });

  it('refuses a memory limit the CLI would refuse, before any load', async () => {
    const err = await client.job(P.OpenRun, { dir: cache, inputs: { run: [], spans: [doc], contract: null }, settings: { slowTraceCount: 10, memoryLimit: '64MB' }, base: null }).then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e,
    );
    assert.match(String(err), /must be at least 128MB, got '64MB'/);
  });
});
