// End-to-end checks through the workbench UI, run after the integration suite: what a person would see.
import * as fs from 'fs';
import * as path from 'path';
import type { Frame, Page } from 'playwright-core';
import type { SuiteResults } from '../suite/index';
import { FIXTURE } from '../harness/workspace';
import { activeEditorText, closeQuickInput, editorTabTitles, notificationTexts, paletteRows, runCommandFromPalette } from './workbench';
import { analyzeWithProgress } from './progressScenario';

export interface E2eOutcome {
  name: string;
  ok: boolean;
  error?: string;
  screenshot?: string;
  /** File name under media/screenshots/ when this screenshot is good for the README. */
  readmeScreenshot?: string;
  details?: Record<string, unknown>;
}

interface E2eContext {
  workspace: string;
  artifacts: string;
  suite: SuiteResults;
}

async function attempt(
  name: string,
  page: Page,
  ctx: E2eContext,
  body: () => Promise<Record<string, unknown> | void>,
  readmeScreenshot?: string,
): Promise<E2eOutcome> {
  const screenshot = path.join(ctx.artifacts, `${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`);
  try {
    const details = (await body()) ?? undefined;
    await page.screenshot({ path: screenshot });
    return { name, ok: true, screenshot, readmeScreenshot, details };
  } catch (err) {
    await page.screenshot({ path: screenshot }).catch(() => undefined);
    return { name, ok: false, error: err instanceof Error ? err.message : String(err), screenshot };
  }
}

/** Text of every webview frame plus the visible text editors: wherever the report is rendered. */
async function renderedEditorText(page: Page): Promise<string> {
  const parts: string[] = [];
  parts.push(...(await page.locator('.editor-instance .monaco-editor .view-lines').allInnerTexts()));
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    parts.push(await frameText(frame));
  }
  return parts.join('\n').replace(/\u00a0/g, ' ');
}

