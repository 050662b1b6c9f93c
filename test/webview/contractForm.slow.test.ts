// The contract form bundle in headless Chromium on the static host page (test/webview/harness.ts): the
// test plays the extension host through the real HostChannel and keeps the document text, applying the
// form's edit requests with the core edit model as the custom editor does, so every update the form
// shows comes from a text. Figures are worked out by hand from the sample contracts.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { parseContract } from '../../src/core/contract';
import { formEditToTextEdits } from '../../src/core/contract/form/edits';
import { buildFormModel } from '../../src/core/contract/form/model';
import type { FormEdit } from '../../src/core/contract/form/types';
import { parseSource } from '../../src/core/contract/parse/sourceMap';
import { validateSource } from '../../src/core/contract/validate';
import { ReportProblem } from '../../src/protocol/common';
import * as F from '../../src/protocol/contractForm';
import { encodeJson } from '../../src/protocol/schema';
import { buildLargeContract } from '../../bench/contractValidation';
import { repoRoot } from '../helpers/paths';
import { closeBrowser, HostPage } from './harness';
import type { ThemeKind } from '../../src/protocol/common';

const read = (p: string): string => fs.readFileSync(path.join(repoRoot, p), 'utf8');
const STEADY = read('samples/steady.loadcontract.yaml');
const MISTAKES = read('test/vscode/fixtures/contracts/mistakes.loadcontract.yaml');
const NO_RUNS: F.RunsStateParams = { runs: [], selected: null, reason: 'No run is open in the Runs view.', preview: null };

