import * as assert from 'assert';
import { analyzeRun } from '../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, DEFAULT_REQUEST_ID_ATTRIBUTE, type AnalysisOptions } from '../../src/core/analysis/options';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { buildReportView } from '../../src/core/report/view/build';
import { DuckStore } from '../../src/core/store/duckStore';
import { ReportProblem } from '../../src/protocol/common';
import * as R from '../../src/protocol/report';
import { encodeJson } from '../../src/protocol/schema';
import { fixture } from '../helpers/paths';
import { closeBrowser, HostPage } from './harness';

const FILES = [fixture('tools', 'aiperf-profile_export.from-docs.jsonl'), fixture('tools', 'spans-x-request-id.otlp.jsonl')];

async function shown(options: AnalysisOptions, run: string, theme: 'dark' | 'light'): Promise<HostPage> {
  const store = new DuckStore();
  try {
    await loadFiles(store, FILES);
    const report = await analyzeRun(store, options, []);
    const view = await buildReportView(store, { options, gates: [], report });
    const hp = await HostPage.open('report', { theme, width: 1280, height: 900 });
    hp.channel.onNotification(R.SaveState, () => undefined);
    hp.channel.onNotification(ReportProblem, (p) => assert.fail(p.message));
    hp.channel.notify(R.DidLoad, { run, model: encodeJson(view), state: null });
    await hp.page.waitForSelector(`[data-loaded-run="${run}"]`);
    return hp;
  } finally {
    await store.close();
  }
}

describe('report webview: the join section of an AIPerf run joined by request ID', function () {
  this.timeout(120_000);
  after(closeBrowser);

  it('names the join key and the request-ID collisions; by trace ID it says the join is not applicable', async () => {
    const joined = await shown({ ...DEFAULT_ANALYSIS_OPTIONS, joinKey: { by: 'request_id', attribute: DEFAULT_REQUEST_ID_ATTRIBUTE } }, 'aiperf-request-id', 'dark');
    try {
      const key = (await joined.page.locator('[data-testid="join-key"]').textContent()) ?? '';
      assert.match(key, /Joined by request ID: the client records' request_id against the span attribute http\.request\.header\.x-request-id/);
      const client = await joined.page.locator('[data-testid="join-client"] tr').allTextContents();
      // 5 of 9 matched (test/core/analysis/requestIdJoin.test.ts computes them by hand).
      assert.ok(client.some((r) => r.startsWith('with a request ID9')), client.join('\n'));
      assert.ok(client.some((r) => r.startsWith('matched (one root)5 · 55.6')), client.join('\n'));
      const server = await joined.page.locator('[data-testid="join-server"] tr').allTextContents();
      assert.ok(server.includes('request IDs on several traces1'), server.join('\n'));
      await joined.page.locator('[data-testid="join-key"]').scrollIntoViewIfNeeded();
      await joined.screenshot('report-aiperf-request-id-join-dark');
    } finally {
      await joined.close();
    }
    const byTrace = await shown(DEFAULT_ANALYSIS_OPTIONS, 'aiperf-trace-id', 'light');
    try {
      const text = (await byTrace.page.locator('[data-testid="join-not-applicable"]').textContent()) ?? '';
      assert.match(text, /Not applicable: none of the 9 client requests carries a trace ID/);
      assert.strictEqual(await byTrace.page.locator('[data-testid="join-client"]').count(), 0);
      await byTrace.page.locator('[data-testid="join-not-applicable"]').scrollIntoViewIfNeeded();
      await byTrace.screenshot('report-aiperf-join-not-applicable-light');
    } finally {
      await byTrace.close();
    }
  });
});
