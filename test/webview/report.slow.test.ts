import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { analyzeRun } from '../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../src/core/analysis/options';
import { listTraces } from '../../src/core/analysis/trace/traceList';
import { buildReportView } from '../../src/core/report/view/build';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { analysisFor } from '../../src/core/run/analyzeFiles';
import { DuckStore } from '../../src/core/store/duckStore';
import { ReportProblem } from '../../src/protocol/common';
import * as R from '../../src/protocol/report';
import { encodeJson } from '../../src/protocol/schema';
import { fmtInt, fmtMs, fmtPct } from '../../webview/shared/format';
import { repoRoot } from '../helpers/paths';
import { closeBrowser, HostPage } from './harness';
import { SAMPLE_CONTRACT, SAMPLE_RUN, sampleRun } from './models';

interface Expected {
  counts: { matched: number; matched_succeeded: number; started: number; succeeded: number };
  matched_succeeded: Record<string, { n: number; p50: number; p95: number; p99: number }>;
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(repoRoot, 'samples', 'expected.json'), 'utf8')) as Expected;

describe('run report webview in headless Chromium', function () {
  this.timeout(120_000);
  let store: DuckStore;
  let hp: HostPage;
  const requests: R.TraceSelectionParams[] = [];
  const opened: string[] = [];
  const contracts: { path: string; line: number | null; gate: string }[] = [];
  const problems: string[] = [];

  before(async () => {
    const { view } = await sampleRun();
    const { options } = await analysisFor(SAMPLE_CONTRACT);
    store = new DuckStore();
    await loadFiles(store, SAMPLE_RUN);
    hp = await HostPage.open('report', { theme: 'dark', width: 1280, height: 900 });
    hp.channel.onRequest(R.ListTraces, async (p) => {
      requests.push(p.selection);
      return listTraces(store, options, p.selection, p.limit);
    });
    hp.channel.onNotification(R.OpenTrace, (p) => opened.push(p.trace_id));
    hp.channel.onNotification(R.OpenContract, (p) => contracts.push(p));
    hp.channel.onNotification(R.ExportReport, () => undefined);
    hp.channel.onNotification(R.SaveState, () => undefined);
    hp.channel.onNotification(ReportProblem, (p) => problems.push(p.message));
    hp.channel.notify(R.DidLoad, { run: 'sample', model: encodeJson(view), state: null });
    await hp.page.waitForSelector('[data-loaded-run="sample"]');
  });
  after(async () => {
    await hp?.close();
    await store?.close();
    await closeBrowser();
  });

  it('shows the verdict, join coverage and the quantiles that the generator knows by construction', async () => {
    const page = hp.page;
    const { report } = await sampleRun();
    const verdict = (await page.locator('[data-testid="verdict"]').textContent()) ?? '';
    assert.ok(verdict.startsWith('PASS'), verdict);
    assert.ok(verdict.includes(`${report.gates.length} gates: ${report.gates.length} passed, 0 failed, 0 without data`));
    const join = await page.locator('[data-testid="join-client"] tr').allTextContents();
    assert.ok(join.includes(`matched (one root)${fmtInt(EXPECTED.counts.matched)} · ${fmtPct(EXPECTED.counts.matched / EXPECTED.counts.started)}`), join.join('\n'));
    const rows = await page.locator('[data-testid="q-matched"] tbody tr').allTextContents();
    for (const metric of ['client_total_ms', 'server_root_ms', 'network_envelope_ms', 'gpu_queue_ms', 'generation_ms']) {
      const e = EXPECTED.matched_succeeded[metric];
      const row = rows.find((r) => r.startsWith(metric));
      assert.ok(row, metric);
      assert.ok(row.startsWith(`${metric}${fmtInt(e.n)}${fmtMs(e.p50, false)}${fmtMs(e.p95, false)}${fmtMs(e.p99, false)}`), `${metric}: ${row}`);
    }
    const ledger = (await page.locator('[data-testid="ledger-reconcile"]').textContent()) ?? '';
    assert.ok(ledger.includes(`started ${fmtInt(EXPECTED.counts.started)} = succeeded ${fmtInt(EXPECTED.counts.succeeded)}`));
    assert.ok(ledger.includes('✓ the ledger reconciles'));
    const tail = await page.locator('[data-testid="tail-table"] tbody tr').allTextContents();
    assert.deepStrictEqual(tail.map((t) => t.replace(/[\d.,%\s]+$/, '')), report.tail_attribution.phases.map((x) => x.phase.replace(/_/g, ' ')));
  });

  it('lists the traces of a window picked with the keyboard, and opens a trace', async () => {
    const page = hp.page;
    const { report } = await sampleRun();
    await page.locator('[data-testid="chart-window-counts"]').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid="selected-traces"]');
    const w = report.windows.windows[1];
    assert.deepStrictEqual(requests[requests.length - 1], { kind: 'window', index: w.index });
    const listed = await page.locator('[data-testid="selected-traces"] tbody tr').count();
    assert.strictEqual(listed, Math.min(20, w.client_total_ms.n), 'the window holds this many matched successes');
    const first = page.locator('[data-testid="selected-traces"] button').first();
    const id = await first.getAttribute('data-trace');
    await first.click();
    await page.waitForTimeout(50);
    assert.deepStrictEqual(opened, [id]);
  });

  it('lists the traces of an envelope bucket, as many as the histogram counts', async () => {
    const page = hp.page;
    const { view } = await sampleRun();
    await page.locator('[data-testid="chart-envelope"]').focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => ((globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('#selected-traces-h')?.textContent ?? '').includes('envelope'));
    const last = view.envelope_histogram.bins[view.envelope_histogram.bins.length - 1];
    assert.deepStrictEqual(requests[requests.length - 1], { kind: 'envelope', from_ms: last.from_ms, to_ms: last.to_ms });
    assert.strictEqual(await page.locator('[data-testid="selected-traces"] tbody tr').count(), last.count);
    assert.strictEqual(view.envelope_histogram.bins.reduce((a, b) => a + b.count, 0), EXPECTED.matched_succeeded.network_envelope_ms.n);
  });

  it('opens the contract at the line of a gate', async () => {
    const page = hp.page;
    const { report, view } = await sampleRun();
    const g = report.gates[0];
    await page.locator('[data-testid="gates"] tbody tr').first().locator('button').click();
    await page.waitForTimeout(50);
    const line = Number(/:(\d+)$/.exec(g.origin ?? '')?.[1]);
    assert.deepStrictEqual(contracts, [{ path: SAMPLE_CONTRACT, line, gate: g.id }]);
    assert.ok(line > 0);
    const config = await page.locator('[data-testid="configuration"] tr').allTextContents();
    assert.ok(config.includes(`contract${SAMPLE_CONTRACT}`));
    assert.ok(config.some((r) => r.startsWith('phase gpu_queue') && r.includes('llm.phase = queue')));
    void view;
  });

  it('says that no diagnosis fired on the steady sample run, and which rules were evaluated', async () => {
    const { report } = await sampleRun();
    assert.deepStrictEqual(report.diagnoses, []);
    assert.strictEqual(await hp.page.locator('#diagnoses-h').textContent(), 'Diagnoses: nothing fired');
    const summary = (await hp.page.locator('[data-testid="diagnoses-summary"]').textContent()) ?? '';
    assert.ok(summary.startsWith(report.diagnosis_status.summary) && summary.startsWith('no rule fired'), summary);
    assert.strictEqual(await hp.page.locator('[data-code]').count(), 0);
  });

  it('renders in light, dark and high contrast without CSP violations or errors', async () => {
    for (const theme of ['dark', 'light', 'high-contrast'] as const) {
      await hp.setTheme(theme);
      await hp.page.waitForTimeout(200);
      await hp.page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
      await hp.screenshot(`report-sample-${theme}`);
      await hp.page.locator('#windows').scrollIntoViewIfNeeded();
      await hp.screenshot(`report-sample-charts-${theme}`);
    }
    assert.deepStrictEqual(await hp.allProblems(), []);
    assert.deepStrictEqual(problems, []);
  });
});

