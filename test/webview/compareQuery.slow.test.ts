// The comparison and query bundles in headless Chromium on the static host page (harness.ts): the
// test plays the extension host through the real HostChannel. The comparison is written out by hand
// (two differences, one owner moved up, one down, one without values in one run) and every figure
// the view shows is checked against the text worked out here; screenshots in both themes are copied
// to /work/data/<branch>/ when PHASEWISE_SCREENSHOTS names a folder.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { Comparison } from '../../src/core/compare/compareRuns';
import { Copy, ReportProblem, type ThemeKind } from '../../src/protocol/common';
import * as C from '../../src/protocol/compare';
import * as Q from '../../src/protocol/query';
import { decodeJson, encodeJson } from '../../src/protocol/schema';
import { renderComparison } from '../../src/core/compare/render';
import { closeBrowser, HostPage } from './harness';

const ledger = (started: number, succeeded: number, rejected: number): Comparison['base']['outcomes'] => ({
  scheduled: started,
  started,
  succeeded,
  rejected,
  timed_out: 0,
  transport_failed: 0,
  canceled: 0,
  failed: started - succeeded - rejected,
  generator_dropped: 0,
  in_flight: 0,
  error_rate: (started - succeeded) / started,
  reconciles: true,
  discrepancies: [],
});

const stat = (base: number, head: number, lo: number, hi: number): { base: number; head: number; delta: number; ci_low: number; ci_high: number; moved: boolean } => ({ base, head, delta: head - base, ci_low: lo, ci_high: hi, moved: lo > 0 || hi < 0 });

export const COMPARISON: Comparison = {
  same_experiment: false,
  differences: ['analysis.windowSizeMs: 30000 in BASE, 10000 in HEAD', 'inputs.server:otlp-json: 1 in BASE, 2 in HEAD'],
  resamples: 2000,
  confidence: 0.95,
  seed: 7,
  interval_assumption: 'whole blocks of consecutive seconds of send time are resampled',
  block: { length_s: 12, bin_s: 1, rule: 'Politis–White', blocks_base: 25, blocks_head: 3 },
  base: { label: 'healthy/k6.ndjson + spans.otlp.jsonl', outcomes: ledger(900, 880, 12), join: { key: 'trace_id', key_attribute: null, applicable: true, lost_roots: 2, client_duplicate_trace_ids: 0, server_multi_root_traces: 0, server_ambiguous_ids: 0, client_requests: 900, matched: 870, coverage: 870 / 900, valid_trace_ids: 900, orphan_server_roots: 3, duplicate_trace_ids: 0 } },
  head: { label: 'degraded/k6.ndjson + spans.otlp.jsonl', outcomes: ledger(900, 850, 40), join: { key: 'trace_id', key_attribute: null, applicable: true, lost_roots: 4, client_duplicate_trace_ids: 1, server_multi_root_traces: 0, server_ambiguous_ids: 0, client_requests: 900, matched: 860, coverage: 860 / 900, valid_trace_ids: 899, orphan_server_roots: 5, duplicate_trace_ids: 1 } },
  metrics: [
    { metric: 'gpu_queue_ms', population: 'matched successes', n_base: 870, n_head: 820, stats: { p50: stat(10, 40.5, 25.25, 35.75), p95: stat(120, 480, 300, 410), p99: stat(300, 900, -20, 1500) } },
    { metric: 'gateway_ms', population: 'matched successes', n_base: 870, n_head: 820, stats: { p50: stat(4, 3.5, -0.75, -0.25), p95: stat(9, 9.25, -1, 1.5), p99: stat(12, 12, -2, 2) } },
    { metric: 'ttft_ms', population: 'client successes', n_base: 880, n_head: 0, stats: {} },
  ],
  moved: [],
};
COMPARISON.moved = COMPARISON.metrics.flatMap((m) => (['p50', 'p95', 'p99'] as const).flatMap((s) => (m.stats[s]?.moved ? [{ metric: m.metric, stat: s, base: m.stats[s].base, head: m.stats[s].head, delta: m.stats[s].delta, ci_low: m.stats[s].ci_low, ci_high: m.stats[s].ci_high }] : [])));

const SHOTS = process.env.PHASEWISE_SCREENSHOTS;

