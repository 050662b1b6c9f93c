// End-to-end checks through the workbench UI, run after the integration suite: what a person would see.
import * as fs from 'fs';
import * as path from 'path';
import type { Frame, Page } from 'playwright-core';
import type { SuiteResults } from '../suite/index';
import { FIXTURE } from '../harness/workspace';
import { acceptQuickPick, activeEditorText, checkRow, closeQuickInput, notificationTexts, openPalette, paletteRows, pickFromQuickInput, pickInFileDialog, quickRows, runCommandFromPalette, until } from './workbench';
import { openWithProgress } from './progressScenario';
import { restoreAfterReload } from './restoreScenario';

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
/** The text of each webview frame (the report, the waterfalls: whichever are visible). */
async function webviewText(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    const t = (await frameText(frame)).replace(/\u00a0/g, ' ');
    if (t.trim() !== '') out.push(t);
  }
  return out;
}

async function frameText(frame: Frame): Promise<string> {
  try {
    return await frame.evaluate(() => document.body?.innerText ?? '');
  } catch {
    return '';
  }
}

const waitFor = until;

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
        const rows = await paletteRows(page, 'Phasewise: ', (labels) => labels.some((r) => r.includes('Phasewise: Analyze Run')));
        return { rows };
      },
      'command-palette.png',
    ),
  );
  await closeQuickInput(page);

  // The contract scenarios run before the run's panels and views exist: after them the focus sits in a
  // webview (report, waterfall, a restored panel), where the form's typing and the palette misbehaved.
  // 3a. A contract with one mistake, opened through Quick Open: the squiggle in the editor and the
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
        return { squiggles, statusProblems, problems: problems.slice(0, 600) };
      },
      'contract-diagnostics.png',
    ),
  );
  await closeQuickInput(page);

  // 3b. The contract form through the UI: Open as Form from the palette, a budget typed into the webview,
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
        const shown = await formFrame(page, name);
        const openedBy = shown !== undefined ? 'already open' : 'Open as Form';
        if (openedBy === 'Open as Form') await runCommandFromPalette(page, 'Phasewise: Open as Form', { effect: async () => (await formFrame(page, name)) !== undefined });
        // The form's frame, found again each time: the workbench can replace a webview's frame (it was
        // detached under the typing once, after the form had been found).
        const form = (): Promise<Frame> => waitFor(`the form webview of ${name}`, 30_000, async () => formFrame(page, name));
        const sumText = async (): Promise<string | null> => (await form()).locator('[data-testid="budget-sum-0"]').textContent().catch(() => null);
        await waitFor('the budget sum', 20_000, async () => ((await sumText()) === 'Σ 12,000 ms = the 12,000 ms SLO: no slack' ? true : undefined));
        let typingAttempts: number;
        let frameReplaced = false;
        try {
          typingAttempts = await typeIntoField(page, await form(), '/budgets/0/phases/gateway', '400ms');
        } catch (err) {
          if (!/detached/i.test(String(err))) throw err;
          frameReplaced = true;
          typingAttempts = await typeIntoField(page, await form(), '/budgets/0/phases/gateway', '400ms');
        }
        // 150 + 400 + 1500 + 9500 + 500 = 12050 ms: 50 ms (0.4 %) over the 12 s SLO.
        await waitFor('the new sum', 20_000, async () => ((await sumText()) === 'Σ 12,050 ms: 50.00 ms (0.4 %) over the 12,000 ms SLO' ? true : undefined));
        const dirtyTab = await waitFor('the tab marked modified', 10_000, async () => ((await page.locator('.tabs-container .tab.dirty', { hasText: name }).count()) > 0 ? true : undefined));
        if (onDisk() !== before) throw new Error('the edit reached the disk without a save');
        await page.screenshot({ path: path.join(ctx.artifacts, 'contract-form-edited.png') });
        await runCommandFromPalette(page, 'File: Revert File');
        await waitFor('the reverted sum', 20_000, async () => ((await sumText()) === 'Σ 12,000 ms = the 12,000 ms SLO: no slack' ? true : undefined));
        await waitFor('the tab clean again', 10_000, async () => ((await page.locator('.tabs-container .tab.dirty', { hasText: name }).count()) === 0 ? true : undefined));
        if (onDisk() !== before) throw new Error('revert changed the file on disk');
        return { dirtyTab, openedBy, typingAttempts, frameReplaced, sum: await sumText() };
      },
      'contract-form.png',
    ),
  );

  // 3. Open Run… from the command palette on the samples folder (its files are sniffed; the checklist
  //    says what was recognised), then the report webview shows the run.
  const samples = path.join(ctx.workspace, FIXTURE.samples);
  const matched = ctx.suite.metrics?.samplesMatched;
  out.push(
    await attempt(
      'Phasewise: Open Run on the samples folder shows the report',
      page,
      ctx,
      async () => {
        // A clean editor area (the suite left its panels and editors open, the Problems panel too), as a
        // user would start; the README's screenshots come from here on.
        await closeAllEditors(page);
        const panel = page.locator('.part.panel').first();
        if (await panel.isVisible()) await runCommandFromPalette(page, 'View: Toggle Panel Visibility', { effect: async () => !(await panel.isVisible()) });
        await runCommandFromPalette(page, 'Phasewise: Open Run');
        await pickInFileDialog(page, samples);
        const checklist = await waitFor('the checklist of recognised files', 30_000, async () => {
          const rows = await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').allInnerTexts().catch(() => [] as string[]);
          return rows.some((r) => r.includes('k6.ndjson')) && rows.some((r) => r.includes('spans.otlp.jsonl')) ? rows : undefined;
        });
        // The folder has three contracts: none is checked; the run claims the steady one.
        await checkRow(page, 'steady.loadcontract.yaml');
        await acceptQuickPick(page, (rows) => rows.some((r) => r.checked && r.text.includes('steady.loadcontract.yaml')));
        const text = await waitFor('the report in its webview', 120_000, async () => {
          const t = await webviewText(page);
          return t.find((x) => /\bPASS\b/.test(x) && x.includes('p95') && (typeof matched !== 'number' || x.includes(matched.toLocaleString('en-US'))));
        });
        return { checklist: checklist.map((r) => r.replace(/\s+/g, ' ').slice(0, 80)), textSample: text.slice(0, 400) };
      },
      'report.png',
    ),
  );
  await closeQuickInput(page);

  // 4. The Phasewise views: the run in the Runs view, a slow trace selected in Slow Traces, and what
  //    the waterfall frame shows for it (its ID, the reconciliation lines, the spans).
  let openedTrace: string | undefined;
  out.push(
    await attempt(
      'Runs and Slow Traces views: selecting a slow trace opens its waterfall',
      page,
      ctx,
      async () => {
        await setColorTheme(page, 'Dark Modern');
        await waitFor('the dark theme', 20_000, async () => ((await workbenchTheme(page)) === 'vs-dark' ? true : undefined));
        await showPhasewiseViews(page);
        await waitFor('the run in the Runs view', 30_000, async () => ((await paneRows(page, 'Runs')).some((r) => r.includes('k6.ndjson + spans.otlp.jsonl')) ? true : undefined));
        // Expanded: its files, join coverage, each owner against its budget, its gates.
        await selectTreeRow(page, 'Runs', 'k6.ndjson + spans.otlp.jsonl', { expand: true });
        const runRows = await waitFor('the run expanded', 20_000, async () => {
          const rows = await paneRows(page, 'Runs');
          return rows.some((r) => r.includes('join coverage')) && rows.some((r) => /gpu queue p95/.test(r)) ? rows : undefined;
        });
        const traceRows = await waitFor('the slow traces', 30_000, async () => {
          const rows = await paneRows(page, 'Slow Traces');
          return rows.length > 0 && rows.every((r) => /total/.test(r)) ? rows : undefined;
        });
        const shown = await clickUntil(paneRow(page, 'Slow Traces', 0), 'the waterfall frame', 60_000, async () => (await webviewText(page)).find((t) => t.includes('phasewise reconcile') && /Trace [0-9a-f]{32}/.test(t)));
        openedTrace = /Trace ([0-9a-f]{32})/.exec(shown)?.[1];
        if (openedTrace === undefined || !traceRows[0].includes(openedTrace.slice(0, 8))) throw new Error(`the waterfall shows ${openedTrace ?? 'no trace'}, the first slow trace row is ${traceRows[0]}`);
        for (const want of [`trace_id=${openedTrace}`, 'k6_total_ms=', 'network_envelope_ms=', 'inference.generate']) {
          if (!shown.includes(want)) throw new Error(`the waterfall frame lacks ${want}`);
        }
        await waitFor('the webviews in the dark theme', 20_000, async () => ((await webviewThemes(page)).every((c) => c === 'vscode-dark') ? true : undefined));
        return { runRows, traceRows, trace: openedTrace };
      },
      'workbench-dark.png',
    ),
  );

  // 5. The same workbench in a light theme (the views and the webviews follow it).
  out.push(
    await attempt(
      'the workbench with the views and the waterfall in a light theme',
      page,
      ctx,
      async () => {
        await setColorTheme(page, 'Light Modern');
        const theme = await waitFor('the light theme', 20_000, async () => ((await workbenchTheme(page)) === 'vs' ? 'vs' : undefined));
        // The class changes before the theme's colours are applied: wait until the side bar is painted light.
        const sideBar = await waitFor('the side bar painted light', 20_000, async () => {
          const background = await page.locator('.part.sidebar').first().evaluate((e) => getComputedStyle(e).backgroundColor);
          return luminance(background) > 0.6 ? background : undefined;
        });
        // The webviews redraw with the theme's colours (body class and --vscode-* variables).
        const webviews = await waitFor('the webviews in the light theme', 20_000, async () => {
          const themes = await webviewThemes(page);
          return themes.length > 0 && themes.every((c) => c === 'vscode-light') ? themes : undefined;
        });
        return { theme, sideBar, webviews };
      },
      // Not a docs picture: headless Chromium's capture still shows the dark workbench chrome here,
      // although the side bar's computed background is the light theme's (the webviews are light).
    ),
  );
  await setColorTheme(page, 'Dark Modern').catch(() => undefined);

  // 6. The probe's waterfall the suite opened, with the propagation check on top.
  const probeTrace = ctx.suite.metrics?.probeTraceId;
  const probeRun = ctx.suite.metrics?.probeRunLabel;
  if (typeof probeTrace === 'string' && typeof probeRun === 'string') {
    out.push(
      await attempt(
        "a probe's waterfall shows the propagation check on top",
        page,
        ctx,
        async () => {
          // The probe is a run of the Runs view: its one trace is its slow trace.
          await showPhasewiseViews(page);
          await selectTreeRow(page, 'Runs', probeRun);
          await waitFor("the probe's trace in Slow Traces", 20_000, async () => ((await paneRows(page, 'Slow Traces')).some((r) => r.includes(probeTrace.slice(0, 8))) ? true : undefined));
          const row = pane(page, 'Slow Traces').locator('.monaco-list-row', { hasText: probeTrace.slice(0, 8) }).first();
          const text = await clickUntil(row, 'the probe banner', 30_000, async () => (await webviewText(page)).find((t) => t.includes('Propagation OK') && t.includes(probeTrace)));
          return { banner: text.slice(0, 300) };
        },
        'probe-waterfall.png',
      ),
    );
  }

  // 7. A reload of the window: the waterfall panel comes back through its serializer with its trace.
  if (openedTrace !== undefined) {
    const trace = openedTrace;
    out.push(
      await attempt('after a reload the waterfall panel is restored with its trace', page, ctx, async () => {
        await page.reload();
        await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
        await page.locator('.tabs-container .tab', { hasText: `Trace ${trace.slice(0, 8)}` }).first().click({ timeout: 60_000 });
        const text = await waitFor('the restored waterfall', 90_000, async () => (await webviewText(page)).find((t) => t.includes(`Trace ${trace}`) && t.includes('phasewise reconcile')));
        return { restored: text.slice(0, 200) };
      }),
    );
  }

  // 7b. Compare Runs… and Query Run… through the UI (a slow query cancelled with Escape), a reload, and
  //     both panels restored with the figures of phasewise compare and phasewise sql.
  out.push(
    await attempt('Query Run… cancels a slow query; after a reload the compare and query panels are restored with the CLI\'s figures', page, ctx, async () => {
      await showPhasewiseViews(page);
      await selectTreeRow(page, 'Runs', 'k6.ndjson + spans.otlp.jsonl');
      return restoreAfterReload(
        page,
        ctx.workspace,
        ctx.artifacts,
        waitFor,
        (name) => page.screenshot({ path: path.join(ctx.artifacts, `${name}.png`) }).then(() => undefined),
      );
    }),
  );

  // 8. A large run: the progress notification says which file, how far, how fast and how long.
  out.push(
    await attempt('Open Run on a 60 MB run shows bytes read, rate and time left while loading', page, ctx, async () => {
      const screenshot = path.join(ctx.artifacts, 'open-run-progress-notification.png');
      const r = await openWithProgress(page, ctx.workspace, waitFor, async () => {
        await page.screenshot({ path: screenshot });
      });
      return { ...r, progressScreenshot: screenshot };
    }),
  );
  return out;
}