function applyEdits(text: string, edits: { start: number; end: number; newText: string }[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

/** The extension host's part, on a text: a version per change, an update per version, edits through the core. */
class DocumentHost {
  version = 1;
  readonly edits: FormEdit[] = [];
  readonly fixes: { version: number; index: number }[] = [];
  readonly problems: string[] = [];
  readonly toggles: boolean[] = [];
  k6: F.K6PreviewParams = null;

  constructor(
    readonly hp: HostPage,
    public text: string,
    readonly file: string,
  ) {
    hp.channel.onRequest(F.Edit, (p) => {
      this.edits.push(p.edit as FormEdit);
      this.change(applyEdits(this.text, formEditToTextEdits(parseSource(this.text, file), p.edit as FormEdit)));
      return { applied: true, reason: null };
    });
    hp.channel.onRequest(F.ApplyFix, (p) => {
      this.fixes.push(p);
      const fix = parseContract(this.text, file).diagnostics[p.index]?.fix;
      if (p.version !== this.version || !fix) return { applied: false, reason: 'stale' };
      this.change(applyEdits(this.text, fix.edits));
      return { applied: true, reason: null };
    });
    hp.channel.onRequest(F.Evaluate, () => ({ started: false, reason: NO_RUNS.reason }));
    hp.channel.onNotification(F.SetK6Preview, (p) => this.toggles.push(p.open));
    hp.channel.onNotification(F.RevealInText, () => undefined);
    hp.channel.onNotification(ReportProblem, (p) => this.problems.push(p.message));
  }

  /** A change of the document (from the form or "the text editor"): a new version and its update. */
  change(text: string): void {
    this.text = text;
    this.version++;
    this.push();
  }

  push(): void {
    const source = parseSource(this.text, this.file);
    const model = buildFormModel(source, validateSource(source, this.file).diagnostics, path.basename(this.file));
    this.hp.channel.notify(F.Update, { version: this.version, dirty: this.version > 1, model: encodeJson(model), k6: this.k6, runs: NO_RUNS, evaluation: null });
  }

  async shown(): Promise<void> {
    await this.hp.page.waitForSelector(`[data-version="${this.version}"]`);
  }
}

async function open(text: string, file: string, theme: ThemeKind = 'dark', height = 1000): Promise<DocumentHost> {
  const hp = await HostPage.open('contract-form', { theme, width: 1280, height });
  const host = new DocumentHost(hp, text, file);
  host.push();
  await host.shown();
  return host;
}

const field = (pointer: string): string => `[data-pointer="${pointer}"]`;

/** The value a vscode-textfield (or select) shows. */
async function valueOf(host: DocumentHost, pointer: string): Promise<string> {
  return host.hp.page.locator(field(pointer)).first().evaluate((e) => String((e as unknown as { value: string }).value));
}

async function focusedPointer(host: DocumentHost): Promise<string | null> {
  return host.hp.page.evaluate(() => (globalThis as unknown as { document: { activeElement: { closest(s: string): { getAttribute(a: string): string | null } | null } | null } }).document.activeElement?.closest('[data-pointer]')?.getAttribute('data-pointer') ?? null);
}

/** Tabs through the form from the top until the field has focus (keyboard only), at most `limit` presses. */
async function tabTo(host: DocumentHost, pointer: string, limit = 250): Promise<number> {
  for (let i = 1; i <= limit; i++) {
    await host.hp.page.keyboard.press('Tab');
    if ((await focusedPointer(host)) === pointer) return i;
  }
  throw new Error(`${pointer} not reached with ${limit} Tab presses`);
}

describe('contract form webview in headless Chromium', function () {
  this.timeout(120_000);
  after(closeBrowser);

  it('shows samples/steady\'s arithmetic: 12,000 of 12,000 ms, 10/s × 12 s = 120 in flight, 1 − 0.95^4 = 18.5 %', async () => {
    const host = await open(STEADY, 'samples/steady.loadcontract.yaml');
    const page = host.hp.page;
    try {
      assert.strictEqual(await valueOf(host, '/budgets/0/phases/gateway'), '350ms');
      assert.strictEqual(await page.locator('[data-testid="budget-sum-0"]').textContent(), 'Σ 12,000 ms = the 12,000 ms SLO: no slack');
      const bar = (await page.locator('[data-testid="budget-bar-0"]').getAttribute('aria-label')) ?? '';
      assert.ok(bar.includes('network envelope 150.0 ms, gateway 350.0 ms, gpu queue 1,500 ms, generation 9,500 ms, unattributed server 500.0 ms'), bar);
      const little = (await page.locator('[data-testid="littles-law"]').textContent()) ?? '';
      assert.ok(little.includes('10/s × 12 s = 120 in flight'), little);
      assert.ok(little.includes('max_in_flight 512 covers the 120 needed at p95'), little);
      assert.ok(little.includes('pre_allocated_vus 64 is below 120: k6 starts the other 56 VUs during the run'), little);
      const tail = (await page.locator('[data-testid="session-tail"]').textContent()) ?? '';
      assert.ok(tail.includes('4 calls per session') && tail.includes('^4 = 18.5 % of sessions'), tail);
      const timeline = (await page.locator('[data-testid="timeline-text"]').textContent()) ?? '';
      assert.ok(timeline.includes('ramp 10s → plateau 1m 20s → drain 30s') && timeline.includes('steady window 20s → 1m 30s (1m 10s)'), timeline);
      assert.deepStrictEqual(await page.locator('[data-testid="prompt-shapes"] tbody tr').count(), 3);
      assert.strictEqual(await page.locator('[data-testid="phase-pick-gpu_queue"]').textContent(), 'Spans picked: no run selected.');
      assert.strictEqual(await page.locator('[data-testid="evaluate-status"]').textContent(), 'No run is open in the Runs view.');
      assert.deepStrictEqual(await host.hp.allProblems(), []);
    } finally {
      await host.hp.close();
    }
  });

  it('puts each diagnostic of the text editor next to its field, with its quick fix', async () => {
    const host = await open(MISTAKES, 'mistakes.loadcontract.yaml', 'light');
    const page = host.hp.page;
    try {
      const editor = parseContract(MISTAKES, 'mistakes.loadcontract.yaml').diagnostics;
      assert.strictEqual(await page.locator('.cf-diag').count(), editor.length);
      for (const d of editor) {
        const text = (await page.locator(`.cf-diag[data-code="${d.code}"]`).textContent()) ?? '';
        assert.ok(text.includes(d.message) && text.includes(`line ${d.line}`), `${d.code}: ${text}`);
      }
      // Beside the field: the same row as the field's control, or the section/budget it belongs to.
      const rowOf = async (code: string): Promise<string | null> => page.locator(`.cf-diag[data-code="${code}"]`).evaluate((e) => (e as unknown as { closest(s: string): { querySelector(s: string): { getAttribute(a: string): string | null } | null } | null }).closest('.cf-row')?.querySelector('[data-pointer]')?.getAttribute('data-pointer') ?? null);
      assert.strictEqual(await rowOf('plateau-too-short'), '/workload/plateau');
      assert.strictEqual(await rowOf('duration-no-unit'), '/workload/drain');
      assert.strictEqual(await page.locator('[data-testid="budget-0"] .cf-diag[data-code="budgets-exceed-slo"]').count(), 1);
      assert.strictEqual(await page.locator('[data-section="/workload"] > .cf-diags .cf-diag[data-code="unknown-key"]').count(), 1);
      assert.strictEqual(await page.locator('[data-testid="budget-sum-0"]').textContent(), 'Σ 2,400 ms: 400.0 ms (20.0 %) over the 2,000 ms SLO');
      // The quick fix from the form, by keyboard: the validation's own fix, named by version and index.
      const fixButton = page.locator('.cf-diag[data-code="unknown-key"] button.cf-button');
      await fixButton.focus();
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-version="2"]');
      const index = editor.findIndex((d) => d.code === 'unknown-key');
      assert.deepStrictEqual(host.fixes, [{ version: 1, index }]);
      assert.strictEqual(host.text, MISTAKES.replace('warmup_exlude: 1m', 'warmup_exclude: 1m'));
      assert.strictEqual(await page.locator('.cf-diag[data-code="unknown-key"]').count(), 0);
      assert.deepStrictEqual(await host.hp.allProblems(), []);
    } finally {
      await host.hp.close();
    }
  });

  it('edits by keyboard only: Tab to a budget, type, Enter; the text changes by exactly that value and the form follows it', async () => {
    const host = await open(STEADY, 'samples/steady.loadcontract.yaml');
    const page = host.hp.page;
    try {
      const presses = await tabTo(host, '/budgets/0/phases/gateway');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('300ms');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-version="2"]');
      assert.deepStrictEqual(host.edits, [{ op: 'set', pointer: '/budgets/0/phases/gateway', input: '300ms' }]);
      assert.strictEqual(host.text, STEADY.replace('      gateway: 350ms\n', '      gateway: 300ms\n'));
      // 150 + 300 + 1500 + 9500 + 500 = 11950 of 12000: 50 ms, 0.4 % slack.
      assert.strictEqual(await page.locator('[data-testid="budget-sum-0"]').textContent(), 'Σ 11,950 ms of 12,000 ms: 50.00 ms (0.4 %) slack');
      assert.strictEqual(await focusedPointer(host), '/budgets/0/phases/gateway', 'focus stays on the field across the update');
      // Escape puts the document's value back; nothing is sent.
      await page.keyboard.press('Control+A');
      await page.keyboard.type('1h');
      await page.keyboard.press('Escape');
      assert.strictEqual(await valueOf(host, '/budgets/0/phases/gateway'), '300ms');
      // A select by keyboard: the executor moves to the next option.
      await tabTo(host, '/workload/executor', 400);
      await page.keyboard.press('ArrowDown');
      await page.waitForSelector('[data-version="3"]');
      assert.deepStrictEqual(host.edits[1], { op: 'set', pointer: '/workload/executor', input: 'ramping-arrival-rate' });
      assert.ok(host.text.includes('  executor: ramping-arrival-rate\n'));
      // An emptied field removes its key.
      await tabTo(host, '/workload/pre_allocated_vus', 400);
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-version="4"]');
      assert.deepStrictEqual(host.edits[2], { op: 'remove', pointer: '/workload/pre_allocated_vus' });
      assert.ok(!host.text.includes('pre_allocated_vus'));
      assert.ok(presses < 250);
      assert.deepStrictEqual(await host.hp.allProblems(), []);
    } finally {
      await host.hp.close();
    }
  });

  it('a change from the text editor while a field is being typed into keeps the typing, the caret\'s field and the focus', async () => {
    const host = await open(STEADY, 'samples/steady.loadcontract.yaml');
    const page = host.hp.page;
    try {
      await tabTo(host, '/workload/max_in_flight', 400);
      await page.keyboard.press('End');
      await page.keyboard.type('0');
      // Meanwhile the text editor changes another value.
      host.change(host.text.replace('  drain: 30s\n', '  drain: 45s\n'));
      await host.shown();
      assert.strictEqual(await valueOf(host, '/workload/drain'), '45s');
      assert.strictEqual(await valueOf(host, '/workload/max_in_flight'), '5120');
      assert.strictEqual(await focusedPointer(host), '/workload/max_in_flight');
      assert.deepStrictEqual(host.edits, [], 'nothing is sent until the user commits');
    } finally {
      await host.hp.close();
    }
  });

  it('shows the k6 preview beside the form as text, and asks the host to open or close it', async () => {
    const host = await open(STEADY, 'samples/steady.loadcontract.yaml');
    const page = host.hp.page;
    try {
      await page.locator('button', { hasText: 'k6 script' }).click();
      await page.waitForTimeout(50);
      assert.deepStrictEqual(host.toggles, [true]);
      host.k6 = { kind: 'script', text: 'export default function () {\n  // </pre><b>not bold</b>\n}\n' };
      host.change(host.text);
      await host.shown();
      assert.strictEqual(await page.locator('[data-testid="k6-script"]').textContent(), host.k6.text);
      assert.strictEqual(await page.locator('[data-testid="k6-script"] b').count(), 0);
      await page.locator('button', { hasText: 'Hide k6 script' }).click();
      await page.waitForTimeout(50);
      assert.deepStrictEqual(host.toggles, [true, false]);
    } finally {
      await host.hp.close();
    }
  });

  it('the 500-line bench contract: a block per budget with its own sum; an edit to one budget changes that one', async () => {
    const text = buildLargeContract(500);
    const budgets = text.split('\n').filter((l) => l.startsWith('  - allocates:')).length;
    const host = await open(text, 'bench.loadcontract.yaml', 'dark', 900);
    const page = host.hp.page;
    try {
      assert.strictEqual(await page.locator('.cf-budget').count(), budgets);
      // Every budget of the generated contract adds up to 150 + 10k + 100 + 400 + 1300 − 10k + 50 = 2,000 ms.
      const sums = await page.locator('.cf-budget-sum').allTextContents();
      assert.deepStrictEqual(new Set(sums), new Set(['Σ 2,000 ms = the 2,000 ms SLO: no slack']));
      const pointer = '/budgets/20/phases/gateway';
      await page.locator(field(pointer)).first().scrollIntoViewIfNeeded();
      await page.locator(field(pointer)).first().focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('150ms');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-version="2"]');
      // Budget 20 is region-20's (i = 20, so 150 ms of network envelope; the template's own budget comes last): 2,000 − 100 + 150 = 2,050 ms.
      assert.strictEqual(await page.locator('[data-testid="budget-sum-20"]').textContent(), 'Σ 2,050 ms: 50.00 ms (2.5 %) over the 2,000 ms SLO');
      assert.strictEqual((await page.locator('.cf-budget-sum').allTextContents()).filter((t) => t.startsWith('Σ 2,000 ms =')).length, budgets - 1);
      assert.strictEqual(await page.locator('[data-testid="counts"]').textContent(), '1 error, 0 warnings, 0 notes');
      await page.screenshot({ path: await artefact('contract-form-500-lines-dark') });
      await page.locator('[data-section="/workload"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: await artefact('contract-form-500-lines-workload-dark') });
      await page.screenshot({ path: await artefact('contract-form-500-lines-dark-full'), fullPage: true });
      assert.deepStrictEqual(await host.hp.allProblems(), []);
    } finally {
      await host.hp.close();
    }
  });

  it('puts text from the file in text nodes only (a hostile name, key and value)', async () => {
    const hostile = STEADY.replace('name: chat-completions steady SLO check', 'name: "<img src=x onerror=alert(1)>"').replace('  region: local\n', '  region: "<script>alert(2)</script>"\n  <b>bold</b>: 1\n');
    const host = await open(hostile, 'h.loadcontract.yaml');
    const page = host.hp.page;
    try {
      assert.strictEqual(await page.locator('h1').textContent(), '<img src=x onerror=alert(1)>');
      assert.strictEqual(await page.locator('img').count(), 0);
      assert.strictEqual(await page.locator('#phasewise-contract-form script, #phasewise-contract-form b').count(), 0);
      assert.strictEqual(await valueOf(host, '/request/region'), '<script>alert(2)</script>');
      assert.ok(((await page.locator('.cf-diag[data-code="unknown-key"]').textContent()) ?? '').includes('<b>bold</b>'));
      assert.deepStrictEqual(await host.hp.allProblems(), []);
    } finally {
      await host.hp.close();
    }
  });

  it('follows the theme: colours from the theme\'s variables; screenshots in dark, light and high contrast', async () => {
    const host = await open(read('samples/streaming.loadcontract.yaml'), 'samples/streaming.loadcontract.yaml', 'dark', 2400);
    const page = host.hp.page;
    try {
      const seen = new Set<string>();
      for (const theme of ['dark', 'light', 'high-contrast'] as const) {
        await host.hp.setTheme(theme);
        await page.waitForTimeout(150);
        const [yellow, bg] = await page.evaluate(() => {
          const g = globalThis as unknown as { getComputedStyle(e: unknown): { getPropertyValue(k: string): string }; document: { body: unknown; querySelector(s: string): { style: { background: string } } | null; createElement(t: string): { style: { background: string } } } };
          const d = g.document.createElement('div');
          d.style.background = g.getComputedStyle(g.document.body).getPropertyValue('--vscode-charts-yellow').trim();
          return [d.style.background, g.document.querySelector('[data-testid="budget-bar-0"] .cf-seg:nth-child(2)')?.style.background ?? ''];
        });
        assert.strictEqual(bg, yellow, `${theme}: the gateway segment takes --vscode-charts-yellow`);
        seen.add(bg);
        await page.screenshot({ path: await artefact(`contract-form-streaming-${theme}`), fullPage: true });
      }
      assert.strictEqual(seen.size, 3, 'each theme has its own colour');
      await host.hp.close();
      const mistakes = await open(MISTAKES, 'mistakes.loadcontract.yaml', 'light', 1800);
      await mistakes.hp.page.screenshot({ path: await artefact('contract-form-mistakes-light'), fullPage: true });
      await mistakes.hp.close();
    } finally {
      if (!host.hp.page.isClosed()) await host.hp.close();
    }
  });
});

async function artefact(name: string): Promise<string> {
  const dir = path.join(repoRoot, 'test', 'webview', '.artifacts');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}
