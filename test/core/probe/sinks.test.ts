import { strict as assert } from 'assert';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { JsonlFileSink } from '../../../src/core/probe/receiver/sinks';

describe('JsonlFileSink', () => {
  it('flush settles once a small write (far below the stream buffer) is in the file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-sink-'));
    try {
      const file = path.join(dir, 'out.otlp.jsonl');
      const sink = new JsonlFileSink(file);
      void sink.write({ lines: ['{"resourceSpans":[]}'], spans: [], lineOfSpan: [], receivedAtMs: 0 });
      void sink.write({ lines: ['{"resourceSpans":[{}]}'], spans: [], lineOfSpan: [], receivedAtMs: 1 });
      // Before the fix this waited for a 'drain' that a 40-byte backlog never emits.
      const timedOut = Symbol('timed out');
      const outcome = await Promise.race([sink.flush(), new Promise((r) => setTimeout(() => r(timedOut), 2000))]);
      assert.notEqual(outcome, timedOut);
      assert.equal(readFileSync(file, 'utf8'), '{"resourceSpans":[]}\n{"resourceSpans":[{}]}\n');
      await sink.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