/**
 * Types `text` into a form field as a person does (select its text, type, Enter), checking that the field
 * holds exactly that text before Enter; returns the attempts it took. The text is selected with three
 * clicks, not Ctrl+A: a webview forwards every key to the workbench, which answers Ctrl+A with its own
 * Select All, sent back to the webview as a message that lands a moment later and selected what had been
 * typed by then (traced in the form's document: no focus change, and `400ms` typed at once after Ctrl+A
 * left `0ms`, then `00ms`).
 */
async function typeIntoField(page: Page, form: Frame, pointer: string, text: string): Promise<number> {
  const input = form.locator(`[data-pointer="${pointer}"]`).first();
  const seen: string[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    await input.click({ clickCount: 3 });
    await waitFor(`the text of ${pointer} selected`, 10_000, async () => {
      const selected = await input.evaluate((host) => {
        // @vscode-elements fields keep their <input> in a shadow root.
        const field = (host.shadowRoot?.querySelector('input') ?? host) as HTMLInputElement;
        return host.ownerDocument.activeElement === host && field.selectionStart === 0 && field.selectionEnd === field.value.length;
      });
      return selected ? true : undefined;
    });
    await page.keyboard.type(text, { delay: 20 });
    const value = await input.inputValue();
    if (value === text) {
      await page.keyboard.press('Enter');
      return attempt;
    }
    seen.push(value);
  }
  throw new Error(`typing ${JSON.stringify(text)} into ${pointer} left ${seen.map((v) => JSON.stringify(v)).join(', ')} in the field`);
}