describe('run report webview: negative envelopes of a real OpenTelemetry JS run', function () {
  this.timeout(120_000);
  after(closeBrowser);

  it('highlights the negative buckets, and their counts add up to the report’s negative count', async () => {
    const dir = path.join(repoRoot, 'test', 'fixtures', 'shared-samples', 'joined-otel-js');
    const store = new DuckStore();
    let hp: HostPage | undefined;
    try {
      await loadFiles(store, [path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl')]);
      const report = await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []);
      const view = await buildReportView(store, { options: DEFAULT_ANALYSIS_OPTIONS, gates: [], report });
      const env = report.metrics.network_envelope_ms as { n: number; negative: { count: number } };
      assert.ok(env.negative.count > 0, 'this run has negative envelopes');
      const negativeBins = view.envelope_histogram.bins.filter((b) => b.to_ms <= 0);
      assert.strictEqual(negativeBins.reduce((a, b) => a + b.count, 0), env.negative.count);
      assert.ok(view.envelope_histogram.bins.every((b) => b.to_ms <= 0 || b.from_ms >= 0), 'no bucket straddles zero');
      hp = await HostPage.open('report', { theme: 'light', width: 1280, height: 900 });
      hp.channel.onNotification(R.SaveState, () => undefined);
      hp.channel.notify(R.DidLoad, { run: 'joined', model: encodeJson(view), state: null });
      await hp.page.waitForSelector('[data-loaded-run="joined"]');
      const text = (await hp.page.locator('#envelope').textContent()) ?? '';
      assert.ok(text.includes(`${fmtInt(env.n)} matched successes; ${fmtInt(env.negative.count)} negative`), text);
      await hp.page.locator('[data-testid="chart-envelope"]').focus();
      await hp.page.keyboard.press('Home');
      const first = view.envelope_histogram.bins[0];
      assert.strictEqual(await hp.page.locator('[data-testid="chart-envelope"] .rp-chart-readout').textContent(), `[${fmtMs(first.from_ms)}, ${fmtMs(first.to_ms)}): ${fmtInt(first.count)} requests — negative envelope`);
      await hp.page.locator('#envelope').scrollIntoViewIfNeeded();
      await hp.screenshot('report-joined-otel-js-envelope-light');
      await hp.setTheme('high-contrast');
      await hp.page.waitForTimeout(200);
      await hp.screenshot('report-joined-otel-js-envelope-high-contrast');
      assert.deepStrictEqual(await hp.allProblems(), []);
    } finally {
      await hp?.close();
      await store.close();
    }
  });
});
