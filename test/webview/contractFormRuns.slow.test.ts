// The contract form's run parts in headless Chromium: the phase preview (counting, counted, failed, no
// run), the pick list of open runs, Evaluate with its progress line and Cancel by keyboard, and every
// gate of an evaluation inline. The host side is played here; the gates are a real analysis
// (analyzeFiles on joined-otel-js with contracts/joined.loadcontract.yaml), the picks the core's preview.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { previewPhases, type PhasePick } from '../../src/core/analysis/breakdown/phasePreview';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../src/core/analysis/options';
import { buildBreakdown } from '../../src/core/analysis/breakdown/pipeline';
import { buildFormModel } from '../../src/core/contract/form/model';
import { parseSource } from '../../src/core/contract/parse/sourceMap';
import { validateSource } from '../../src/core/contract/validate';
import { loadFiles } from '../../src/core/formats/loadFiles';
import type { GateResult } from '../../src/core/report/model';
import { analyzeFiles } from '../../src/core/run/analyzeFiles';
import { DuckStore } from '../../src/core/store/duckStore';
import type { ThemeKind } from '../../src/protocol/common';
import * as F from '../../src/protocol/contractForm';
import { encodeJson } from '../../src/protocol/schema';
import { repoRoot, sharedSamplesDir } from '../helpers/paths';
import { closeBrowser, HostPage } from './harness';

const CONTRACT = path.join(repoRoot, 'test', 'vscode', 'fixtures', 'contracts', 'joined.loadcontract.yaml');
const TEXT = fs.readFileSync(CONTRACT, 'utf8');
const RUN_DIR = path.join(sharedSamplesDir, 'joined-otel-js');
const RUNS = [
  { id: 'r1', label: 'k6.ndjson + spans.otlp.jsonl · instrumentation failure' },
  { id: 'r2', label: 'requests.ndjson + spans.otlp.jsonl · pass' },
];
const OUT = process.env.PHASEWISE_SCREENSHOTS ?? path.join(repoRoot, 'test', 'webview', '.artifacts');

function model(): ReturnType<typeof buildFormModel> {
  const source = parseSource(TEXT, CONTRACT);
  return buildFormModel(source, validateSource(source, CONTRACT).diagnostics, path.basename(CONTRACT));
}

function gateRow(g: GateResult): F.EvaluatedGate {
  return { id: g.id, category: g.category, metric: g.metric, stat: g.stat, op: g.op, limit: g.limit, observed: g.observed, n: g.n, window: g.window, status: g.status, origin: g.origin ?? null };
}

class RunsHost {
  readonly evaluations: number[] = [];
  readonly cancels: number[] = [];
  readonly selections: string[] = [];
  runs: F.RunsStateParams = { runs: [], selected: null, reason: 'No run is open in the Runs view: open one with Phasewise: Open Run…', preview: null };
  evaluation: F.EvaluationParams = null;
  private readonly m = model();

  constructor(readonly hp: HostPage) {
    hp.channel.onRequest(F.Evaluate, () => {
      this.evaluations.push(Date.now());
      return this.runs.selected === null ? { started: false, reason: this.runs.reason } : { started: true, reason: null };
    });
    hp.channel.onNotification(F.CancelEvaluate, () => this.cancels.push(Date.now()));
    hp.channel.onNotification(F.SelectRun, (p) => this.selections.push(p.id));
    hp.channel.onNotification(F.RevealInText, () => undefined);
  }

  update(): void {
    this.hp.channel.notify(F.Update, { version: 1, dirty: false, model: encodeJson(this.m), k6: null, runs: this.runs, evaluation: this.evaluation });
  }

  send(runs: F.RunsStateParams, evaluation: F.EvaluationParams = this.evaluation): void {
    this.runs = runs;
    this.evaluation = evaluation;
    this.hp.channel.notify(F.RunsChanged, { runs, evaluation });
  }

  text(testid: string): Promise<string> {
    return this.hp.page.locator(`[data-testid="${testid}"]`).first().innerText();
  }

