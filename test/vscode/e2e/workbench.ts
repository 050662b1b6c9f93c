// Playwright helpers that drive the VS Code web workbench the way a person does: keyboard, command
// palette, quick input, notification centre. Selectors are the workbench's stable CSS classes. Every
// helper waits for what the workbench shows (an input's value, the focused row, a busy bar gone), never
// for a fixed time: on a loaded machine any fixed pause is too short some day.
import * as fs from 'fs';
import type { Locator, Page } from 'playwright-core';

const QUICK_INPUT = '.quick-input-widget';
const QUICK_INPUT_BOX = `${QUICK_INPUT} .quick-input-box input`;
const QUICK_ROWS = `${QUICK_INPUT} .quick-input-list .monaco-list-row`;

export async function waitForWorkbench(page: Page, timeoutMs: number): Promise<void> {
  await page.waitForSelector('.monaco-workbench', { timeout: timeoutMs });
  // The explorer lists the folder once the remote file system is connected.
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: timeoutMs });
}

/** Polls `probe` every 100 ms until it gives a value; `what` names the state in the timeout's error. */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function quickInputBox(page: Page): Locator {
  return page.locator(QUICK_INPUT_BOX).first();
}

async function quickInputVisible(page: Page): Promise<boolean> {
  return await page.locator(QUICK_INPUT).isVisible();
}

/** The quick input's text, or undefined while it is hidden. */
async function quickInputValue(page: Page): Promise<string | undefined> {
  const box = quickInputBox(page);
  if (!(await box.isVisible().catch(() => false))) return undefined;
  return await box.inputValue({ timeout: 1_000 }).catch(() => undefined);
}

/** Whether the quick input's box has the keyboard (a click elsewhere, or a webview taking focus, closes it). */
async function quickInputFocused(page: Page): Promise<boolean> {
  return await quickInputBox(page).evaluate((e) => e === e.ownerDocument.activeElement).catch(() => false);
}

/** Whether the quick input is busy (the simple file dialog lists a folder, a pick list loads). */
async function quickInputBusy(page: Page): Promise<boolean> {
  return (await page.locator(`${QUICK_INPUT} .quick-input-progress.active`).count().catch(() => 0)) > 0;
}

/** The rows the quick input lists: label (whitespace folded), whether focused, whether checked. */
export async function quickRows(page: Page): Promise<Array<{ label: string; text: string; focused: boolean; checked: boolean }>> {
  return await page.locator(QUICK_ROWS).evaluateAll((rows) =>
    rows.map((r) => {
      const label = r.querySelector('.label-name')?.textContent ?? '';
      const box = r.querySelector('.quick-input-list-checkbox');
      const checked = r.getAttribute('aria-checked') === 'true' || (box !== null && (box.classList.contains('checked') || box.getAttribute('aria-checked') === 'true' || (box as HTMLInputElement).checked === true));
      return { label: label.replace(/\s+/g, ' ').trim(), text: (r.textContent ?? '').replace(/\s+/g, ' ').trim(), focused: r.classList.contains('focused'), checked };
    }),
  ).catch(() => []);
}

/**
 * Opens the command palette: F1 where the focus is, and when that shows nothing (a webview can keep F1
 * to itself), F1 again after a click on the status bar, which holds no webview. Never a click in the
 * editor area: that focuses the webview there, and the workbench hands a webview its focus back a moment
 * after a quick input closes, which closed the next quick input of a two-step command (Compare Runs).
 */
export async function openPalette(page: Page, timeoutMs: number): Promise<void> {
  await closeQuickInput(page);
  const box = quickInputBox(page);
  await page.keyboard.press('F1');
  if (await box.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)) return;
  await page.locator('.part.statusbar').click({ position: { x: 700, y: 10 }, force: true }).catch(() => undefined);
  await page.keyboard.press('F1');
  await box.waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * Puts `text` into the open quick input and waits until the box holds it and has the keyboard (true), or
 * the quick input closed under it (false: a panel took the focus, and the quick input closes on blur).
 * Filled again whenever the box holds something else: the simple file dialog puts its default folder
 * into the box when it finishes listing it, which on a loaded machine came after the fill.
 */
async function fillQuickInput(page: Page, text: string, timeoutMs: number): Promise<boolean> {
  const box = quickInputBox(page);
  return await until(`the quick input to hold ${JSON.stringify(text)}`, timeoutMs, async () => {
    const value = await quickInputValue(page);
    if (value === undefined) return false;
    if (value !== text) {
      await box.fill(text, { timeout: 2_000 }).catch(() => undefined);
      return undefined;
    }
    if (await quickInputFocused(page)) return true;
    await box.focus({ timeout: 2_000 }).catch(() => undefined);
    return undefined;
  }).catch(() => false);
}

