// Compare Runs… and Query Run… through the workbench, then a window reload: a slow query is cancelled
// from the keyboard (Escape) and the next one answers; after the reload both panels come back through
// their serializers, the comparison recomputed and the query with its text, and their figures are
// checked against `phasewise compare --format json` and `phasewise sql --format json` on a database
// the CLI loads from the same files.
import { spawnSync } from 'child_process';
import * as path from 'path';
import type { Frame, Page } from 'playwright-core';
import type { Comparison } from '../../../src/core/compare/compareRuns';
import { fmtMs } from '../../../webview/shared/format';
import { FIXTURE, REPO_ROOT } from '../harness/workspace';
import { answerQuickInput, closeQuickInput, runCommandFromPalette } from './workbench';

type WaitFor = <T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>) => Promise<T>;

/** The query the box runs: figures a second loader (the CLI) must agree on. */
export const RESTORE_QUERY = 'SELECT count(*) AS n, round(sum(client_total_ms), 3) AS total_ms, count(trace_id) AS with_trace FROM pairs';
/** 10^12 joined rows: only a cancel ends it. */
const SLOW_QUERY = 'SELECT count(*) AS n FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1';

function cli(args: string[]): string {
  const res = spawnSync(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli.js'), ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 180_000 });
  if (res.error !== undefined) throw res.error;
  if (res.status === null || res.status > 2) throw new Error(`phasewise ${args.join(' ')}: exit ${String(res.status)}: ${res.stderr.slice(0, 1000)}`);
  return res.stdout;
}

async function frameWith(page: Page, selector: string): Promise<Frame | undefined> {
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    if ((await frame.locator(selector).count().catch(() => 0)) > 0) return frame;
  }
  return undefined;
}

/** The rows of the comparison table: metric, statistic, BASE and HEAD as shown. */
async function compareRows(frame: Frame): Promise<string[][]> {
  return frame.$$eval('[data-testid="metrics"] tbody tr[data-stat]:not([data-stat="all"])', (trs) => trs.map((tr) => [tr.getAttribute('data-metric') ?? '', tr.getAttribute('data-stat') ?? '', ...Array.from(tr.querySelectorAll('td.pw-num')).slice(0, 2).map((td) => td.textContent ?? '')]));
}

/** The same rows worked out from the CLI's JSON with the view's own number format. */
function expectedRows(c: Comparison): string[][] {
  const rows: string[][] = [];
  for (const m of c.metrics) {
    for (const stat of ['p50', 'p95', 'p99'] as const) {
      const s = m.stats[stat];
      if (s !== undefined) rows.push([m.metric, stat, fmtMs(s.base), fmtMs(s.head)]);
    }
  }
  return rows;
}

async function queryCells(frame: Frame): Promise<string[][]> {
  return frame.$$eval('[data-testid="rows"] tbody tr', (trs) => trs.map((tr) => Array.from(tr.children).map((c) => c.textContent ?? '')));
}