async function frameText(frame: Frame): Promise<string> {
  try {
    return await frame.evaluate(() => document.body?.innerText ?? '');
  } catch {
    return '';
  }
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function runE2e(page: Page, ctx: E2eContext): Promise<E2eOutcome[]> {
  const out: E2eOutcome[] = [];

  // 1. Errors reach the user: the notification the malformed-file test expects is in the workbench.
  for (const expectation of ctx.suite.uiExpectations?.notifications ?? []) {
    out.push(
      await attempt(`error notification: ${expectation.reason}`, page, ctx, async () => {
        const texts = await waitFor('the notification', 15_000, async () => {
          const all = await notificationTexts(page);
          return all.some((t) => expectation.contains.every((c) => t.includes(c))) ? all : undefined;
        });
        return { notifications: texts };
      }),
    );
    await closeQuickInput(page);
    await page.keyboard.press('Escape');
  }

  // 2. The command palette lists the Phasewise commands.
  out.push(
    await attempt(
      'command palette lists Phasewise: Analyze Run',
      page,
      ctx,
      async () => {
        const rows = await paletteRows(page, 'Phasewise: ');
        if (!rows.some((r) => r.replace(/\s+/g, ' ').includes('Phasewise: Analyze Run'))) {
          throw new Error(`palette rows: ${rows.join(' | ')}`);
        }
        return { rows };
      },
      'command-palette.png',
    ),
  );
  await closeQuickInput(page);

  // 3. The analysis command from the command palette, on the bundled samples, shows the report.
  const samples = path.join(ctx.workspace, FIXTURE.samples);
  const matched = ctx.suite.metrics?.samplesMatched;
  out.push(
    await attempt(
      'Phasewise: Analyze Run from the command palette shows the report',
      page,
      ctx,
      async () => {
        const tabsBefore = (await editorTabTitles(page)).length;
        await runCommandFromPalette(page, 'Phasewise: Analyze Run');
        await answerAnalyzePrompts(page, samples);
        const tabs = await waitFor('a report editor', 90_000, async () => {
          const t = await editorTabTitles(page);
          return t.length > tabsBefore ? t : undefined;
        });
        const text = await waitFor('report text in the editor', 30_000, async () => {
          const s = await renderedEditorText(page);
          return /p95/i.test(s) && (typeof matched !== 'number' || s.includes(String(matched))) ? s : undefined;
        });
        await page.waitForTimeout(500);
        return { tabs, matched, textSample: text.slice(0, 400) };
      },
      'report.png',
    ),
  );
  await closeQuickInput(page);

  // 4. A contract with one mistake, opened through Quick Open: the squiggle in the editor and the
  //    entry in the Problems panel (contracts/e2e.loadcontract.yaml: plateau: 5m on line 11).
  out.push(
    await attempt(
      'a load contract with a mistake shows a squiggle and a Problems entry',
      page,
      ctx,
      async () => {
        const name = path.basename(FIXTURE.e2eContract);
        await openFileByQuickOpen(page, name);
        try {
          await waitFor(`${name} in the active editor`, 20_000, async () => {
            const text = await activeEditorText(page);
            return text.includes('e2e fixture: one mistake') ? text : undefined;
          });
        } catch (err) {
          const tabs = await page.locator('.tabs-container .tab').allInnerTexts().catch(() => [] as string[]);
          throw new Error(`${(err as Error).message}; tabs: ${tabs.join(' | ')}; active editor: ${(await activeEditorText(page)).slice(0, 200)}`);
        }
        const squiggles = await waitFor('a warning squiggle in the editor', 20_000, async () => {
          const n = await page.locator('.editor-group-container.active .monaco-editor .squiggly-warning').count();
          return n > 0 ? n : undefined;
        });
        await page.keyboard.press('Control+Shift+M');
        // The Problems list is virtualised and also holds the suite's contracts: filter it to this file.
        const filter = page.locator('.part.panel input[placeholder^="Filter"]').first();
        await filter.waitFor({ state: 'visible', timeout: 20_000 });
        await filter.fill(`**/${name}`);
        const problems = await waitFor('the Problems panel entry for the contract', 20_000, async () => {
          const panel = await page.locator('.markers-panel').allInnerTexts().catch(() => [] as string[]);
          const text = panel.join('\n');
          // plateau: 5m is on line 11, its value at column 12 (1-based, as the Problems panel counts).
          return text.includes(name) && text.includes('plateau-too-short') && text.includes('Ln 11, Col 12') ? text : undefined;
        });
        const statusProblems = await page.locator('[id="status.problems"]').first().getAttribute('aria-label').catch(() => null);
        await page.waitForTimeout(500);
        return { squiggles, statusProblems, problems: problems.slice(0, 600) };
      },
      'contract-diagnostics.png',
    ),
  );
  await closeQuickInput(page);

  // 5. The contract form through the UI: Open as Form from the palette, a budget typed into the webview,
  //    the sum it shows, the tab marked modified while the file on disk stays as it was, then Revert.
  out.push(
    await attempt(
      'the contract form: a budget typed in the form marks the tab modified, the disk keeps the file until saved, Revert restores it',
      page,
      ctx,
      async () => {
        const name = path.basename(FIXTURE.formContract);
        const onDisk = (): string => fs.readFileSync(path.join(ctx.workspace, FIXTURE.formContract), 'utf8');
        const before = onDisk();
        await openFileByQuickOpen(page, name);
        // The text editor, or the form if the suite left that as the file's last editor.
        await waitFor(`${name} as the active tab`, 20_000, async () => ((await page.locator('.tabs-container .tab.active', { hasText: name }).count()) > 0 ? true : undefined));
        // The palette's click lands in the editor area; with the form already there that is the webview,
        // and F1 from the webview did not always open the palette: open the form only when it is not shown.
        const shown = await formFrame(page);
        const openedBy = shown && (await shown.locator('.cf-title .pw-muted').first().textContent().catch(() => null)) === name ? 'already open' : 'Open as Form';
        if (openedBy === 'Open as Form') await runCommandFromPalette(page, 'Phasewise: Open as Form');
        const form = await waitFor('the form webview', 30_000, async () => formFrame(page));
        const sum = form.locator('[data-testid="budget-sum-0"]');
        await waitFor('the budget sum', 20_000, async () => ((await sum.textContent()) === 'Σ 12,000 ms = the 12,000 ms SLO: no slack' ? true : undefined));
        const typingAttempts = await typeIntoField(page, form, '/budgets/0/phases/gateway', '400ms');
        // 150 + 400 + 1500 + 9500 + 500 = 12050 ms: 50 ms (0.4 %) over the 12 s SLO.
        await waitFor('the new sum', 20_000, async () => ((await sum.textContent()) === 'Σ 12,050 ms: 50.00 ms (0.4 %) over the 12,000 ms SLO' ? true : undefined));
        const dirtyTab = await waitFor('the tab marked modified', 10_000, async () => ((await page.locator('.tabs-container .tab.dirty', { hasText: name }).count()) > 0 ? true : undefined));
        if (onDisk() !== before) throw new Error('the edit reached the disk without a save');
        await page.waitForTimeout(300);
        await page.screenshot({ path: path.join(ctx.artifacts, 'contract-form-edited.png') });
        await runCommandFromPalette(page, 'File: Revert File');
        await waitFor('the reverted sum', 20_000, async () => ((await sum.textContent()) === 'Σ 12,000 ms = the 12,000 ms SLO: no slack' ? true : undefined));
        await waitFor('the tab clean again', 10_000, async () => ((await page.locator('.tabs-container .tab.dirty', { hasText: name }).count()) === 0 ? true : undefined));
        if (onDisk() !== before) throw new Error('revert changed the file on disk');
        return { dirtyTab, openedBy, typingAttempts, sum: await sum.textContent() };
      },
      'contract-form.png',
    ),
  );

  // 6. A large run: the progress notification says which file, how far, how fast and how long.
  out.push(
    await attempt('Analyze Run on a 60 MB run shows bytes read, rate and time left while loading', page, ctx, async () => {
      const screenshot = path.join(ctx.artifacts, 'analyze-run-progress-notification.png');
      const r = await analyzeWithProgress(page, ctx.workspace, waitFor, async () => {
        await page.screenshot({ path: screenshot });
      });
      return { ...r, progressScreenshot: screenshot };
    }),
  );
  return out;
}

/**
 * Types `text` into a form field as a person does (click, select all, type, Enter), first checking that
 * the field holds exactly that text. The click makes the workbench focus the webview, and its focus
 * message (webview pre/index.html: activeFrame.contentWindow.focus()) can arrive while the keys are
 * being typed, at load 15 here hundreds of ms later; the field then gets its select-all back and the
 * next key replaces what was typed (traced key by key: 4 → "4", 0 → "0", …; once `400ms` ended as
 * `s`; with the form already open, on every attempt typed at once after the click). So it waits
 * after the click, longer on each attempt; Escape puts the document's value back between attempts.
 * Returns the attempts it took.
 */
async function typeIntoField(page: Page, form: Frame, pointer: string, text: string): Promise<number> {
  const input = form.locator(`[data-pointer="${pointer}"]`).first();
  const seen: string[] = [];
  for (let attempt = 1; attempt <= 4; attempt++) {
    await input.click();
    await waitFor(`focus in ${pointer}`, 10_000, async () => ((await input.evaluate((e) => e === e.ownerDocument.activeElement)) ? true : undefined));
    // Let the workbench's focus round trip for the click finish before typing (longer on each attempt).
    await page.waitForTimeout(750 * attempt);
    await page.keyboard.press('Control+A');
    await page.keyboard.type(text, { delay: 20 });
    const value = await input.inputValue();
    if (value === text) {
      await page.keyboard.press('Enter');
      return attempt;
    }
    seen.push(value);
    await page.keyboard.press('Escape');
  }
  throw new Error(`typing ${JSON.stringify(text)} into ${pointer} left ${seen.map((v) => JSON.stringify(v)).join(', ')} in the field`);
}

/** The frame that holds the contract form (webviews are nested iframes of the workbench). */
async function formFrame(page: Page): Promise<Frame | undefined> {
  for (const frame of page.frames()) {
    if ((await frame.locator('#phasewise-contract-form[data-version]').count().catch(() => 0)) > 0) return frame;
  }
  return undefined;
}

/** Opens a workspace file the way a person does: Quick Open, type its name, Enter. */
async function openFileByQuickOpen(page: Page, name: string): Promise<void> {
  await closeQuickInput(page);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  await input.fill(name); // replaces the palette's `>`: Quick Open searches files
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: 20_000 });
  await page.keyboard.press('Enter');
}

