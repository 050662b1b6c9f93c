// End-to-end: Open Run on a load long enough to watch shows, in the progress notification, the file being read,
// the bytes read of the total, the rate and the time left (what a person waits on for a large run).
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { replicateRun } from '../../../bench/replicate/replicate';
import { acceptQuickPick, closeQuickInput, editorTabTitles, pickInFileDialog, runCommandFromPalette } from './workbench';

const SOURCE = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'shared-samples', 'joined-otel-js');
/** Copies of the joined-otel-js run: ≈ 60 MB, a few seconds of reading on this machine. */
const COPIES = 56;

/** What the notification must say while the span file is read: `spans.otlp.jsonl: 40.1 of 62.3 MB (64%), 21.5 MB/s, about 1 s left to read`. */
export const PROGRESS_TEXT = /\.(ndjson|jsonl): [0-9.]+ of [0-9.]+ MB \(\d+%\), [0-9.]+ MB\/s(, (about \d+ (min \d+ )?s|under a second) left to read)?/;

/** Polls every 100 ms (the notification's text changes four times a second). */
async function waitForQuickly<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type WaitFor = <T>(what: string, ms: number, probe: () => Promise<T | undefined>) => Promise<T>;

/**
 * Runs Open Run from the palette on a replicated real run in the workspace, picking its folder in the
 * dialog and taking the checklist as recognised (the k6 output and the span export); calls `seen` with
 * the first notification text that shows bytes, rate and time left (the caller takes its screenshot
 * then), and waits for the report before returning.
 */
export async function openWithProgress(page: Page, workspace: string, waitFor: WaitFor, seen: (text: string) => Promise<void>): Promise<{ progress: string; bytes: number }> {
  const dir = path.join(workspace, 'replicated');
  if (!fs.existsSync(path.join(dir, 'expected.json'))) await replicateRun({ source: SOURCE, outDir: dir, copies: COPIES, concurrent: 4, seed: 7 });
  // A run's cache database is named by its files' paths, sizes and modification times: touching them
  // makes this a first load (one left by an earlier e2e run would be reused, with no reading to show).
  const now = new Date();
  for (const f of ['k6.ndjson', 'spans.otlp.jsonl']) fs.utimesSync(path.join(dir, f), now, now);
  const bytes = fs.statSync(path.join(dir, 'k6.ndjson')).size + fs.statSync(path.join(dir, 'spans.otlp.jsonl')).size;
  const tabsBefore = (await editorTabTitles(page)).length;
  await runCommandFromPalette(page, 'Phasewise: Open Run');
  await pickInFileDialog(page, dir);
  // A folder is an ambiguous pick: the checklist says what was recognised, both files checked.
  await waitForQuickly('the checklist of recognised files', 30_000, async () => {
    const rows = await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').allInnerTexts().catch(() => [] as string[]);
    // The rows' details are the files' paths: the replicated run's, not another folder's.
    return rows.some((r) => r.includes(path.join(dir, 'k6.ndjson'))) && rows.some((r) => r.includes(path.join(dir, 'spans.otlp.jsonl'))) ? true : undefined;
  });
  // Both files are checked by default: Enter takes them.
  await acceptQuickPick(page, (rows) => ['k6.ndjson', 'spans.otlp.jsonl'].every((f) => rows.some((r) => r.checked && r.text.includes(path.join(dir, f)))));
  // The toast itself, read without opening the notification centre (the progress notification is on
  // screen while the run loads, and opening the centre through the palette takes longer than a read).
  const progress = await waitForQuickly('a progress notification with bytes, rate and time left', 120_000, async () => {
    const texts = await page.locator('.notification-toast .notification-list-item-message').allInnerTexts().catch(() => [] as string[]);
    return texts.find((t) => PROGRESS_TEXT.test(t));
  });
  // The total is both files of this run (the share is of the whole load, not of the file being read).
  const total = / of ([0-9.]+) MB \(/.exec(progress)?.[1];
  if (total === undefined || Math.abs(Number(total) - bytes / 1e6) > 0.1) throw new Error(`the progress says ${JSON.stringify(progress)}, not the ${(bytes / 1e6).toFixed(1)} MB of the run`);
  await seen(progress);
  await waitFor('the report editor', 240_000, async () => ((await editorTabTitles(page)).length > tabsBefore ? true : undefined));
  await closeQuickInput(page);
  return { progress, bytes };
}