/**
 * The frame that holds the contract form of `name` (webviews are nested iframes of the workbench). By
 * its file name: the suite can leave another contract's form open, and the first form frame found was
 * then that one (the budget sum never matched and the scenario timed out).
 */
async function formFrame(page: Page, name: string): Promise<Frame | undefined> {
  for (const frame of page.frames()) {
    if ((await frame.locator('#phasewise-contract-form[data-version]').count().catch(() => 0)) === 0) continue;
    // The title shows the document's file name (a path or a base name): compared by base name.
    const shown = (await frame.locator('.cf-title .pw-muted').first().textContent().catch(() => null))?.trim();
    if (shown !== undefined && shown !== '' && path.basename(shown) === name) return frame;
  }
  return undefined;
}

/** Closes every editor group; what is unsaved (the suite's generated k6 scripts, a form's edit) is not kept. */
async function closeAllEditors(page: Page): Promise<void> {
  await runCommandFromPalette(page, 'View: Close All Editor Groups');
  const dontSave = page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" }).first();
  // One dialog per unsaved editor, or one for all of them: answered until no tab is left.
  await waitFor('every editor closed', 30_000, async () => {
    if (await dontSave.isVisible().catch(() => false)) await dontSave.click({ timeout: 2_000 }).catch(() => undefined);
    return (await page.locator('.tabs-container .tab').count()) === 0 && !(await dontSave.isVisible().catch(() => false)) ? true : undefined;
  });
}