async function shot(hp: HostPage, name: string): Promise<void> {
  const file = await hp.screenshot(name);
  if (SHOTS !== undefined && SHOTS !== '') {
    fs.mkdirSync(SHOTS, { recursive: true });
    fs.copyFileSync(file, path.join(SHOTS, `${name}.png`));
  }
}

const INPUTS = { run: ['/w/healthy/k6.ndjson'], spans: ['/w/healthy/spans.otlp.jsonl'], contract: null };
const COMPARE_STATE: C.CompareViewState = {
  base: { run: 'run-a', file: null, label: 'healthy/k6.ndjson + spans.otlp.jsonl', inputs: INPUTS },
  head: { run: null, file: '/w/degraded.duckdb', label: '/w/degraded.duckdb', inputs: null },
  resamples: 2000,
  seed: 7,
  confidence: 0.95,
};

async function openCompare(theme: ThemeKind, c: Comparison = COMPARISON): Promise<HostPage> {
  const hp = await HostPage.open('compare', { theme, width: 1200, height: 1300 });
  hp.channel.notify(C.DidLoad, { comparison: encodeJson(c), state: COMPARE_STATE });
  await hp.page.waitForSelector('[data-testid="metrics"]');
  return hp;
}

after(closeBrowser);

describe('compare webview in headless Chromium', function () {
  this.timeout(60_000);

  it('puts the different-experiments banner first with each difference, then the method, resamples and seed', async () => {
    const hp = await openCompare('dark');
    try {
      const first = await hp.page.$eval('main > :nth-child(2)', (e) => e.getAttribute('data-testid'));
      assert.strictEqual(first, 'experiment', 'the banner is the first thing under the title');
      assert.strictEqual(await hp.page.$eval('[data-testid="experiment"]', (e) => e.getAttribute('role')), 'alert');
      const head = await hp.page.$eval('[data-testid="experiment"] .cp-banner-head', (e) => e.textContent);
      assert.strictEqual(head, 'Different experiments: 2 differences');
      assert.deepStrictEqual(await hp.page.$$eval('[data-testid="differences"] li', (l) => l.map((e) => e.textContent)), COMPARISON.differences);
      assert.strictEqual(await hp.page.$eval('[data-testid="method"]', (e) => e.textContent), "Intervals: 95 % percentile bootstrap of HEAD − BASE, 2,000 resamples of each run in blocks of 12 s of send time (Politis–White; 25 blocks per BASE resample, 3 per HEAD), seed 7.");
      assert.ok((await hp.page.$eval('[data-testid="caution"]', (e) => e.textContent))?.includes('whole blocks of consecutive seconds'));
      await shot(hp, 'compare-dark');
      // what the serializer gets after a reload: the pair and the bootstrap's settings
      assert.deepStrictEqual(await hp.page.evaluate(() => (globalThis as unknown as { __state: unknown }).__state), COMPARE_STATE);
      assert.deepStrictEqual(await hp.allProblems(), []);
    } finally {
      await hp.close();
    }
  });

  it('shows per owner and statistic BASE, HEAD, Δ and the interval, marks moved rows in words, lists the moves', async () => {
    const hp = await openCompare('light');
    try {
      const rows = await hp.page.$$eval('[data-testid="metrics"] tbody tr', (trs) =>
        trs.map((tr) => ({ metric: tr.getAttribute('data-metric'), stat: tr.getAttribute('data-stat'), moved: tr.getAttribute('data-moved'), cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) })),
      );
      assert.strictEqual(rows.length, 7);
      const row = (m: string, s: string): (typeof rows)[number] | undefined => rows.find((r) => r.metric === m && r.stat === s);
      // gpu_queue p95: 120 → 480 ms, Δ +360, interval [+300, +410]: moved up.
      assert.deepStrictEqual(row('gpu_queue_ms', 'p95')?.cells, ['p95', '120.0 ms', '480.0 ms', '+360.0 ms', '[+300.0 ms, +410.0 ms]', '▲ moved up']);
      assert.strictEqual(row('gpu_queue_ms', 'p95')?.moved, 'up');
      // gpu_queue p99: the interval [−20, +1,500] includes zero: not moved.
      assert.deepStrictEqual(row('gpu_queue_ms', 'p99')?.cells, ['p99', '300.0 ms', '900.0 ms', '+600.0 ms', '[−20.00 ms, +1,500 ms]', '']);
      assert.strictEqual(row('gpu_queue_ms', 'p99')?.moved, null);
      // gateway p50: 4 → 3.5, interval [−0.75, −0.25]: moved down.
      assert.deepStrictEqual(row('gateway_ms', 'p50')?.cells, ['p50', '4.00 ms', '3.50 ms', '−0.500 ms', '[−0.750 ms, −0.250 ms]', '▼ moved down']);
      assert.deepStrictEqual(row('ttft_ms', 'all')?.cells, ['all', 'no values in one run']);
      const moved = await hp.page.$$eval('[data-testid="moved"] li', (l) => l.map((e) => e.textContent));
      assert.deepStrictEqual(moved, [
        'gpu queue p50 ▲ up +30.50 ms: 10.00 ms → 40.50 ms, interval [+25.25 ms, +35.75 ms]',
        'gpu queue p95 ▲ up +360.0 ms: 120.0 ms → 480.0 ms, interval [+300.0 ms, +410.0 ms]',
        'gateway p50 ▼ down −0.500 ms: 4.00 ms → 3.50 ms, interval [−0.750 ms, −0.250 ms]',
      ]);
      const ledgers = await hp.page.$$eval('[data-testid="ledgers"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
      assert.deepStrictEqual(ledgers.find((r) => r[0] === 'rejected'), ['rejected', '12', '40']);
      assert.deepStrictEqual(ledgers.find((r) => r[0] === 'error rate'), ['error rate', '2.2 %', '5.6 %']);
      const joins = await hp.page.$$eval('[data-testid="joins"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
      assert.deepStrictEqual(joins.find((r) => r[0] === 'join coverage'), ['join coverage', '96.7 % (870 of 900)', '95.6 % (860 of 900)']);
      assert.deepStrictEqual(joins.find((r) => r[0] === 'colliding IDs'), ['colliding IDs', '0', '1']);
      await shot(hp, 'compare-light');
      assert.deepStrictEqual(await hp.allProblems(), []);
    } finally {
      await hp.close();
    }
  });

  it('says "same experiment" when nothing differs; Copy sends the table as TSV from the keyboard', async () => {
    const hp = await openCompare('dark', { ...COMPARISON, same_experiment: true, differences: [] });
    try {
      assert.strictEqual(await hp.page.$eval('[data-testid="experiment"]', (e) => e.getAttribute('role')), 'status');
      assert.ok((await hp.page.$eval('[data-testid="experiment"]', (e) => e.textContent))?.startsWith('Same experiment: '));
      const copies: { text: string; what: string }[] = [];
      hp.channel.onNotification(Copy, (p) => copies.push(p));
      await hp.page.focus('[data-testid="copy-tsv"]');
      await hp.page.keyboard.press('Enter');
      await hp.page.waitForFunction(() => true);
      for (let i = 0; i < 50 && copies.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.strictEqual(copies.length, 1);
      const lines = copies[0].text.trimEnd().split('\n');
      assert.strictEqual(lines.length, 1 + 9);
      assert.strictEqual(lines[0], 'metric\tpopulation\tstat\tbase_ms\thead_ms\tdelta_ms\tci_low_ms\tci_high_ms\tmoved\tn_base\tn_head');
      assert.strictEqual(lines[2], 'gpu_queue_ms\tmatched successes\tp95\t120\t480\t360\t300\t410\tup\t870\t820');
      assert.strictEqual(lines[7], 'ttft_ms\tclient successes\tp50\t\t\t\t\t\tno values in one run\t880\t0');
    } finally {
      await hp.close();
    }
  });
});

/** A side joined by request ID: every join figure written out (the view's cells are worked out below by hand). */
const requestIdJoin = (attr: string, n: number, matched: number, orphans: number, lost: number, clientDup: number, multiRoot: number, ambiguous: number): Comparison['base']['join'] => ({
  key: 'request_id',
  key_attribute: attr,
  applicable: true,
  client_requests: n,
  matched,
  coverage: matched / n,
  valid_trace_ids: n,
  orphan_server_roots: orphans,
  lost_roots: lost,
  duplicate_trace_ids: clientDup + multiRoot + ambiguous,
  client_duplicate_trace_ids: clientDup,
  server_multi_root_traces: multiRoot,
  server_ambiguous_ids: ambiguous,
});

export const REQUEST_ID_COMPARISON: Comparison = {
  ...COMPARISON,
  base: { label: 'aiperf/profile_export.jsonl + spans.otlp.jsonl', outcomes: ledger(9, 6, 1), join: requestIdJoin('http.request.header.x-request-id', 9, 5, 3, 0, 0, 0, 1) },
  head: { label: 'aiperf-12k/profile_export.jsonl + spans.otlp.jsonl', outcomes: ledger(12000, 11500, 300), join: requestIdJoin('app.request_id', 12000, 11342, 1204, 7, 4, 2, 9) },
};

/** The join rows of `phasewise compare`'s text (core render.ts), split into [label, BASE, HEAD]. */
function cliJoinRows(text: string): string[][] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => l.startsWith('joined by'));
  return lines.slice(from, from + 8).map((l) => l.trim().split(/\s{2,}/));
}

