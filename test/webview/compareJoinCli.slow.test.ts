// The Compare panel's join for a real request-ID comparison against `phasewise compare` on the same
// inputs: the run worker (a real worker thread and DuckDB, as Compare Runs… uses it) opens the AIPerf
// fixture and its spans under a contract whose trace.id_source is request_id; its comparison's join
// equals the built CLI's `--join-by request-id --format json` figure for figure, and the panel in
// headless Chromium, given that comparison, shows the CLI text's join rows cell for cell.
import * as assert from 'assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Comparison } from '../../src/core/compare/compareRuns';
import { RunClient } from '../../src/extension/runs/runClient';
import * as P from '../../src/extension/runs/workerProtocol';
import * as C from '../../src/protocol/compare';
import type { JsonText } from '../../src/protocol/schema';
import { runCli } from '../cli/runCli';
import { fixture, repoRoot } from '../helpers/paths';
import { closeBrowser, HostPage } from './harness';

const AIPERF = fixture('tools', 'aiperf-profile_export.from-docs.jsonl');
const SPANS = fixture('tools', 'spans-x-request-id.otlp.jsonl');

after(closeBrowser);

describe('Compare panel join of a request-ID run = phasewise compare --join-by request-id', function () {
  this.timeout(240_000);
  let dir: string;
  let client: RunClient;
  let comparison: JsonText<Comparison>;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-comparejoin-'));
    // The editor chooses the request-ID join through the contract (no --join-by there): the sample's
    // contract with only trace.id_source changed.
    const contract = path.join(dir, 'aiperf.loadcontract.yaml');
    const text = readFileSync(path.join(repoRoot, 'samples', 'steady.loadcontract.yaml'), 'utf8');
    assert.ok(text.includes('id_source: metadata'));
    writeFileSync(contract, text.replace('id_source: metadata', 'id_source: request_id'));
    client = new RunClient();
    const inputs: P.RunInputs = { run: [AIPERF], spans: [SPANS], contract };
    const { key } = await client.job(P.OpenRun, { dir, inputs, settings: { slowTraceCount: 10 }, base: null });
    const side = { key, file: null, label: 'aiperf' };
    ({ comparison } = await client.job(P.CompareRuns, { base: side, head: side, settings: { slowTraceCount: 10 }, compare: { resamples: 100, confidence: 0.95, seed: 3 } }));
  });
  after(async () => {
    await client.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const cliArgs = ['compare', '--base', AIPERF, SPANS, '--head', AIPERF, SPANS, '--join-by', 'request-id', '--resamples', '100', '--seed', '3'];

  it("the worker's join figures equal the CLI's JSON, side by side", async () => {
    const res = await runCli([...cliArgs, '--format', 'json']);
    assert.strictEqual(res.status, 0, res.stderr);
    const cli = JSON.parse(res.stdout) as Comparison;
    const c = JSON.parse(comparison) as Comparison;
    assert.deepStrictEqual(c.base.join, cli.base.join);
    assert.deepStrictEqual(c.head.join, cli.head.join);
    // Not a vacuous equality: the request-ID join of the fixture (by hand in test/cli/compareInputs.test.ts).
    assert.deepStrictEqual([c.base.join.key, c.base.join.key_attribute, c.base.join.matched, c.base.join.client_requests, c.base.join.server_ambiguous_ids], ['request_id', 'http.request.header.x-request-id', 5, 9, 1]);
  });

  it("the panel shows the CLI text's join rows, cell for cell, and its attribute sentences", async () => {
    const res = await runCli(cliArgs);
    assert.strictEqual(res.status, 0, res.stderr);
    const lines = res.stdout.split('\n');
    const from = lines.findIndex((l) => l.startsWith('joined by'));
    const cliRows = lines.slice(from, from + 8).map((l) => l.trim().split(/\s{2,}/));
    const cliNotes = lines.filter((l) => / joined the client records' request_id to the span attribute /.test(l));
    assert.strictEqual(cliNotes.length, 2, res.stdout);
    const hp = await HostPage.open('compare', { theme: 'dark', width: 1200, height: 1300 });
    try {
      const state: C.CompareViewState = { base: { run: 'r', file: null, label: 'aiperf', inputs: null }, head: { run: 'r', file: null, label: 'aiperf', inputs: null }, resamples: 100, seed: 3, confidence: 0.95 };
      hp.channel.notify(C.DidLoad, { comparison, state });
      await hp.page.waitForSelector('[data-testid="joins"]');
      const rows = await hp.page.$$eval('[data-testid="joins"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')));
      // The panel writes coverage's parenthesis "n of N" where the CLI writes n/N; every other cell is the same text.
      assert.deepStrictEqual(rows.map((r) => r.map((x) => x.replace(/ \((\d+) of (\d+)\)/, ' ($1/$2)'))), cliRows);
      assert.deepStrictEqual(rows[1], ['join coverage', '55.6 % (5 of 9)', '55.6 % (5 of 9)']);
      assert.deepStrictEqual(await hp.page.$$eval('[data-testid="join-keys"] li', (l) => l.map((e) => e.textContent)), cliNotes);
      assert.deepStrictEqual(await hp.allProblems(), []);
    } finally {
      await hp.close();
    }
  });
});