/** Opens a workspace file the way a person does: Quick Open, type its name, Enter on its row. */
async function openFileByQuickOpen(page: Page, name: string): Promise<void> {
  // Again when the quick input closed under the typing: panels restored by a reload can take the focus
  // while they render, and the quick input closes on blur.
  for (let attempt = 1; attempt <= 3; attempt++) {
    await openPalette(page, 20_000);
    // The name replaces the palette's `>`: Quick Open searches files.
    if (await pickFromQuickInput(page, name, (label) => label === name)) return;
  }
  throw new Error(`Quick Open did not list ${name}: ${(await quickRows(page)).map((r) => r.label).join(' | ')}`);
}

/** Opens the Phasewise container of the activity bar. */
async function showPhasewiseViews(page: Page): Promise<void> {
  const slowTraces = page.locator('.pane-header', { hasText: 'Slow Traces' }).first();
  await runCommandFromPalette(page, 'Phasewise: Focus on Runs View', { effect: () => slowTraces.isVisible() });
}

/**
 * Selects the row of a view's tree whose text includes `text` (expanded too when `expand`): clicked until
 * the tree shows it selected (and expanded), since a click can land while the view re-renders the row.
 */
async function selectTreeRow(page: Page, title: string, text: string, options: { expand?: boolean } = {}): Promise<void> {
  const row = pane(page, title).locator('.monaco-list-row', { hasText: text }).first();
  await waitFor(`the row ${text} of ${title} selected`, 30_000, async () => {
    const selected = (await row.getAttribute('aria-selected', { timeout: 2_000 })) === 'true';
    const expanded = (await row.getAttribute('aria-expanded', { timeout: 2_000 })) === 'true';
    if (selected && (!options.expand || expanded)) return true;
    // A click on a collapsed row selects and expands it; on an expanded one it would collapse it.
    if (!selected || !expanded) await row.click({ timeout: 2_000 });
    else await row.press('ArrowRight', { timeout: 2_000 });
    await waitFor('the row to change', 2_000, async () => ((await row.getAttribute('aria-selected')) === 'true' ? true : undefined)).catch(() => undefined);
    return undefined;
  });
}

