import * as assert from 'assert';
import { childrenOf, computeCriticalPath } from '../../src/core/analysis/trace/criticalPath';
import type { TraceModel } from '../../src/core/analysis/trace/types';
import { fmtDelta, fmtMs } from '../../webview/shared/format';
import { closeBrowser } from './harness';
import { bigTrace, sampleRun, zipkinTrace } from './models';
import { domRows, openWaterfall, visibleRowCount, type WaterfallPage } from './waterfallPage';

const THEMES = ['dark', 'light', 'high-contrast'] as const;

/** What a find matches, written from the documented fields (name, service, span ID, kind, status, phase, attribute key=value; masked values by key only). */
function expectedMatches(model: TraceModel, query: string): number[] {
  const q = query.toLowerCase();
  const out: number[] = [];
  model.spans.forEach((s, i) => {
    const fields = [s.name, s.service ?? '', s.span_id, s.kind, s.status, s.phase ?? '', ...s.attributes.map((a) => (a.masked ? a.key : `${a.key}=${a.value}`))];
    if (fields.some((f) => f.toLowerCase().includes(q))) out.push(i);
  });
  return out;
}

async function themeVar(wp: WaterfallPage, name: string): Promise<string> {
  return wp.hp.page.evaluate((n) => (globalThis as unknown as { getComputedStyle(e: unknown): { getPropertyValue(k: string): string }; document: { body: unknown } }).getComputedStyle((globalThis as unknown as { document: { body: unknown } }).document.body).getPropertyValue(n).trim(), name);
}