async function joinCells(hp: HostPage): Promise<{ rows: string[][]; notes: string[] }> {
  const rows = await hp.page.$$eval('[data-testid="joins"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')));
  const notes = await hp.page.$$eval('[data-testid="join-keys"] li', (l) => l.map((e) => e.textContent ?? ''));
  return { rows, notes };
}

async function joinShot(hp: HostPage, name: string): Promise<void> {
  const file = path.join(path.dirname(await hp.screenshot(name)), `${name}.png`);
  await hp.page.locator('#cp-joins').screenshot({ path: file });
  if (SHOTS !== undefined && SHOTS !== '') fs.copyFileSync(file, path.join(SHOTS, `${name}.png`));
}

describe('compare webview: each run\u2019s own join, in the words of phasewise compare', function () {
  this.timeout(60_000);

  for (const theme of ['dark', 'light'] as const) {
    it(`a request-ID comparison: the key with its attribute, coverage n of N, lost roots, each collision kind (${theme})`, async () => {
      const hp = await openCompare(theme, REQUEST_ID_COMPARISON);
      try {
        const { rows, notes } = await joinCells(hp);
        // By hand: 5/9 = 55.56 %; 11,342/12,000 = 94.52 %; colliding 0+0+1 = 1 and 4+2+9 = 15 (no ID of two kinds).
        assert.deepStrictEqual(rows, [
          ['joined by', 'request ID', 'request ID'],
          ['join coverage', '55.6 % (5 of 9)', '94.5 % (11,342 of 12,000)'],
          ['orphan server roots', '3', '1,204'],
          ['lost roots', '0', '7'],
          ['colliding IDs', '1', '15'],
          ['seen twice by the client', '0', '4'],
          ['several server roots', '0', '2'],
          ['on several traces', '1', '9'],
        ]);
        assert.deepStrictEqual(notes, [
          "BASE joined the client records' request_id to the span attribute http.request.header.x-request-id",
          "HEAD joined the client records' request_id to the span attribute app.request_id",
        ]);
        // The same rows and words as the CLI's text of this comparison (counts there without thousands separators, n/N).
        const cli = renderComparison(REQUEST_ID_COMPARISON);
        assert.deepStrictEqual(rows.map((r) => r.map((c) => c.replace(/,/g, '').replace(/ \((\d+) of (\d+)\)/, ' ($1/$2)'))), cliJoinRows(cli));
        for (const n of notes) assert.ok(cli.split('\n').includes(n), n);
        // The collision kinds are indented under the colliding IDs, as the CLI indents them.
        assert.deepStrictEqual(await hp.page.$$eval('[data-testid="joins"] tr.cp-sub th', (t) => t.map((e) => e.textContent)), ['seen twice by the client', 'several server roots', 'on several traces']);
        await joinShot(hp, `compare-join-request-id-${theme}`);
        assert.deepStrictEqual(await hp.allProblems(), []);
      } finally {
        await hp.close();
      }
    });
  }

  it('a run without a join key says "not applicable", never 0 %; a trace-ID side names no attribute', async () => {
    const clientOnly: Comparison['base']['join'] = { ...requestIdJoin('', 7, 0, 0, 0, 0, 0, 0), key: 'trace_id', key_attribute: null, applicable: false, coverage: null, valid_trace_ids: 0 };
    const c: Comparison = { ...COMPARISON, head: { label: 'vllm/bench.json', outcomes: ledger(7, 5, 1), join: clientOnly } };
    const hp = await openCompare('dark', c);
    try {
      const { rows, notes } = await joinCells(hp);
      assert.deepStrictEqual(rows.slice(0, 2), [
        ['joined by', 'trace ID', 'trace ID'],
        ['join coverage', '96.7 % (870 of 900)', 'not applicable (no join key)'],
      ]);
      assert.deepStrictEqual(rows.slice(2).map((r) => r[2]), ['0', '0', '0', '0', '0', '0']);
      assert.deepStrictEqual(notes, []);
      assert.strictEqual(await hp.page.$('[data-testid="join-keys"]'), null);
      assert.deepStrictEqual(rows.map((r) => r.map((x) => x.replace(/ \((\d+) of (\d+)\)/, ' ($1/$2)'))), cliJoinRows(renderComparison(c)));
      await joinShot(hp, 'compare-join-not-applicable-dark');
    } finally {
      await hp.close();
    }
  });

  it('the protocol refuses a side whose join lacks a figure the view shows, or names an unknown key', () => {
    const { lost_roots: _dropped, ...noLost } = REQUEST_ID_COMPARISON.head.join;
    const bad1 = { ...REQUEST_ID_COMPARISON, head: { ...REQUEST_ID_COMPARISON.head, join: noLost } };
    assert.throws(() => decodeJson(encodeJson(bad1 as unknown as Comparison), C.comparisonJson, 'c'), /head\.join\.lost_roots|head.*join.*lost_roots/);
    const bad2 = { ...REQUEST_ID_COMPARISON, base: { ...REQUEST_ID_COMPARISON.base, join: { ...REQUEST_ID_COMPARISON.base.join, key: 'span_id' } } };
    assert.throws(() => decodeJson(encodeJson(bad2 as unknown as Comparison), C.comparisonJson, 'c'), /base.*join.*key/);
    assert.deepStrictEqual(decodeJson(encodeJson(REQUEST_ID_COMPARISON), C.comparisonJson, 'c').head.join, REQUEST_ID_COMPARISON.head.join);
  });
});