/** Clicks `target` until `probe` sees what the click opens (a click can land on a row being re-rendered). */
async function clickUntil<T>(target: ReturnType<Page['locator']>, what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    await target.click({ timeout: 10_000 });
    const left = deadline - Date.now();
    const seen = await waitFor(what, Math.max(1_000, attempt < 3 ? Math.min(left, timeoutMs / 3) : left), probe).catch((err: unknown) => {
      if (attempt >= 3 || Date.now() >= deadline) throw err;
      return undefined;
    });
    if (seen !== undefined) return seen;
  }
}

/** The theme class of each Phasewise webview's body (`vscode-dark`, `vscode-light`, …). */
async function webviewThemes(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    const cls = await frame.evaluate(() => (document.querySelector('[id^="phasewise-"]') !== null ? document.body.className : null)).catch(() => null);
    if (cls === null) continue;
    out.push(cls.split(/\s+/).find((c) => /^vscode-(light|dark|high-contrast)/.test(c)) ?? cls);
  }
  return out;
}

/** A view's pane in the side bar, by its exact title. */
function pane(page: Page, title: string): ReturnType<Page['locator']> {
  return page.locator('.pane', { has: page.locator('.pane-header .title', { hasText: new RegExp(`^${title}$`, 'i') }) }).first();
}

async function paneRows(page: Page, title: string): Promise<string[]> {
  return (await pane(page, title).locator('.monaco-list-row').allInnerTexts().catch(() => [] as string[])).map((r) => r.replace(/\s+/g, ' ').trim());
}

function paneRow(page: Page, title: string, index: number): ReturnType<Page['locator']> {
  return pane(page, title).locator('.monaco-list-row').nth(index);
}

/** Preferences: Color Theme, then the theme by name (Enter on its row once the filter focused it). */
async function setColorTheme(page: Page, name: string): Promise<void> {
  await runCommandFromPalette(page, 'Preferences: Color Theme');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  if (!(await pickFromQuickInput(page, name, (label) => label === name))) throw new Error(`the theme picker did not focus ${name}: ${(await quickRows(page)).map((r) => r.label).join(' | ')}`);
}

/** The workbench's theme kind, from its class list (`vs`, `vs-dark`, `hc-black`, `hc-light`). */
/** Relative luminance (0 black … 1 white) of a CSS `rgb()`/`rgba()` colour; 0 when it is not one. */
function luminance(css: string): number {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(css);
  if (m === null) return 0;
  const [r, g, b] = [m[1], m[2], m[3]].map((v) => Number(v) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

async function workbenchTheme(page: Page): Promise<string> {
  const classes = ((await page.locator('.monaco-workbench').first().getAttribute('class')) ?? '').split(/\s+/);
  return classes.find((c) => ['vs', 'vs-dark', 'hc-black', 'hc-light'].includes(c)) ?? 'unknown';
}