/** The palette's label of a command: the title, or the title with the ellipsis of a command that asks more. */
function isCommandLabel(label: string, title: string): boolean {
  return label === title || label === `${title}…`;
}

/**
 * One step towards the quick input's focus on the row whose label `matches` takes: true once it is the
 * focused row, undefined while the list still filters (or after an arrow key moved the focus a row),
 * false when the quick input closed.
 */
async function focusRowStep(page: Page, matches: (label: string) => boolean): Promise<boolean | undefined> {
  if (!(await quickInputVisible(page))) return false;
  if (await quickInputBusy(page)) return undefined;
  const rows = await quickRows(page);
  const target = rows.findIndex((r) => matches(r.label));
  const focused = rows.findIndex((r) => r.focused);
  if (target < 0 || focused < 0) return undefined;
  if (target === focused) return true;
  await page.keyboard.press(target > focused ? 'ArrowDown' : 'ArrowUp');
  return undefined;
}

/** Waits until the quick input's focused row is the one `matches` takes (false if the quick input closed or never listed it). */
export async function focusQuickRow(page: Page, what: string, matches: (label: string) => boolean, timeoutMs = 20_000): Promise<boolean> {
  const ok = await until(`the row ${what} focused`, timeoutMs, async () => {
    const step = await focusRowStep(page, matches);
    return step === undefined ? undefined : step;
  }).catch(() => false);
  return ok && (await quickInputFocused(page));
}

/**
 * In the open quick input: puts `value` in the box, waits until the row `label` is the focused row and
 * presses Enter on it. False when the quick input closed or never focused that row (the caller retries).
 */
export async function pickFromQuickInput(page: Page, value: string, matches: (label: string) => boolean, timeoutMs = 20_000): Promise<boolean> {
  if (!(await fillQuickInput(page, value, timeoutMs))) return false;
  if (!(await focusQuickRow(page, JSON.stringify(value), matches, timeoutMs))) return false;
  await page.keyboard.press('Enter');
  return true;
}

/**
 * Runs a command from the palette: opens it, puts `>title` in the box, waits until the row labelled
 * `title` is the focused row, then presses Enter on it (a click can hit a row the list re-renders
 * under the pointer). The whole sequence is tried again when the palette closed before Enter, when it
 * still shows the command after Enter, or when `effect` (the state the command brings about) is not
 * observed.
 */
export async function runCommandFromPalette(page: Page, title: string, options: { timeoutMs?: number; effect?: () => Promise<boolean> } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const seen: string[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    await openPalette(page, timeoutMs);
    if (!(await fillQuickInput(page, `>${title}`, timeoutMs))) {
      seen.push('the palette closed while the command was typed');
      continue;
    }
    if (!(await focusQuickRow(page, title, (label) => isCommandLabel(label, title), timeoutMs))) {
      seen.push(`no focused row "${title}": ${(await quickRows(page)).map((r) => r.label).join(' | ')}`);
      continue;
    }
    await page.keyboard.press('Enter');
    // Accepted: the palette closed, or the command's own quick input replaced it.
    const accepted = await until('the palette to take the command', timeoutMs, async () => ((await quickInputValue(page)) !== `>${title}` ? true : undefined)).catch(() => false);
    if (!accepted) {
      seen.push('the palette still showed the command after Enter');
      continue;
    }
    if (options.effect === undefined) return;
    if (await until(`the effect of ${title}`, timeoutMs, async () => ((await options.effect?.()) ? true : undefined)).catch(() => false)) return;
    seen.push(`${title} ran without its effect`);
  }
  throw new Error(`could not run "${title}" from the palette: ${seen.join('; ')}`);
}

/** Opens the command palette, types `text` and returns the labels of its rows once `accept` takes them (palette left open). */
export async function paletteRows(page: Page, text: string, accept: (rows: string[]) => boolean, timeoutMs = 20_000): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    await openPalette(page, timeoutMs);
    if (await fillQuickInput(page, `>${text}`, timeoutMs)) {
      const rows = await until(`palette rows for ${JSON.stringify(text)}`, timeoutMs, async () => {
        const labels = (await quickRows(page)).map((r) => r.label);
        return accept(labels) ? labels : undefined;
      }).catch(() => undefined);
      if (rows !== undefined) return rows;
    }
    if (attempt >= 2) throw new Error(`the palette for ${JSON.stringify(text)} lists ${(await quickRows(page)).map((r) => r.label).join(' | ')}`);
  }
}

