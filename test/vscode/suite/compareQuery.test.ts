// Compare Runs…, Query Run… and Export Pairs… inside a real extension host, against the CLI that ships
// in the same extension on the same inputs: the generator's sample workload twice, a healthy GPU pool
// (32 slots) and a degraded one (24 slots, another seed), written into the workspace. The editor opens
// both as runs of the Runs view; the CLI loads the same files with `phasewise analyze --db`. What the
// comparison webview received must equal `phasewise compare --format json`, a query's rows `phasewise
// sql --format json`, the query's CSV export `phasewise sql --format csv`, and the exported pairs
// `phasewise export` byte for byte.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { DEFAULT_OPTIONS, PRESETS } from '../../../bench/generate/options';
import { generateRun } from '../../../bench/generate/run';
import type { Comparison } from '../../../src/core/compare/compareRuns';
import { runCli } from './cli';
import { workspaceRoot } from './context';
import { hooks, reply, waitFor, webviewRequest, type Hooks } from './hooks';

const RESAMPLES = 400;
const SEED = 7;

interface Side {
  runId: string;
  db: string;
}

function cli(args: string[]): string {
  const res = runCli(args);
  assert.strictEqual(res.status, 0, `phasewise ${args.join(' ')}: exit ${String(res.status)}: ${res.stderr.slice(0, 2000)}`);
  return res.stdout;
}

/** The comparison without the labels (the CLI names a side by its --db path, the editor by the run's name) and fail_on. */
function withoutLabels(c: Comparison & { fail_on?: unknown }): unknown {
  const { fail_on: _gates, ...rest } = c;
  return { ...rest, base: { ...rest.base, label: '' }, head: { ...rest.head, label: '' } };
}