  async until(testid: string, ok: (text: string) => boolean): Promise<void> {
    const end = Date.now() + 10_000;
    while (!ok(await this.text(testid))) {
      if (Date.now() > end) throw new Error(`${testid} still shows ${JSON.stringify(await this.text(testid))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

async function open(theme: ThemeKind = 'dark'): Promise<RunsHost> {
  const hp = await HostPage.open('contract-form', { theme, width: 1280, height: 900 });
  const host = new RunsHost(hp);
  host.update();
  await hp.page.waitForSelector('[data-version="1"]');
  return host;
}

describe('contract form webview: phase preview and Evaluate (headless Chromium)', function () {
  this.timeout(120_000);
  let picks: Record<string, PhasePick>;
  let gates: F.EvaluatedGate[];
  let verdict: { status: string; broken_phase: string | null; reasons: string[] };

  before(async () => {
    const store = new DuckStore();
    try {
      await loadFiles(store, [path.join(RUN_DIR, 'k6.ndjson'), path.join(RUN_DIR, 'spans.otlp.jsonl')]);
      const m = model();
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      picks = await previewPhases(store, m.phases.map((p) => ({ name: p.name, anyOf: p.anyOf })));
    } finally {
      await store.close();
    }
    const report = await analyzeFiles({ run: [path.join(RUN_DIR, 'k6.ndjson')], spans: [path.join(RUN_DIR, 'spans.otlp.jsonl')], contract: CONTRACT });
    gates = report.gates.map(gateRow);
    verdict = report.verdict;
  });
  after(closeBrowser);

  it('without a run: says why in the preview and Evaluate, Evaluate disabled', async () => {
    const host = await open();
    try {
      assert.match(await host.text('phase-preview'), /once a run is selected\. No run is open in the Runs view/);
      assert.strictEqual(await host.text('phase-pick-gateway'), 'Spans picked: no run selected.');
      assert.strictEqual(await host.hp.page.locator('[data-testid="evaluate"]').getAttribute('disabled'), '');
      assert.match(await host.text('evaluate-status'), /^No run is open in the Runs view/);
      assert.deepStrictEqual(host.hp.problems, []);
    } finally {
      await host.hp.page.close();
    }
  });

  it('the preview: counting, then each phase\'s spans, traces and commonest names as the host sent them; a failure says why', async () => {
    const host = await open();
    try {
      host.send({ runs: RUNS, selected: 'r1', reason: null, preview: { kind: 'pending' } });
      await host.until('phase-pick-gateway', (t) => t === 'Spans picked: counting…');
      host.send({ runs: RUNS, selected: 'r1', reason: null, preview: { kind: 'ready', picks } });
      await host.until('phase-pick-gateway', (t) => t.startsWith('Spans picked: 4'));
      // 4 gateway span names × 117 exported traces, 117 each (the sample's span file).
      assert.strictEqual(await host.text('phase-pick-gateway'), 'Spans picked: 468 in 117 traces (auth.check × 117, request.prepare × 117, response.write × 117, route.select × 117)');
      assert.strictEqual(await host.text('phase-pick-gpu_queue'), `Spans picked: ${picks.gpu_queue.spans} in ${picks.gpu_queue.traces} traces (inference.acquire_slot × ${picks.gpu_queue.spans})`);
      assert.match(await host.text('phase-preview'), /in k6\.ndjson \+ spans\.otlp\.jsonl · instrumentation failure \(the run selected in the Runs view\)/);
      await shot(host, '#cf-trace', 'contract-form-phase-preview-dark');
      host.send({ runs: RUNS, selected: 'r1', reason: null, preview: { kind: 'error', message: 'this run was removed from the Runs view' } });
      await host.until('phase-pick-gateway', (t) => t.includes('not counted'));
      assert.strictEqual(await host.text('phase-pick-generation'), 'Spans picked: not counted (this run was removed from the Runs view)');
      assert.deepStrictEqual(host.hp.problems, []);
    } finally {
      await host.hp.page.close();
    }
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`Evaluate by keyboard: the pick list, the progress line with Cancel, then every gate inline (${theme})`, async () => {
      const host = await open(theme);
      const page = host.hp.page;
      try {
        host.send({ runs: RUNS, selected: 'r1', reason: null, preview: { kind: 'ready', picks } });
        await page.waitForSelector('[data-testid="run-picker"]');
        // The pick list: another run, chosen with the keyboard.
        await page.focus('[data-testid="run-picker"]');
        await page.keyboard.press('ArrowDown');
        await waitUntil(() => host.selections.length === 1);
        assert.deepStrictEqual(host.selections, ['r2']);
        // Evaluate: Tab from the pick list to the button, Enter.
        await page.keyboard.press('Tab');
        assert.strictEqual(await page.locator(':focus').getAttribute('data-testid'), 'evaluate');
        await page.keyboard.press('Enter');
        await waitUntil(() => host.evaluations.length === 1);
        host.send(host.runs, { kind: 'running', run: RUNS[0].label, message: 'analysing' });
        await page.waitForSelector('[data-testid="evaluate-cancel"]');
        assert.strictEqual(await host.text('evaluate-status'), `Evaluating against ${RUNS[0].label}: analysing`);
        assert.strictEqual(await page.locator('[data-testid="evaluate"]').getAttribute('disabled'), '', 'no second Evaluate while one runs');
        await page.focus('[data-testid="evaluate-cancel"]');
        await page.keyboard.press('Enter');
        await waitUntil(() => host.cancels.length === 1);

        host.send(host.runs, { kind: 'done', run: RUNS[0].label, version: 1, verdict, gates });
        await page.waitForSelector('[data-testid="evaluation"]');
        const rows = await page.locator('[data-testid="evaluation"] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-testid'), tr.getAttribute('data-status')]));
        assert.deepStrictEqual(rows, gates.map((g) => [`evaluated-${g.id}`, g.status]));
        const failed = gates.filter((g) => g.status === 'fail').length;
        assert.strictEqual(await host.text('evaluate-status'), `Evaluated against ${RUNS[0].label}: verdict ${verdict.status.replace(/_/g, ' ')}, ${gates.length} gates (${failed} failed, ${gates.filter((g) => g.status === 'no_data').length} without data).`);
        // 0.95 × 12/s, without float noise.
        assert.strictEqual(await page.locator('[data-testid="evaluated-workload.achieved_start_rate"] td').nth(1).innerText(), 'achieved_start_rate.value >= 11.4');
        // The gates table's own rows show their result inline: join_coverage 91.67 % fails its 95 %.
        assert.strictEqual(await host.text('gate-result-join_coverage'), 'FAIL 91.7 %');
        assert.strictEqual(await host.text('gate-result-error_rate'), 'PASS 3.3 %');
        assert.strictEqual(await page.locator('[data-testid="evaluated-budget.gateway_ms.p95"] td').nth(1).innerText(), 'gateway_ms.p95 <= 15.00 ms');
        // Beside the SLO and each budget phase too (the CLI's figures on this run: 240.94 ms, 18.52 ms).
        assert.strictEqual(await host.text('inline-slo.total_ms.p95'), 'PASS observed 240.9 ms');
        assert.strictEqual(await host.text('inline-budget.gateway_ms.p95'), 'FAIL 18.52 ms');
        assert.strictEqual(await host.text('inline-budget.generation_ms.p95'), 'PASS 223.0 ms');
        await shot(host, '#cf-gates', `contract-form-evaluate-${theme}`);
        await shot(host, '[data-testid="budget-0"]', `contract-form-evaluate-budget-${theme}`);
        assert.deepStrictEqual(host.hp.problems, []);
      } finally {
        await page.close();
      }
    });
  }
});

async function waitUntil(ok: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function shot(host: RunsHost, selector: string, name: string): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  await host.hp.page.locator(selector).screenshot({ path: path.join(OUT, `${name}.png`) });
}
