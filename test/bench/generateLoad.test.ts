import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { DuckStore } from '../../src/core/store/duckStore';
import { repoRoot } from '../helpers/paths';
import { countFromFiles, readRunDir } from './generateFiles';

const samples = path.join(repoRoot, 'samples');

describe('samples/ (the committed generated run)', () => {
  const expected = JSON.parse(fs.readFileSync(path.join(samples, 'expected.json'), 'utf8')) as { counts: Record<string, number> };

  it('has expected.json counts equal to counts taken from its files', () => {
    const fromFiles = countFromFiles(readRunDir(samples));
    for (const [k, v] of Object.entries(fromFiles)) assert.strictEqual(expected.counts[k], v, k);
    assert.ok(expected.counts.started >= 600 && expected.counts.started <= 1200);
    assert.strictEqual(expected.counts.generator_dropped, 0);
  });

  async function withStore(files: string[], check: (store: DuckStore) => Promise<void>): Promise<void> {
    const store = new DuckStore();
    try {
      const loaded = await loadFiles(store, files.map((f) => path.join(samples, f)));
      assert.deepStrictEqual(loaded.map((l) => l.skipped), files.map(() => 0));
      await check(store);
    } finally {
      await store.close();
    }
  }

  async function outcomesIn(store: DuckStore): Promise<Record<string, number>> {
    const rows = await store.all<{ outcome: string; n: number }>('SELECT outcome, count(*) AS n FROM client_requests GROUP BY 1 ORDER BY 1');
    return Object.fromEntries(rows.map((o) => [o.outcome, o.n]));
  }

  const expectedOutcomes = (): Record<string, number> =>
    Object.fromEntries(
      (['failed', 'rejected', 'succeeded', 'timed_out', 'transport_failed'] as const).filter((k) => expected.counts[k] > 0).map((k) => [k, expected.counts[k]]),
    );

  it('loads k6.ndjson through loadFiles with the expected outcome counts', async () => {
    await withStore(['k6.ndjson'], async (store) => {
      assert.deepStrictEqual(await outcomesIn(store), expectedOutcomes());
      const [ids] = await store.all<{ n: number }>('SELECT count(DISTINCT trace_id) AS n FROM client_requests');
      assert.strictEqual(ids.n, expected.counts.with_trace_id);
    });
  });

  it('loads spans.otlp.jsonl through loadFiles with the expected span, root and first_token counts', async () => {
    await withStore(['spans.otlp.jsonl'], async (store) => {
      const c = expected.counts;
      const [spans] = await store.all<{ n: number; traces: number }>('SELECT count(*) AS n, count(DISTINCT trace_id) AS traces FROM spans');
      assert.strictEqual(spans.n, c.spans_exported);
      assert.strictEqual(spans.traces, c.exported_roots + c.lost_roots);
      const [roots] = await store.all<{ n: number }>(
        `SELECT count(*) AS n FROM spans s WHERE kind = 'SERVER'
           AND NOT EXISTS (SELECT 1 FROM spans p WHERE p.trace_id = s.trace_id AND p.span_id = s.parent_span_id)`,
      );
      assert.strictEqual(roots.n, c.exported_roots);
      const [events] = await store.all<{ n: number }>("SELECT count(*) AS n FROM span_events WHERE name = 'first_token'");
      assert.ok(events.n >= c.matched_streaming_succeeded);
    });
  });

  it('loads requests.ndjson through loadFiles with the expected outcome counts', async () => {
    await withStore(['requests.ndjson'], async (store) => {
      assert.deepStrictEqual(await outcomesIn(store), expectedOutcomes());
    });
  });
});
