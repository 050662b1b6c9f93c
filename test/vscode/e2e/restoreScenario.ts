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
import { answerQuickInput, closeQuickInput, pickFromQuickInput, runCommandFromPalette } from './workbench';

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

/**
 * Compare Runs… from the palette: BASE the run `runLabel`, HEAD the database `db`. Both picks by keyboard
 * (a click can hit a row the list re-renders under an animation), each filtered to its row (earlier
 * scenarios leave probe and receiver runs above them) and taken with Enter once it is focused. The
 * command asks in two quick picks one after the other, and the second can close under the typing when
 * the focus goes back for a moment to where it was; the whole sequence is then run again (nothing is
 * compared until both sides are given).
 */
async function compareFromPalette(page: Page, runLabel: string, db: string): Promise<void> {
  const title = page.locator('.quick-input-widget .quick-input-title').first();
  const failures: string[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    await runCommandFromPalette(page, 'Phasewise: Compare Runs');
    try {
      await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: runLabel }).first().waitFor({ state: 'visible', timeout: 20_000 });
      if (!(await pickFromQuickInput(page, runLabel, (label) => label.includes(runLabel)))) throw new Error(`BASE: the pick closed before ${runLabel} was taken`);
      await title.filter({ hasText: '(2/2)' }).waitFor({ state: 'visible', timeout: 20_000 });
      if (!(await pickFromQuickInput(page, 'A database file', (label) => label.includes('A database file')))) throw new Error('HEAD: the pick closed before "A database file" was taken');
      await title.filter({ hasText: 'database' }).waitFor({ state: 'visible', timeout: 20_000 });
      await answerQuickInput(page, db);
      return;
    } catch (err) {
      failures.push(err instanceof Error ? err.message : String(err));
      await closeQuickInput(page);
    }
  }
  throw new Error(`Compare Runs did not take its two sides: ${failures.join('; ')}`);
}

export async function restoreAfterReload(page: Page, workspace: string, artifacts: string, waitFor: WaitFor, shot: (name: string) => Promise<void>): Promise<Record<string, unknown>> {
  const samples = path.join(workspace, FIXTURE.samples);
  const db = path.join(artifacts, 'restore-samples.duckdb');
  cli(['analyze', '--run', path.join(samples, 'k6.ndjson'), '--spans', path.join(samples, 'spans.otlp.jsonl'), '--contract', path.join(samples, 'steady.loadcontract.yaml'), '--db', db, '--quiet']);
  const runLabel = 'k6.ndjson + spans.otlp.jsonl';

  // Compare Runs…: BASE the samples run of the Runs view, HEAD the CLI's database of the same files.
  await compareFromPalette(page, runLabel, db);
  const before = await waitFor('the comparison webview', 120_000, () => frameWith(page, '[data-testid="metrics"]'));
  const rowsBefore = await compareRows(before);

  // Query Run… on the selected run (the samples run, picked in the Runs view by the earlier scenario).
  await runCommandFromPalette(page, 'Phasewise: Query Run');
  let query = await waitFor('the query webview', 60_000, () => frameWith(page, '[data-testid="sql"]'));
  await query.fill('[data-testid="sql"]', SLOW_QUERY);
  await query.focus('[data-testid="sql"]');
  await page.keyboard.press('Control+Enter');
  await query.locator('[data-testid="cancel"]').waitFor({ state: 'visible', timeout: 30_000 });
  // The screenshot shows it running for a while: the status counts whole seconds.
  await waitFor('the query running for 2 s', 30_000, async () => (/Running… ([2-9]|\d\d)/.test((await query.locator('[data-testid="status"]').textContent().catch(() => null)) ?? '') ? true : undefined));
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
  // The box's text is saved (setState) a moment after it changes; the view marks the box when it is.
  await waitFor('the query text saved', 10_000, async () => ((await query.locator('[data-testid="sql"][data-saved="true"]').count()) > 0 ? true : undefined));

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
