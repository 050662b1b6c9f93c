// Playwright helpers that drive the VS Code web workbench the way a person does: keyboard, command
// palette, quick input, notification centre. Selectors are the workbench's stable CSS classes.
import type { Page } from 'playwright-core';

export async function waitForWorkbench(page: Page, timeoutMs: number): Promise<void> {
  await page.waitForSelector('.monaco-workbench', { timeout: timeoutMs });
  // The explorer lists the folder once the remote file system is connected.
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: timeoutMs });
}

async function quickInputVisible(page: Page): Promise<boolean> {
  return await page.locator('.quick-input-widget').isVisible();
}

/**
 * Opens the command palette. The click that takes the focus back to the workbench may land in a webview
 * (its iframe keeps F1 to itself until it forwards it): the status bar, which holds no webview, is tried
 * when the first F1 shows nothing.
 */
export async function openPalette(page: Page, timeoutMs: number): Promise<void> {
  await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 }, force: true }).catch(() => undefined);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  if (await input.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)) return;
  await page.locator('.part.statusbar').click({ position: { x: 700, y: 10 }, force: true }).catch(() => undefined);
  await page.keyboard.press('F1');
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
}

/** Opens the command palette, types `text` and returns the labels of the rows it lists (palette left open). */
export async function paletteRows(page: Page, text: string, timeoutMs = 20_000): Promise<string[]> {
  // As runCommandFromPalette: the focus may be in a webview (the waterfall, after the notification
  // centre closed), which kept a bare F1 to itself.
  await openPalette(page, timeoutMs);
  await page.keyboard.type(text, { delay: 5 });
  await page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first().waitFor({ state: 'visible', timeout: timeoutMs });
  await page.waitForTimeout(300);
  return await page.locator('.quick-input-list .monaco-list-row .label-name').allInnerTexts();
}

/** Opens the command palette, types `title` and runs the row whose label is exactly `title`. */
export async function runCommandFromPalette(page: Page, title: string, timeoutMs = 20_000): Promise<void> {
  // Once more when the palette closed under the typing (its list left in the DOM, hidden): a panel the
  // suite left rendering can take the focus on a loaded machine, and the quick input closes on blur.
  for (let attempt = 1; ; attempt++) {
    await openPalette(page, timeoutMs);
    await page.keyboard.type(title, { delay: 5 });
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    const shown = await row.waitFor({ state: 'visible', timeout: attempt === 1 ? timeoutMs / 2 : timeoutMs }).then(() => true, (err: unknown) => {
      if (attempt > 1) throw err;
      return false;
    });
    if (shown) {
      await row.click();
      return;
    }
    await closeQuickInput(page);
  }
}

/** Answers the current quick input (file prompt, pick list) by typing `text` and pressing Enter. */
export async function answerQuickInput(page: Page, text: string, timeoutMs = 20_000): Promise<void> {
  await page.waitForSelector('.quick-input-widget .quick-input-box input', { state: 'visible', timeout: timeoutMs });
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.fill(text);
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
}

export async function closeQuickInput(page: Page): Promise<void> {
  if (await quickInputVisible(page)) await page.keyboard.press('Escape');
}

/** Text of every notification, from the notification centre (toasts may already have faded). */
export async function notificationTexts(page: Page): Promise<string[]> {
  await closeQuickInput(page);
  await runCommandFromPalette(page, 'Notifications: Show Notifications');
  await page.waitForSelector('.notifications-center', { state: 'visible', timeout: 10_000 });
  await page.waitForTimeout(300);
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
 * with a trailing slash shows its content, then the dialog's OK button (the command's open label)
 * takes the folder.
 */
export async function pickInFileDialog(page: Page, folder: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  // On a busy machine the dialog can put its default folder (the last one used) into the box after
  // the fill: fill again until the box keeps the folder asked for.
  for (let attempt = 1; ; attempt++) {
    await input.fill(`${folder}/`);
    await page.waitForTimeout(1200);
    if ((await input.inputValue().catch(() => '')) === `${folder}/`) break;
    if (attempt >= 4) throw new Error(`the file dialog kept ${JSON.stringify(await input.inputValue().catch(() => ''))} instead of ${folder}/`);
  }
  const ok = page.locator('.quick-input-widget .monaco-button', { hasText: 'Open Run' }).first();
  if (await ok.isVisible().catch(() => false)) await ok.click();
  else await page.keyboard.press('Enter');
  await page.waitForTimeout(800);
}