describe('compare webview restored after a reload, before its comparison', function () {
  this.timeout(60_000);

  for (const theme of ['dark', 'light'] as const) {
    it(`says which run is no longer open and offers Reopen from the keyboard (${theme})`, async () => {
      const hp = await HostPage.open('compare', { theme, width: 1000, height: 500 });
      try {
        const reopens: unknown[] = [];
        hp.channel.onNotification(C.Reopen, (p) => reopens.push(p));
        const message = 'This comparison cannot be recomputed: the BASE run healthy/k6.ndjson + spans.otlp.jsonl is no longer open (removed from the Runs view).';
        hp.channel.notify(C.Status, { kind: 'gone', message, can_reopen: true, state: COMPARE_STATE });
        await hp.page.waitForSelector('[data-testid="compare-status"][data-kind="gone"]');
        assert.strictEqual(await hp.page.$eval('[data-testid="compare-status"] [role="alert"]', (e) => e.textContent), message);
        assert.strictEqual(await hp.page.$eval('[data-testid="compare-status"] header .pw-muted', (e) => e.textContent), 'healthy/k6.ndjson + spans.otlp.jsonl → /w/degraded.duckdb');
        await shot(hp, `compare-restored-gone-${theme}`);
        await hp.page.focus('[data-testid="reopen"]');
        await hp.page.keyboard.press('Enter');
        for (let i = 0; i < 50 && reopens.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        assert.deepStrictEqual(reopens, [{}]);
        // the state stays saved, so a second reload still knows the pair
        assert.deepStrictEqual(await hp.page.evaluate(() => (globalThis as unknown as { __state: unknown }).__state), COMPARE_STATE);
        // the recomputed comparison replaces the message
        hp.channel.notify(C.DidLoad, { comparison: encodeJson(COMPARISON), state: COMPARE_STATE });
        await hp.page.waitForSelector('[data-testid="metrics"]');
        assert.strictEqual(await hp.page.$('[data-testid="compare-status"]'), null);
        assert.deepStrictEqual(await hp.allProblems(), []);
      } finally {
        await hp.close();
      }
    });
  }
});

const VIEWS: Q.ViewDoc[] = [
  { name: 'pairs', meaning: 'one row per client request', columns: [{ name: 'request_no', type: 'BIGINT', meaning: 'the request, in order' }, { name: 'trace_id', type: 'VARCHAR', meaning: 'W3C trace ID' }] },
  { name: 'spans', meaning: 'one row per server span', columns: [{ name: 'span_id', type: 'VARCHAR', meaning: 'the span' }] },
];

const QUERY_STATE = { run: 'run-a', label: 'k6.ndjson + spans.otlp.jsonl', inputs: INPUTS };

/** The query webview on the host page; `slow` answers a query containing "range(" only once `release` is called. */
async function openQuery(theme: ThemeKind): Promise<{ hp: HostPage; asked: string[]; exports: string[]; cancels: string[]; release: (cancelledAfterMs: number) => void }> {
  const hp = await HostPage.open('query', { theme, width: 1300, height: 800 });
  const asked: string[] = [];
  const exports: string[] = [];
  const cancels: string[] = [];
  let release: (ms: number) => void = () => undefined;
  hp.channel.onNotification(Q.Cancel, ({ what }) => cancels.push(what));
  hp.channel.onRequest(Q.Run, async ({ sql }) => {
    asked.push(sql);
    if (/range\(/.test(sql)) {
      const ms = await new Promise<number>((r) => (release = r));
      return { columns: [], types: [], rows: [], truncated: false, ms, error: null, cancelled: true };
    }
    if (/nope/.test(sql)) return { columns: [], types: [], rows: [], truncated: false, ms: 1, error: 'DuckDB could not run the query: Binder Error: Referenced column "nope" not found in FROM clause!', cancelled: false };
    return {
      columns: ['request_no', 'trace_id', 'gpu_queue_ms', 'matched'],
      types: ['BIGINT', 'VARCHAR', 'DOUBLE', 'BOOLEAN'],
      rows: [
        [1, '4bf92f3577b34da6a3ce929d0e0e4736', 12.5, true],
        [2, null, null, false],
        [3, 'tab\there', 3, true],
      ],
      truncated: true,
      ms: 4.25,
      error: null,
      cancelled: false,
    };
  });
  hp.channel.onNotification(Q.ExportCsv, ({ sql }) => {
    exports.push(sql);
    hp.channel.notify(Q.Exported, { status: 'written', message: '3 rows written to /tmp/q.csv (1 KB).' });
  });
  hp.channel.onNotification(ReportProblem, (p) => hp.problems.push(p.message));
  hp.channel.notify(Q.DidLoad, { run: 'k6.ndjson + spans.otlp.jsonl', views: VIEWS, views_version: 1, max_rows: 3, sql: 'SELECT * FROM pairs LIMIT 3', state: QUERY_STATE });
  await hp.page.waitForSelector('[data-testid="sql"]');
  return { hp, asked, exports, cancels, release: (ms) => release(ms) };
}

const SLOW = 'SELECT count(*) FROM range(1000000) a, range(1000000) b';

async function waitUntil(what: string, fn: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const statusText = (hp: HostPage): Promise<string | null> => hp.page.$eval('[data-testid="status"]', (e) => e.textContent);

describe('query webview: a long query shows its progress and can be cancelled', function () {
  this.timeout(60_000);

  for (const [theme, key] of [['dark', 'Cancel button from the keyboard'], ['light', 'Escape']] as const) {
    it(`Running… with a Cancel button; ${key} asks the host to cancel; the answer says "cancelled after N s" (${theme})`, async () => {
      const { hp, cancels, release } = await openQuery(theme);
      try {
        await hp.page.fill('[data-testid="sql"]', SLOW);
        await hp.page.focus('[data-testid="sql"]');
        await hp.page.keyboard.press('Control+Enter');
        await hp.page.waitForSelector('[data-testid="cancel"]');
        assert.match((await statusText(hp)) ?? '', /^Running… \d+\.\d s$/);
        // the text is saved with the run as it is typed and run (the serializer's state after a reload)
        assert.deepStrictEqual(await hp.page.evaluate(() => (globalThis as unknown as { __state: unknown }).__state), { ...QUERY_STATE, sql: SLOW });
        await hp.page.waitForTimeout(1100);
        await shot(hp, `query-running-${theme}`);
        if (key === 'Escape') await hp.page.keyboard.press('Escape');
        else {
          await hp.page.focus('[data-testid="cancel"]');
          await hp.page.keyboard.press('Enter');
        }
        await waitUntil('the cancel', () => cancels.length > 0);
        assert.deepStrictEqual(cancels, ['query']);
        assert.match((await statusText(hp)) ?? '', /^Cancelling after \d+\.\d s…$/);
        // Still so after the next tick of the running clock (1 s), which used to say "Running…" again.
        await hp.page.waitForTimeout(1200);
        assert.match((await statusText(hp)) ?? '', /^Cancelling after \d+\.\d s…$/);
        release(2345);
        await waitUntil('the cancelled answer', async () => (await statusText(hp))?.startsWith('Cancelled') === true);
        assert.strictEqual(await statusText(hp), 'Cancelled after 2.3 s; the run is unchanged and answers the next query.');
        assert.strictEqual(await hp.page.$('[data-testid="cancel"]'), null, 'the Cancel button goes with the query');
        assert.strictEqual(await hp.page.$('[data-testid="rows"]'), null);
        // the next query answers
        await hp.page.fill('[data-testid="sql"]', 'SELECT * FROM pairs LIMIT 3');
        await hp.page.click('[data-testid="run"]');
        await hp.page.waitForSelector('[data-testid="rows"]');
        assert.strictEqual(await statusText(hp), '3 rows in 4.3 ms · the first 3 are shown; more exist (Export CSV writes every row)');
        assert.deepStrictEqual(await hp.allProblems(), []);
      } finally {
        await hp.close();
      }
    });
  }

  it('an export in flight has its own Cancel; Escape with nothing running sends nothing', async () => {
    const { hp, cancels } = await openQuery('dark');
    try {
      await hp.page.focus('[data-testid="sql"]');
      await hp.page.keyboard.press('Escape');
      // an export that does not finish by itself (this host never answers it)
      hp.channel.onNotification(Q.ExportCsv, () => undefined);
      await hp.page.click('[data-testid="export"]');
      await hp.page.waitForSelector('[data-testid="cancel-export"]');
      assert.deepStrictEqual(cancels, []);
      await hp.page.focus('[data-testid="cancel-export"]');
      await hp.page.keyboard.press('Enter');
      await waitUntil('the export cancel', () => cancels.length > 0);
      assert.deepStrictEqual(cancels, ['export']);
      assert.strictEqual(await hp.page.$eval('[data-testid="export-note"]', (e) => e.textContent), 'Cancelling the export…');
      hp.channel.notify(Q.Exported, { status: 'cancelled', message: 'Export cancelled.' });
      await waitUntil('the note', async () => (await hp.page.$eval('[data-testid="export-note"]', (e) => e.textContent)) === 'Export cancelled.');
    } finally {
      await hp.close();
    }
  });

  it('a restored panel whose run is gone says so, keeps the text and offers Reopen', async () => {
    const hp = await HostPage.open('query', { theme: 'dark', width: 1000, height: 500 });
    try {
      const reopens: unknown[] = [];
      hp.channel.onNotification(Q.Reopen, (p) => reopens.push(p));
      hp.channel.notify(Q.RunGone, { label: 'k6.ndjson + spans.otlp.jsonl', sql: SLOW, can_reopen: true });
      await hp.page.waitForSelector('[data-testid="run-gone"]');
      assert.strictEqual(await hp.page.$eval('[data-testid="run-gone"] [role="alert"]', (e) => e.textContent), 'The run k6.ndjson + spans.otlp.jsonl is no longer open (it was removed from the Runs view), so this query cannot run. Reopen it from its files to query it again.');
      assert.strictEqual(await hp.page.$eval('[data-testid="run-gone"] pre', (e) => e.textContent), SLOW);
      await hp.page.focus('[data-testid="reopen"]');
      await hp.page.keyboard.press('Enter');
      await waitUntil('reopen', () => reopens.length > 0);
      hp.channel.notify(Q.DidLoad, { run: 'k6.ndjson + spans.otlp.jsonl', views: VIEWS, views_version: 1, max_rows: 3, sql: SLOW, state: QUERY_STATE });
      await hp.page.waitForSelector('[data-testid="sql"]');
      assert.strictEqual(await hp.page.$eval('[data-testid="sql"]', (e) => (e as unknown as { value: string }).value), SLOW);
      assert.deepStrictEqual(await hp.allProblems(), []);
    } finally {
      await hp.close();
    }
  });
});

describe('query webview in headless Chromium', function () {
  this.timeout(60_000);

  it('runs the box with Ctrl+Enter, shows types, NULLs and that more rows exist; copies TSV; exports through the host', async () => {
    const { hp, asked, exports } = await openQuery('dark');
    try {
      assert.strictEqual(await hp.page.$eval('[data-testid="sql"]', (e) => (e as unknown as { value: string }).value), 'SELECT * FROM pairs LIMIT 3');
      await hp.page.focus('[data-testid="sql"]');
      await hp.page.keyboard.press('Control+Enter');
      await hp.page.waitForSelector('[data-testid="rows"]');
      assert.deepStrictEqual(asked, ['SELECT * FROM pairs LIMIT 3']);
      const head = await hp.page.$$eval('[data-testid="rows"] thead th', (ths) => ths.map((t) => [...t.children].map((c) => c.textContent)));
      assert.deepStrictEqual(head, [['request_no', 'BIGINT'], ['trace_id', 'VARCHAR'], ['gpu_queue_ms', 'DOUBLE'], ['matched', 'BOOLEAN']]);
      const cells = await hp.page.$$eval('[data-testid="rows"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
      assert.deepStrictEqual(cells, [
        ['1', '4bf92f3577b34da6a3ce929d0e0e4736', '12.5', 'true'],
        ['2', 'NULL', 'NULL', 'false'],
        ['3', 'tab\there', '3', 'true'],
      ]);
      assert.strictEqual(await hp.page.$eval('[data-testid="status"]', (e) => e.textContent), '3 rows in 4.3 ms · the first 3 are shown; more exist (Export CSV writes every row)');
      // the views are listed beside the box, their columns inside
      assert.deepStrictEqual(await hp.page.$$eval('[data-testid="views"] details', (d) => d.map((e) => e.getAttribute('data-view'))), ['pairs', 'spans']);
      await hp.page.click('[data-view="pairs"] summary');
      await shot(hp, 'query-dark');
      const copies: { text: string }[] = [];
      hp.channel.onNotification(Copy, (p) => copies.push(p));
      await hp.page.click('[data-testid="copy"]');
      await hp.page.click('[data-testid="export"]');
      for (let i = 0; i < 50 && (copies.length === 0 || exports.length === 0); i++) await new Promise((r) => setTimeout(r, 50));
      assert.strictEqual(copies[0]?.text, 'request_no\ttrace_id\tgpu_queue_ms\tmatched\n1\t4bf92f3577b34da6a3ce929d0e0e4736\t12.5\ttrue\n2\t\t\tfalse\n3\ttab here\t3\ttrue\n');
      assert.deepStrictEqual(exports, ['SELECT * FROM pairs LIMIT 3']);
      await hp.page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('[data-testid="export-note"]')?.textContent?.startsWith('3 rows written') === true);
      assert.deepStrictEqual(await hp.allProblems(), []);
    } finally {
      await hp.close();
    }
  });

  it('shows why a query did not run (DuckDB\'s message) in an alert, and a view\'s SELECT goes into the box', async () => {
    const { hp } = await openQuery('light');
    try {
      await hp.page.fill('[data-testid="sql"]', 'SELECT nope FROM pairs');
      await hp.page.click('[data-testid="run"]');
      await hp.page.waitForSelector('[data-testid="problem"] [role="alert"]');
      assert.strictEqual(await hp.page.$eval('[data-testid="problem"] [role="alert"]', (e) => e.textContent), 'DuckDB could not run the query: Binder Error: Referenced column "nope" not found in FROM clause!');
      assert.strictEqual(await hp.page.$('[data-testid="rows"]'), null);
      await hp.page.click('[data-view="spans"] summary');
      await shot(hp, 'query-light-error');
      await hp.page.click('[data-view="spans"] button');
      assert.strictEqual(await hp.page.$eval('[data-testid="sql"]', (e) => (e as unknown as { value: string }).value), 'SELECT * FROM spans LIMIT 100');
      assert.deepStrictEqual(await hp.allProblems(), []);
    } finally {
      await hp.close();
    }
  });
});
