import * as assert from 'assert';
import { CancelledError } from '../../../src/core/errors';
import { DuckStore } from '../../../src/core/store/duckStore';

describe('DuckStore cancellation', () => {
  it('refuses every query after interrupt(), even one that starts after the interrupt', async () => {
    const store = new DuckStore();
    try {
      const [before] = await store.all<{ n: number }>('SELECT 40 + 2 AS n');
      assert.strictEqual(before.n, 42);
      // No query is running here: DuckDB's own interrupt would be lost; the store must remember it.
      await store.interrupt();
      await assert.rejects(store.all('SELECT 1 AS n'), CancelledError);
      await assert.rejects(store.run('CREATE TABLE t (x INTEGER)'), CancelledError);
    } finally {
      await store.close();
    }
  });

  it('stops a running query', async () => {
    const store = new DuckStore();
    try {
      await store.all('SELECT 1');
      // A cross join of 10^12 rows runs for minutes unless interrupted.
      const running = store.all('SELECT count(*) AS n FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1');
      setTimeout(() => void store.interrupt(), 200);
      await assert.rejects(running, (err: Error) => /interrupt/i.test(err.message));
    } finally {
      await store.close();
    }
  });
});
