// The editor's phasewise.duckdb.* settings reach the worker's store, and its out-of-memory error
// crosses the thread boundary as an OutOfMemoryError that the command words with the settings' names.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { OutOfMemoryError, outOfMemoryMessage } from '../../src/core/errors';
import { startAnalysis } from '../../src/extension/analysisClient';
import { sharedSamplesDir } from '../helpers/paths';

describe('analysis worker: DuckDB settings', function () {
  this.timeout(60_000);
  let dir: string;
  let doc: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-settings-'));
    doc = path.join(dir, 'spans.json');
    const body = fs.readFileSync(path.join(sharedSamplesDir, 'joined-otel-js', 'spans.otlp.jsonl'), 'utf8').split('\n')[0];
    fs.writeFileSync(doc, JSON.stringify(JSON.parse(body), null, 2).padEnd(30_000_000, '\n'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads under the memory limit given (a 30 MB single document fits 1200MB, not 128MB) and names the setting', async () => {
    const fits = await startAnalysis({ run: [], spans: [doc], memoryLimit: '1200MB', threads: 1 }).result;
    assert.ok(fits.report.join.server_spans > 0);
    const err = await startAnalysis({ run: [], spans: [doc], memoryLimit: '128MB' }).result.then(
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
});