/**
 * Answers the current quick input (a file prompt, a pick list) with `text`: Enter once the box holds it
 * and the quick input is done reacting to it (its busy bar gone).
 */
export async function answerQuickInput(page: Page, text: string, timeoutMs = 20_000): Promise<void> {
  await quickInputBox(page).waitFor({ state: 'visible', timeout: timeoutMs });
  // Settled: not busy, and still holding the text once it is not (a dialog's late default is filled over).
  await until(`the quick input settled on ${text}`, timeoutMs, async () => {
    if (!(await fillQuickInput(page, text, timeoutMs))) throw new Error(`the quick input closed before it took ${text}`);
    return !(await quickInputBusy(page)) && (await quickInputValue(page)) === text ? true : undefined;
  });
  await page.keyboard.press('Enter');
}

export async function closeQuickInput(page: Page): Promise<void> {
  if (!(await quickInputVisible(page))) return;
  await page.keyboard.press('Escape');
  await page.locator(QUICK_INPUT).waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
}

/** Text of every notification, from the notification centre (toasts may already have faded). */
export async function notificationTexts(page: Page): Promise<string[]> {
  const center = page.locator('.notifications-center').first();
  await runCommandFromPalette(page, 'Notifications: Show Notifications', { effect: () => center.isVisible() });
  return await page.locator('.notifications-center .notification-list-item-message').allInnerTexts();
}

/** Titles of the open editor tabs. */
export async function editorTabTitles(page: Page): Promise<string[]> {
  return await page.locator('.tabs-container .tab .label-name').allInnerTexts();
}

/** Text rendered in the active text editor (visible lines only: Monaco virtualises). */
export async function activeEditorText(page: Page): Promise<string> {
  const lines = page.locator('.editor-group-container.active .monaco-editor .view-lines');
  if ((await lines.count()) === 0) return '';
  return (await lines.first().innerText()).replace(/\u00a0/g, ' ');
}

/**
 * Picks a folder in the workbench's own file dialog (the web workbench has no native one): its path
 * with a trailing slash makes the dialog list the folder, then the dialog's OK button (the command's open
 * label) takes it. On a busy machine the dialog can put its default folder (the last one used) into the
 * box after the fill: the box is filled again until it holds the folder and lists the folder's entries.
 */
export async function pickInFileDialog(page: Page, folder: string, timeoutMs = 30_000): Promise<void> {
  const box = quickInputBox(page);
  await box.waitFor({ state: 'visible', timeout: timeoutMs });
  const want = `${folder}/`;
  const entries = new Set(fs.readdirSync(folder));
  await until(`the file dialog listing ${want}`, timeoutMs, async () => {
    const value = await quickInputValue(page);
    if (value !== want) {
      await box.fill(want).catch(() => undefined);
      return undefined;
    }
    if (await quickInputBusy(page)) return undefined;
    const rows = await quickRows(page);
    return rows.some((r) => entries.has(r.label.replace(/\/$/, ''))) ? true : undefined;
  });
  const ok = page.locator(`${QUICK_INPUT} .monaco-button`, { hasText: 'Open Run' }).first();
  if (await ok.isVisible().catch(() => false)) await ok.click();
  else await page.keyboard.press('Enter');
}

/** Clicks the quick pick's row whose text includes `text` until it shows as checked (multi-select lists). */
export async function checkRow(page: Page, text: string, timeoutMs = 20_000): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const index = await until(`the row ${text}`, timeoutMs, async () => {
      if (await quickInputBusy(page)) return undefined;
      const i = (await quickRows(page)).findIndex((r) => r.text.includes(text));
      return i >= 0 ? i : undefined;
    });
    if ((await quickRows(page))[index]?.checked) return;
    await page.locator(QUICK_ROWS).nth(index).click({ timeout: timeoutMs });
    if (await until(`the row ${text} checked`, 5_000, async () => ((await quickRows(page))[index]?.checked ? true : undefined)).catch(() => false)) return;
  }
  throw new Error(`the row ${text} does not show as checked: ${JSON.stringify(await quickRows(page))}`);
}

/** Presses Enter in the current quick pick once `ready` takes its rows, with the keyboard in its box. */
export async function acceptQuickPick(page: Page, ready: (rows: Awaited<ReturnType<typeof quickRows>>) => boolean, timeoutMs = 20_000): Promise<void> {
  await until('the quick pick ready', timeoutMs, async () => {
    if (await quickInputBusy(page)) return undefined;
    return ready(await quickRows(page)) ? true : undefined;
  });
  if (!(await quickInputFocused(page))) await quickInputBox(page).focus();
  await page.keyboard.press('Enter');
}
