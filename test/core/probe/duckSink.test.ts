import { strict as assert } from 'assert';
import { mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DuckSink } from '../../../src/core/probe/receiver/duckSink';
import { DuckStore } from '../../../src/core/store/duckStore';

const span = (n: number): string =>
  JSON.stringify({
    resourceSpans: [{ resource: {}, scopeSpans: [{ spans: [{ traceId: n.toString(16).padStart(32, '0'), spanId: n.toString(16).padStart(16, '0'), name: 'op', kind: 2, startTimeUnixNano: '1764428000000000000', endTimeUnixNano: '1764428000005000000' }] }] }],
  });

describe('DuckSink: a write resolves once stored, rejects when the load failed, and never wedges', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-ducksink-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a load that fails is rolled back and rejects its write; the next write is stored and the run is marked complete', async () => {
    const store = new DuckStore({ database: path.join(dir, 'r.duckdb') });
    try {
      const sink = new DuckSink(store, { sourcePath: 'otlp-receiver://test', intervalMs: 0 });
      // Not an OTLP export: the chunk's load refuses it.
      await assert.rejects(sink.write({ lines: ['{"not":"otlp"}'], spans: [], lineOfSpan: [], receivedAtMs: 0 }));
      await sink.write({ lines: [span(1)], spans: [], lineOfSpan: [], receivedAtMs: 1 });
      await sink.write({ lines: [span(2), span(3)], spans: [], lineOfSpan: [], receivedAtMs: 2 });
      await sink.close();
      const [row] = await store.all<{ spans: number; sources: number; records: number; state: string }>(
        `SELECT (SELECT count(*) FROM spans) AS spans, (SELECT count(*) FROM sources) AS sources,
                (SELECT sum(records) FROM sources) AS records, (SELECT load_state FROM phasewise_store) AS state`,
      );
      assert.deepEqual(row, { spans: 3, sources: 1, records: 3, state: 'complete' });
    } finally {
      await store.close();
    }
  });
});