/**
 * Answers the prompts `Phasewise: Analyze Run…` shows when called without arguments: file prompts get
 * the sample run / spans / contract path, anything else is accepted as proposed.
 */
async function answerAnalyzePrompts(page: Page, samples: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  for (let step = 0; step < 6; step++) {
    const visible = await page
      .locator('.quick-input-widget')
      .waitFor({ state: 'visible', timeout: 5_000 })
      .then(() => true)
      .catch(() => false);
    if (!visible) return;
    // The prompt's title and placeholder say what it asks for; the input value (a folder path, which may
    // be contracts/ when a contract was the last editor) only when both are empty.
    let title = `${await page.locator('.quick-input-widget .quick-input-title').innerText().catch(() => '')} ${(await input.getAttribute('placeholder').catch(() => '')) ?? ''}`;
    if (title.trim() === '') title = await input.inputValue().catch(() => '');
    let answer: string | undefined;
    if (/span|trace|otlp|jaeger|zipkin/i.test(title)) answer = path.join(samples, 'spans.otlp.jsonl');
    else if (/contract/i.test(title)) answer = path.join(samples, 'steady.loadcontract.yaml');
    else if (/run|k6|load|result/i.test(title)) answer = path.join(samples, 'k6.ndjson');
    if (answer !== undefined) await input.fill(answer);
    await page.waitForTimeout(400);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(800);
  }
}