describe('waterfall webview in headless Chromium', function () {
  this.timeout(120_000);
  after(closeBrowser);

  it('draws the slowest sample request: k6 lanes, envelope gap, phases, reconciliation, tree; redraws per theme', async () => {
    const { slow } = await sampleRun();
    const wp = await openWaterfall(slow);
    try {
      const page = wp.hp.page;
      assert.strictEqual(await page.locator('[data-testid="trace-id"]').textContent(), slow.trace_id);
      assert.strictEqual(await page.locator('[data-testid="reconciliation"]').textContent(), slow.reconciliation.join('\n'));
      const strip = (await page.locator('[data-testid="request-strip"]').textContent()) ?? '';
      const c = slow.client!;
      assert.ok(strip.includes(`http_req_duration ${fmtMs(c.total_ms)} = sending ${fmtMs(c.sending_ms)} + waiting ${fmtMs(c.waiting_ms)} + receiving ${fmtMs(c.receiving_ms)}`), strip);
      assert.ok(strip.includes(`envelope ${fmtMs(slow.breakdown.network_envelope_ms)} drawn as one block: how it splits between the request and the response path is not measured`), strip);
      assert.deepStrictEqual((await domRows(wp)).map((r) => r.name), slow.spans.map((s) => s.name));
      const gen = page.locator('.wf-strip .seg', { hasText: 'generation' });
      for (const theme of THEMES) {
        await wp.hp.setTheme(theme);
        await page.waitForTimeout(120);
        // Colours are read from the theme's variables when drawn: the generation segment follows the theme.
        const purple = await themeVar(wp, '--vscode-charts-purple');
        const bg = await gen.evaluate((e) => (e as unknown as { style: { background: string } }).style.background);
        const norm = await page.evaluate((v) => {
          const d = (globalThis as unknown as { document: { createElement(t: string): { style: { background: string } } } }).document.createElement('div');
          d.style.background = v;
          return d.style.background;
        }, purple);
        assert.strictEqual(bg, norm, `${theme}: generation colour`);
        await wp.hp.screenshot(`waterfall-sample-${theme}`);
      }
      assert.deepStrictEqual(await wp.hp.allProblems(), []);
    } finally {
      await wp.hp.close();
    }
  });

  it('compares with the typical trace (deltas as the core computed them) and copies the reconciliation', async () => {
    const { slow, comparison } = await sampleRun();
    assert.ok(comparison);
    const wp = await openWaterfall(slow, { comparison, theme: 'light' });
    try {
      const page = wp.hp.page;
      await page.click('[data-testid="compare"]');
      await page.waitForSelector('[data-testid="compare-phases"]');
      const rows = await page.locator('[data-testid="compare-phases"] tbody tr').allTextContents();
      const gen = comparison.phases.find((d) => d.name === 'generation')!;
      assert.ok(rows.some((r) => r.startsWith('generation') && r.endsWith(fmtDelta(gen.delta_ms))), rows.join('\n'));
      assert.ok(((await page.locator('[data-testid="comparison"] h2').textContent()) ?? '').includes(`generation ${fmtDelta(gen.delta_ms)}`));
      await wp.hp.screenshot('waterfall-sample-compare-light');
      await page.click('[data-testid="copy-reconciliation"]');
      await page.waitForTimeout(50);
      assert.deepStrictEqual(wp.copies, [slow.reconciliation.join('\n')]);
      await page.click('text=Open typical trace');
      await page.waitForTimeout(50);
      assert.deepStrictEqual(wp.opened, [comparison.typical.trace_id]);
    } finally {
      await wp.hp.close();
    }
  });

  it('the 1,041-row Zipkin trace (957 spans once its 84 untimed pieces are merged): virtualised rows; find highlights, counts and reaches rows scrolled out of the DOM; filter hides the rest', async () => {
    const model = await zipkinTrace();
    const wp = await openWaterfall(model, { theme: 'high-contrast' });
    try {
      const page = wp.hp.page;
      assert.strictEqual(await visibleRowCount(wp), 957);
      const inDom = (await domRows(wp)).length;
      assert.ok(inDom < 80, `only the rows in view are in the DOM (${inDom})`);
      const query = 'client-select-by-id';
      const expected = expectedMatches(model, query);
      assert.ok(expected.length > 10);
      await page.locator('[data-testid="find"]').click();
      await page.keyboard.type(query);
      await page.waitForTimeout(200);
      assert.strictEqual(await page.locator('[data-testid="find-count"]').textContent(), `1 of ${expected.length}`);
      // Shift+Enter wraps to the last match, far below the first screen.
      await page.keyboard.press('Shift+Enter');
      await page.waitForTimeout(100);
      const last = expected[expected.length - 1];
      assert.strictEqual(await page.locator('[data-testid="find-count"]').textContent(), `${expected.length} of ${expected.length}`);
      const selected = (await domRows(wp)).find((r) => r.cls.includes('selected'));
      assert.strictEqual(selected?.row, last);
      assert.strictEqual(await page.locator('[data-testid="span-detail"] h2').textContent(), model.spans[last].name);
      await wp.hp.screenshot('waterfall-zipkin-find-high-contrast');
      // Filter: only the matches and their ancestors stay.
      await page.click('[data-testid="filter-mode"]');
      await page.waitForTimeout(100);
      const keep = new Set<number>();
      for (const i of expected) for (let p: number | null = i; p !== null; p = model.spans[p].parent_index) keep.add(p);
      assert.strictEqual(await visibleRowCount(wp), keep.size);
      for (const theme of THEMES) {
        await wp.hp.setTheme(theme);
        await page.waitForTimeout(100);
        await wp.hp.screenshot(`waterfall-zipkin-filter-${theme}`);
      }
      assert.deepStrictEqual(await wp.hp.allProblems(), []);
    } finally {
      await wp.hp.close();
    }
  });

  it('the 10k-span trace: span detail (masked prompt, GenAI badges, attribute filter), keyboard collapse, critical path, minimap zoom', async () => {
    const { model } = await bigTrace();
    const wp = await openWaterfall(model, { theme: 'dark' });
    try {
      const page = wp.hp.page;
      assert.strictEqual(await visibleRowCount(wp), 10_000);
      assert.ok((await domRows(wp)).length < 80);
      const genIndex = model.spans.findIndex((s) => s.name === 'inference.generate');
      await page.locator(`.wf-row[data-row="${genIndex}"]`).click();
      const detail = page.locator('[data-testid="span-detail"]');
      await detail.waitFor();
      const badges = await detail.locator('.pw-badge').allTextContents();
      for (const b of ['model llama-3.1-70b', 'in 812 tokens', 'out 2,048 tokens', 'gen_ai chat', 'phase generation']) assert.ok(badges.includes(b), `${b} in ${badges.join(' | ')}`);
      const attrRows = await detail.locator('[data-testid="attributes"] tr').allTextContents();
      assert.strictEqual(attrRows.length, model.spans[genIndex].attributes.length);
      assert.ok(attrRows.includes('gen_ai.prompt‹masked: 91 characters›'), attrRows.join('\n'));
      assert.ok(!((await page.content()).includes('helpful assistant')));
      await detail.locator('[data-testid="attr-filter"]').click();
      await page.keyboard.type('gen_ai.usage');
      await page.waitForTimeout(50);
      assert.deepStrictEqual(await detail.locator('[data-testid="attributes"] tr').allTextContents(), ['gen_ai.usage.input_tokens812', 'gen_ai.usage.output_tokens2048']);
      assert.strictEqual(await detail.locator('[data-testid="events"] tbody tr').count(), 1);
      await wp.hp.screenshot('waterfall-10k-detail-dark');

      // Keyboard: Home selects the root; ← collapses it (one row left); → expands it again; ↓ moves to auth.check.
      await page.locator('[data-testid="span-tree"]').focus();
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowLeft');
      await page.waitForTimeout(50);
      assert.strictEqual(await visibleRowCount(wp), 1);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(50);
      assert.strictEqual(await visibleRowCount(wp), 10_000);
      assert.strictEqual(await page.locator('[data-testid="span-detail"] h2').textContent(), 'auth.check');
      assert.strictEqual(wp.selected[wp.selected.length - 1], model.spans[1].span_id);

      // Critical path: the rows not on it are dimmed, as computed here from the model.
      await page.click('[data-testid="critical-path"]');
      await page.waitForTimeout(100);
      const cp = computeCriticalPath(model.spans, 0, childrenOf(model.spans), model.granularity_ms ?? 0);
      for (const r of await domRows(wp)) assert.strictEqual(r.cls.includes('dim'), cp.onPath[r.row] === 0, `row ${r.row}`);
      await wp.hp.screenshot('waterfall-10k-critical-dark');

      // Minimap: + halves the window around its middle.
      const minimap = page.locator('[data-testid="minimap"]');
      await minimap.focus();
      await page.keyboard.press('+');
      const full = [model.spans[0].start_ms, Math.max(...model.spans.map((s) => s.start_ms + s.duration_ms))];
      const mid = (full[0] + full[1]) / 2;
      const quarter = (full[1] - full[0]) / 4;
      assert.strictEqual(await minimap.getAttribute('aria-valuetext'), `${fmtMs(mid - quarter)} to ${fmtMs(mid + quarter)}`);
      for (const theme of ['light', 'high-contrast'] as const) {
        await wp.hp.setTheme(theme);
        await page.waitForTimeout(100);
        await wp.hp.screenshot(`waterfall-10k-zoomed-${theme}`);
      }
      assert.deepStrictEqual(await wp.hp.allProblems(), []);
    } finally {
      await wp.hp.close();
    }
  });

  it('shows names and values from files as text (no markup runs) and restores its saved state', async () => {
    const { slow } = await sampleRun();
    const hostile: TraceModel = JSON.parse(JSON.stringify(slow));
    hostile.spans[1].name = '<img src=x onerror="window.__pwned=1">';
    hostile.spans[1].attributes.push({ key: 'note', value: '</script><script>window.__pwned=2</script>', masked: false });
    const wp = await openWaterfall(hostile);
    try {
      const page = wp.hp.page;
      await page.locator('.wf-row[data-row="1"]').click();
      await page.waitForTimeout(350);
      assert.strictEqual(await page.locator('[data-testid="span-detail"] h2').textContent(), hostile.spans[1].name);
      assert.strictEqual(await page.locator('img').count(), 0);
      assert.strictEqual(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
      const saved = wp.states[wp.states.length - 1];
      assert.strictEqual(saved.selected_span, hostile.spans[1].span_id);
      assert.strictEqual(saved.trace_id, hostile.trace_id);
      // A reloaded panel gets its state back with the data (WebviewPanelSerializer).
      const again = await openWaterfall(slow, { state: { ...saved, critical_path: true, find: 'inference', find_mode: 'highlight' } });
      try {
        assert.strictEqual(await again.hp.page.locator('[data-testid="span-detail"] h2').textContent(), slow.spans[1].name);
        assert.strictEqual(await again.hp.page.locator('[data-testid="find-count"]').textContent(), `– of ${expectedMatches(slow, 'inference').length}`);
      } finally {
        await again.hp.close();
      }
    } finally {
      await wp.hp.close();
    }
  });
});