export async function restoreAfterReload(page: Page, workspace: string, artifacts: string, waitFor: WaitFor, shot: (name: string) => Promise<void>): Promise<Record<string, unknown>> {
  const samples = path.join(workspace, FIXTURE.samples);
  const db = path.join(artifacts, 'restore-samples.duckdb');
  cli(['analyze', '--run', path.join(samples, 'k6.ndjson'), '--spans', path.join(samples, 'spans.otlp.jsonl'), '--contract', path.join(samples, 'steady.loadcontract.yaml'), '--db', db, '--quiet']);
  const runLabel = 'k6.ndjson + spans.otlp.jsonl';

  // Compare Runs…: BASE the samples run of the Runs view, HEAD the CLI's database of the same files.
  await closeQuickInput(page);
  await runCommandFromPalette(page, 'Phasewise: Compare Runs');
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: runLabel }).first().click({ timeout: 20_000 });
  // The second pick replaces the first under an animation (its rows are inert for a while): by keyboard.
  await page.locator('.quick-input-widget .quick-input-title', { hasText: '(2/2)' }).first().waitFor({ state: 'visible', timeout: 20_000 });
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'A database file' }).first().waitFor({ state: 'visible', timeout: 20_000 });
  await page.waitForTimeout(500);
  // Filtered to the database item first: earlier scenarios leave probe and receiver runs above it.
  await page.keyboard.type('A database file');
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasNotText: 'A database file' }).first().waitFor({ state: 'detached', timeout: 20_000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'database' }).first().waitFor({ state: 'visible', timeout: 20_000 });
  await answerQuickInput(page, db);
  const before = await waitFor('the comparison webview', 120_000, () => frameWith(page, '[data-testid="metrics"]'));
  const rowsBefore = await compareRows(before);

  // Query Run… on the selected run (the samples run, picked in the Runs view by the earlier scenario).
  await runCommandFromPalette(page, 'Phasewise: Query Run');
  let query = await waitFor('the query webview', 60_000, () => frameWith(page, '[data-testid="sql"]'));
  await query.fill('[data-testid="sql"]', SLOW_QUERY);
  await query.focus('[data-testid="sql"]');
  await page.keyboard.press('Control+Enter');
  await query.locator('[data-testid="cancel"]').waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForTimeout(2500);
  await shot('query-running-cancel-vscode');
  await query.focus('[data-testid="sql"]');
  await page.keyboard.press('Escape');
  const cancelled = await waitFor('"Cancelled after"', 60_000, async () => {
    const t = await query.locator('[data-testid="status"]').textContent().catch(() => null);
    return t !== null && t.startsWith('Cancelled after') ? t : undefined;
  });
  await query.fill('[data-testid="sql"]', RESTORE_QUERY);
  await query.click('[data-testid="run"]');
  await query.locator('[data-testid="rows"]').waitFor({ timeout: 60_000 });
  const sqlJson = JSON.parse(cli(['sql', '--db', db, '--contract', path.join(samples, 'steady.loadcontract.yaml'), '--format', 'json', RESTORE_QUERY])) as { columns: { name: string }[]; rows: Record<string, unknown>[] };
  const expectedCells = sqlJson.rows.map((r) => sqlJson.columns.map((c) => String(r[c.name])));
  const afterCancel = await queryCells(query);
  if (JSON.stringify(afterCancel) !== JSON.stringify(expectedCells)) throw new Error(`after the cancel the query shows ${JSON.stringify(afterCancel)}, phasewise sql ${JSON.stringify(expectedCells)}`);
  // The state is saved a moment after the text changes.
  await page.waitForTimeout(800);

  // Reload Window, not a page reload: the workbench keeps a webview's setState in memory and writes it
  // to storage at its shutdown (a browser reload right after a change can lose the last state).
  const reloaded = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: 60_000 });
  await runCommandFromPalette(page, 'Developer: Reload Window');
  await reloaded;
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });

  // The comparison, recomputed from the runs' caches, equals the CLI's on the same files.
  await page.locator('.tabs-container .tab', { hasText: 'Compare:' }).first().click({ timeout: 60_000 });
  const restored = await waitFor('the restored comparison', 180_000, () => frameWith(page, '[data-testid="metrics"]'));
  const cliCompare = JSON.parse(cli(['compare', db, db, '--contract', path.join(samples, 'steady.loadcontract.yaml'), '--format', 'json'])) as Comparison;
  const rowsAfter = await compareRows(restored);
  const expected = expectedRows(cliCompare);
  if (JSON.stringify(rowsAfter) !== JSON.stringify(expected)) throw new Error(`the restored comparison shows ${JSON.stringify(rowsAfter)}; phasewise compare gives ${JSON.stringify(expected)}`);
  if (JSON.stringify(rowsAfter) !== JSON.stringify(rowsBefore)) throw new Error('the restored comparison differs from the one shown before the reload');
  await page.waitForTimeout(800);
  await shot('compare-restored-dark');

  // The query panel with its text; it runs again and answers as phasewise sql does.
  await page.locator('.tabs-container .tab', { hasText: 'Query:' }).first().click({ timeout: 60_000 });
  query = await waitFor('the restored query webview', 90_000, () => frameWith(page, '[data-testid="sql"]'));
  const text = await query.locator('[data-testid="sql"]').inputValue();
  if (text !== RESTORE_QUERY) throw new Error(`the restored box holds ${JSON.stringify(text)}`);
  await query.click('[data-testid="run"]');
  await query.locator('[data-testid="rows"]').waitFor({ timeout: 60_000 });
  const cells = await queryCells(query);
  if (JSON.stringify(cells) !== JSON.stringify(expectedCells)) throw new Error(`the restored query shows ${JSON.stringify(cells)}, phasewise sql ${JSON.stringify(expectedCells)}`);
  return { cancelled, rows: rowsAfter.length, query: cells };
}