suite('compare, query and export pairs: the editor against the CLI on generated healthy and degraded-pool runs', () => {
  let h: Hooks;
  const sides: Record<'healthy' | 'degraded', Side> = {} as Record<'healthy' | 'degraded', Side>;
  let dir: string;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('phasewise');

  suiteSetup(async function () {
    this.timeout(300_000);
    h = await hooks();
    dir = path.join(workspaceRoot(), 'generated-compare');
    for (const [name, r] of [['healthy', { seed: 101, slots: 32 }], ['degraded', { seed: 102, slots: 24 }]] as const) {
      const gen = await generateRun({ ...DEFAULT_OPTIONS, ...PRESETS.sample, seed: r.seed, slots: r.slots, outDir: path.join(dir, name), runId: name });
      const db = path.join(dir, `${name}.duckdb`);
      const res = runCli(['analyze', '--run', gen.files.k6, '--spans', gen.files.spans, '--db', db, '--quiet']);
      assert.ok(res.status !== null && res.status <= 2, res.stderr);
      const opened = await vscode.commands.executeCommand<{ runId: string } | undefined>('phasewise.openRun', { run: [gen.files.k6], spans: [gen.files.spans], contract: null, showReport: false });
      assert.ok(opened !== undefined, `Open Run of the ${name} run returned nothing`);
      sides[name] = { runId: opened.runId, db };
    }
    await config().update('compare.resamples', RESAMPLES, vscode.ConfigurationTarget.Global);
    await config().update('compare.seed', SEED, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async function () {
    this.timeout(60_000);
    await config().update('compare.resamples', undefined, vscode.ConfigurationTarget.Global);
    await config().update('compare.seed', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const s of Object.values(sides)) await vscode.commands.executeCommand('phasewise.removeRun', s.runId);
  });

  test('Compare Runs…: the webview received what phasewise compare --format json prints, and the queue moved', async function () {
    this.timeout(180_000);
    const expected = JSON.parse(cli(['compare', sides.healthy.db, sides.degraded.db, '--format', 'json', '--resamples', String(RESAMPLES), '--seed', String(SEED)])) as Comparison;
    const returned = await vscode.commands.executeCommand<string | undefined>('phasewise.compareRuns', sides.healthy.runId, sides.degraded.runId);
    assert.ok(returned !== undefined, 'Compare Runs returned nothing (an error was shown)');
    const panel = await waitFor('the comparison webview to receive its comparison', 60_000, () =>
      h.comparePanels().find((p) => p.base === sides.healthy.runId && p.head === sides.degraded.runId && p.messages.some((m) => m.dir === 'out' && m.method === 'compare/didLoad')),
    );
    const loaded = panel.messages.find((m) => m.dir === 'out' && m.method === 'compare/didLoad');
    const received = JSON.parse((loaded?.params as { comparison: string }).comparison) as Comparison;
    assert.deepStrictEqual(withoutLabels(received), withoutLabels(expected));
    assert.strictEqual(received.resamples, RESAMPLES);
    assert.strictEqual(received.seed, SEED);
    assert.strictEqual(received.same_experiment, true, received.differences.join('; '));
    assert.strictEqual(received.base.label, h.runs().find((r) => r.id === sides.healthy.runId)?.label);
    const queue = received.moved.find((m) => m.metric === 'gpu_queue_ms' && m.stat === 'p95');
    assert.ok(queue !== undefined && queue.ci_low > 0, `gpu_queue_ms p95 moved up: ${JSON.stringify(received.moved)}`);
    assert.ok(panel.messages.some((m) => m.dir === 'in' && m.method === 'webview/ready'), 'the webview said it was ready');
  });

  test('Compare Runs… with a database file as HEAD: the same comparison as with the run', async function () {
    this.timeout(180_000);
    const expected = JSON.parse(cli(['compare', sides.healthy.db, sides.degraded.db, '--format', 'json', '--resamples', String(RESAMPLES), '--seed', String(SEED)])) as Comparison;
    const text = await vscode.commands.executeCommand<string | undefined>('phasewise.compareRuns', sides.healthy.runId, { file: sides.degraded.db });
    assert.ok(text !== undefined, 'Compare Runs returned nothing');
    const c = JSON.parse(text) as Comparison;
    assert.deepStrictEqual(withoutLabels(c), withoutLabels(expected));
    assert.strictEqual(c.head.label, sides.degraded.db);
  });

  test('Query Run…: the rows equal phasewise sql --format json; a bad column gives DuckDB\'s message; Export CSV equals --format csv', async function () {
    this.timeout(180_000);
    const run = sides.healthy.runId;
    const sql = 'SELECT request_no, trace_id, outcome, status_class, matched, client_total_ms, gpu_queue_ms FROM pairs ORDER BY request_no LIMIT 200';
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.queryRun', run), true);
    const panel = await waitFor('the query webview to receive the views', 60_000, () => h.panels().find((p) => p.view === 'query' && p.runId === run && p.messages.some((m) => m.dir === 'out' && m.method === 'query/didLoad')));
    const views = (panel.messages.find((m) => m.method === 'query/didLoad')?.params as { views: { name: string }[] }).views.map((v) => v.name);
    const help = cli(['sql', '--help']);
    for (const v of views) assert.ok(help.includes(`  ${v}: `), `${v} is documented in phasewise sql --help`);
    assert.ok(views.includes('pairs') && views.includes('spans'), views.join(', '));

    const ask = async (id: number, text: string): Promise<{ columns: string[]; rows: unknown[][]; error: string | null }> => {
      assert.ok(h.deliver('query', run, null, webviewRequest(id, 'query/run', { sql: text })));
      const r = await waitFor(`the answer to query ${id}`, 60_000, () => reply(h.panels().find((p) => p.view === 'query' && p.runId === run), id));
      return r.params as { columns: string[]; rows: unknown[][]; error: string | null };
    };
    const answer = await ask(9001, sql);
    assert.strictEqual(answer.error, null);
    const expected = JSON.parse(cli(['sql', '--db', sides.healthy.db, '--format', 'json', sql])) as { columns: { name: string }[]; rows: Record<string, unknown>[] };
    assert.deepStrictEqual(answer.columns, expected.columns.map((c) => c.name));
    assert.strictEqual(answer.rows.length, 200);
    assert.deepStrictEqual(answer.rows, expected.rows.map((r) => expected.columns.map((c) => r[c.name])));

    const bad = await ask(9002, 'SELECT nope FROM pairs');
    const cliBad = runCli(['sql', '--db', sides.healthy.db, 'SELECT nope FROM pairs']);
    assert.notStrictEqual(cliBad.status, 0);
    assert.ok(bad.error?.startsWith('DuckDB could not run the query: Binder Error: Referenced column "nope" not found'), String(bad.error));
    const duckdbLine = /Binder Error: [^\n]*/.exec(cliBad.stderr)?.[0];
    assert.ok(duckdbLine !== undefined && String(bad.error).includes(duckdbLine.replace(/\.$/, '')), `${bad.error} vs ${cliBad.stderr}`);
    const write = await ask(9003, "COPY (SELECT 1) TO '/tmp/phasewise-should-not-exist.csv'");
    assert.ok(write.error?.startsWith('The query was refused: it is a statement that is not a SELECT'), String(write.error));

    const target = path.join(dir, 'query.csv');
    assert.strictEqual(await h.exportQueryCsv(run, sql, target), target);
    assert.strictEqual(fs.readFileSync(target, 'utf8'), cli(['sql', '--db', sides.healthy.db, '--format', 'csv', sql]));
  });

  test('Export Pairs…: the CSV equals phasewise export byte for byte; .parquet writes Parquet', async function () {
    this.timeout(180_000);
    const run = sides.degraded.runId;
    const csv = path.join(dir, 'editor-pairs.csv');
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.exportPairs', run, csv), csv);
    const cliCsv = path.join(dir, 'cli-pairs.csv');
    const res = runCli(['export', '--db', sides.degraded.db, '--out', cliCsv]);
    assert.strictEqual(res.status, 0, res.stderr);
    const editorBytes = fs.readFileSync(csv);
    assert.ok(editorBytes.equals(fs.readFileSync(cliCsv)), 'the editor\'s CSV differs from the CLI\'s');
    const lines = editorBytes.toString('utf8').trimEnd().split('\n');
    const started = (JSON.parse(cli(['sql', '--db', sides.degraded.db, '--format', 'json', 'SELECT count(*) AS n FROM pairs'])) as { rows: { n: number }[] }).rows[0].n;
    assert.strictEqual(lines.length - 1, started);
    const parquet = path.join(dir, 'editor-pairs.parquet');
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.exportPairs', run, parquet), parquet);
    const bytes = fs.readFileSync(parquet);
    assert.strictEqual(bytes.subarray(0, 4).toString('latin1'), 'PAR1');
    assert.strictEqual(bytes.subarray(bytes.length - 4).toString('latin1'), 'PAR1');
    // nothing half-written is left beside the targets
    assert.deepStrictEqual(fs.readdirSync(dir).filter((f) => f.includes('.phasewise-')), []);
  });
});
