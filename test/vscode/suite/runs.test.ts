// The editor's runs inside a real extension host: Open Run on the bundled samples, the Runs view's items
// (icons, descriptions, tooltips) against the CLI's JSON report of the same files, the report and
// waterfall panels' messages (the real webviews render in the workbench; the suite reads what each panel
// received and posted, and plays the webview's requests), the Slow Traces view and its orderings
// against figures read from the files by hand, exports, drag and drop, re-analysis, cache and removal.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Report } from '../../../src/core/report/model';
import type { TraceModel } from '../../../src/core/analysis/trace/types';
import type { ReportViewModel } from '../../../src/core/report/view/types';
import { FIXTURE } from '../harness/workspace';
import { runCli } from './cli';
import { duckdbInProcess, inWorkspace, metrics, uiExpectations } from './context';
import { hooks, message, panelOf, reply, themeIconId, tooltipText, waitFor, webviewNotification, webviewRequest, type Hooks } from './hooks';

const samples = (f: string): string => inWorkspace(path.join(FIXTURE.samples, f));

function cliReport(args: string[]): Report {
  const res = runCli(['analyze', ...args, '--format', 'json']);
  try {
    return JSON.parse(res.stdout) as Report;
  } catch {
    assert.fail(`the CLI gave no JSON (exit ${String(res.status)}): ${res.stderr.slice(0, 1000)}`);
  }
}

/**
 * gpu_queue per matched success, read from the files without Phasewise: samples/ has one
 * `inference.acquire_slot` span per trace, and a request is matched when its trace has exactly one root.
 */
function queueByHand(): Map<string, number> {
  const queue = new Map<string, number>();
  const roots = new Map<string, number>();
  for (const line of fs.readFileSync(samples('spans.otlp.jsonl'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const doc = JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: { traceId: string; name: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string }[] }[] }[] };
    for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) {
      const id = s.traceId.toLowerCase();
      if (s.name === 'inference.acquire_slot') queue.set(id, Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6);
      if (s.name === 'POST /v1/chat/completions' && s.kind === 2) roots.set(id, (roots.get(id) ?? 0) + 1);
    }
  }
  const ok = new Set<string>();
  for (const line of fs.readFileSync(samples('k6.ndjson'), 'utf8').split('\n')) {
    if (!line.includes('"http_req_duration"') || !line.includes('"Point"')) continue;
    const p = JSON.parse(line) as { data: { tags: { status?: string }; metadata?: { trace_id?: string } } };
    const id = p.data.metadata?.trace_id?.toLowerCase();
    if (id !== undefined && p.data.tags.status === '200' && roots.get(id) === 1) ok.add(id);
  }
  return new Map([...queue].filter(([id]) => ok.has(id)));
}

suite('runs: Open Run, the Runs and Slow Traces views, the report and waterfall panels', () => {
  let h: Hooks;
  let runId: string;
  let cli: Report;
  const contract = (): string => samples('steady.loadcontract.yaml');

  suiteSetup(async function () {
    this.timeout(180_000);
    h = await hooks();
    cli = cliReport(['--run', samples('k6.ndjson'), '--spans', samples('spans.otlp.jsonl'), '--contract', contract()]);
    const opened = await vscode.commands.executeCommand<{ runId: string } | undefined>('phasewise.openRun', { run: [samples('k6.ndjson')], spans: [samples('spans.otlp.jsonl')], contract: contract() });
    assert.ok(opened !== undefined, 'Open Run returned nothing');
    runId = opened.runId;
  });

  test('the run item: verdict icon and text, files, join coverage, each owner against its budget with n, population and window', () => {
    const run = h.runItems().find((r) => r.node.runId === runId);
    assert.ok(run !== undefined, 'the run is not in the Runs view');
    assert.strictEqual(run.item.label, 'k6.ndjson + spans.otlp.jsonl');
    assert.strictEqual(cli.verdict.status, 'pass');
    assert.strictEqual(run.item.description, 'PASS');
    assert.strictEqual(themeIconId(run.item), 'pass');
    assert.ok(tooltipText(run.item).includes('Verdict: **PASS**'), tooltipText(run.item));
    const children = h.runItems(run.node);
    const labels = children.map((c) => String(c.item.label));
    assert.deepStrictEqual(labels[0], 'Files (3)');
    const files = h.runItems(children[0].node).map((c) => `${String(c.item.label)} | ${String(c.item.description)}`);
    assert.deepStrictEqual(files.map((f) => f.split(' | ')[0]), ['k6.ndjson', 'spans.otlp.jsonl', 'steady.loadcontract.yaml']);
    const spansInput = cli.inputs.find((i) => i.side === 'server');
    assert.ok(files[1].includes(`otlp-json`) && files[1].includes(`${spansInput?.records.toLocaleString('en-US')} spans`), files[1]);

    const join = children.find((c) => c.node.type === 'join');
    assert.ok(join !== undefined);
    const coverage = ((cli.join.coverage as number) * 100).toFixed(1);
    assert.strictEqual(join.item.label, `join coverage ${coverage}%`);
    assert.strictEqual(join.item.description, `${cli.join.matched} of ${cli.join.client_requests} requests`);
    assert.ok(tooltipText(join.item).includes(`roots no client request carries: ${cli.join.orphan_server_roots}`), tooltipText(join.item));

    const owners = children.filter((c) => c.node.type === 'owner');
    assert.deepStrictEqual(owners.map((o) => String(o.item.label).split(' p95 ')[0]), ['network envelope', 'gateway', 'gpu queue', 'generation', 'unattributed server']);
    for (const o of owners) {
      const metric = `${String(o.item.label).split(' p95 ')[0].replace(/ /g, '_')}_ms`;
      const gate = cli.gates.find((g) => g.id === `budget.${metric}.p95`);
      assert.ok(gate !== undefined, `no budget gate for ${metric}`);
      assert.strictEqual(themeIconId(o.item), gate.status === 'pass' ? 'pass' : 'error', metric);
      const tip = tooltipText(o.item);
      assert.ok(tip.includes(`n = ${gate.n?.toLocaleString('en-US')}`) && tip.includes(gate.window), `${metric}: ${tip}`);
      assert.ok(tip.includes(`n = ${cli.metrics[metric].n.toLocaleString('en-US')})`), `${metric} whole-run n: ${tip}`);
      assert.ok(String(o.item.description).startsWith('budget ≤ '), String(o.item.description));
    }
    const gates = children.find((c) => c.node.type === 'gates');
    const others = cli.gates.filter((g) => g.category !== 'budget');
    assert.strictEqual(gates?.item.description, `${others.length} · all passed`);
  });

  test('DuckDB ran only on the worker thread; the status bar shows the verdict', () => {
    assert.strictEqual(h.workerStarted(), true);
    assert.deepStrictEqual(duckdbInProcess().modules, [], 'the extension host loaded @duckdb modules itself');
    assert.strictEqual(h.statusBarText(), '$(pass) PASS');
  });

  test('the report panel: ready, then didLoad with the run\'s model; listTraces, openTrace, openContract and copy answered', async function () {
    this.timeout(120_000);
    await vscode.commands.executeCommand('phasewise.showReport', runId);
    const loaded = await waitFor('the report webview to be ready and loaded', 60_000, () => {
      const p = panelOf(h, 'report', runId);
      return message(p, 'in', 'webview/ready') !== undefined && message(p, 'out', 'report/didLoad') !== undefined ? p : undefined;
    });
    const didLoad = message(loaded, 'out', 'report/didLoad')?.params as { run: string; model: string };
    assert.strictEqual(didLoad.run, runId);
    const model = JSON.parse(didLoad.model) as ReportViewModel;
    assert.deepStrictEqual(model.report.verdict, cli.verdict);
    assert.deepStrictEqual(model.report.join, cli.join);
    assert.strictEqual(model.gate_links['slo.total_ms.p95']?.path, contract());

    // A window's traces, as a click on the window chart asks for them.
    const w = cli.windows.windows.find((x) => x.client_total_ms.n >= 5);
    assert.ok(w !== undefined);
    assert.ok(h.deliver('report', runId, null, webviewRequest(7001, 'report/listTraces', { selection: { kind: 'window', index: w.index }, limit: 5 })));
    const listed = await waitFor('the listTraces reply', 30_000, () => reply(panelOf(h, 'report', runId), 7001));
    const result = listed.params as { traces: { trace_id: string; client_total_ms: number }[]; total: number };
    assert.strictEqual(result.total, w.client_total_ms.n);
    assert.strictEqual(result.traces.length, 5);
    assert.ok(result.traces.every((t, i, a) => i === 0 || a[i - 1].client_total_ms >= t.client_total_ms));

    // Opening the slowest trace: its waterfall panel gets that trace.
    const slow = cli.slow_traces[0].trace_id;
    h.deliver('report', runId, null, webviewNotification('report/openTrace', { trace_id: slow }));
    const wf = await waitFor('the waterfall of the slowest trace', 60_000, () => {
      const p = panelOf(h, 'waterfall', runId, slow);
      return message(p, 'out', 'waterfall/didLoad') !== undefined ? p : undefined;
    });
    const trace = JSON.parse((message(wf, 'out', 'waterfall/didLoad')?.params as { trace: string }).trace) as TraceModel;
    assert.strictEqual(trace.trace_id, slow);
    assert.deepStrictEqual(trace.breakdown.client_total_ms, cli.slow_traces[0].client_total_ms);

    // The gate's contract line: the contract opens with the cursor there.
    const gate = cli.gates.find((g) => g.id === 'slo.total_ms.p95');
    const line = Number(/:(\d+)$/.exec(gate?.origin ?? '')?.[1]);
    h.deliver('report', runId, null, webviewNotification('report/openContract', { path: contract(), line, gate: 'slo.total_ms.p95' }));
    const editor = await waitFor('the contract editor', 20_000, () => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.fsPath === contract() ? e : undefined;
    });
    assert.strictEqual(editor.selection.active.line, line - 1);

    h.deliver('report', runId, null, webviewNotification('webview/copy', { text: 'client_total_ms=1 copied by the suite', what: 'reconciliation' }));
    // The web workbench's clipboard needs the browser's permission (the harness grants it); a read
    // that waits on a permission prompt is bounded.
    const read = (): Promise<string | undefined> => Promise.race([Promise.resolve(vscode.env.clipboard.readText()), new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000))]);
    assert.strictEqual(await waitFor('the clipboard', 10_000, async () => ((await read()) === 'client_total_ms=1 copied by the suite' ? true : undefined)), true);
    metrics.reportPanelMessages = (panelOf(h, 'report', runId)?.messages ?? []).map((m) => `${m.dir} ${m.method}`);
  });

  test('the waterfall panel answers compare with the typical trace of the route', async function () {
    this.timeout(60_000);
    const slow = cli.slow_traces[0].trace_id;
    h.deliver('waterfall', runId, slow, webviewRequest(7002, 'waterfall/compare', { trace_id: slow }));
    const answer = await waitFor('the compare reply', 30_000, () => reply(panelOf(h, 'waterfall', runId, slow), 7002));
    const r = answer.params as { comparison: string | null; reason: string | null };
    assert.ok(r.comparison !== null, r.reason ?? 'no comparison');
    const c = JSON.parse(r.comparison) as { typical: TraceModel; group_size: number; phases: { name: string; delta_ms: number | null }[] };
    assert.notStrictEqual(c.typical.trace_id, slow);
    const total = c.phases.find((p) => p.name === 'client_total');
    assert.ok(Math.abs((total?.delta_ms ?? NaN) - ((cli.slow_traces[0].client_total_ms as number) - (c.typical.breakdown.client_total_ms as number))) < 1e-6);
  });

  test('Slow Traces: client-total order is the report\'s; ordered by GPU queue it is the files\' by hand', async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('phasewise.showReport', runId);
    const first = await waitFor('the slow traces of the run', 20_000, () => {
      const l = h.slowTraces();
      return l.runId === runId && l.order === 'client_total' && l.traces.length > 0 ? l : undefined;
    });
    assert.deepStrictEqual(first.traces.map((t) => t.row.trace.trace_id), cli.slow_traces.map((t) => t.trace_id));
    assert.strictEqual(first.total, cli.join.matched);
    try {
      await vscode.commands.executeCommand('phasewise.orderSlowTraces', 'gpu_queue');
      const byQueue = await waitFor('the list by GPU queue', 20_000, () => {
        const l = h.slowTraces();
        return l.order === 'gpu_queue' ? l : undefined;
      });
      const hand = [...queueByHand()].sort((a, b) => b[1] - a[1]).slice(0, byQueue.traces.length);
      assert.strictEqual(byQueue.total, queueByHand().size);
      assert.deepStrictEqual(byQueue.traces.map((t) => t.row.trace.trace_id), hand.map(([id]) => id));
    } finally {
      await vscode.commands.executeCommand('phasewise.orderSlowTraces', 'client_total');
    }
  });

  test('Show Trace… opens a trace of the run by ID; an ID the run does not hold is refused', async function () {
    this.timeout(60_000);
    const id = cli.slow_traces[3].trace_id;
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.showTrace', runId, id.toUpperCase()), true);
    await waitFor('the waterfall of the shown trace', 30_000, () => (message(panelOf(h, 'waterfall', runId, id), 'out', 'waterfall/didLoad') !== undefined ? true : undefined));
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.showTrace', runId, 'ab'.repeat(16)), false);
  });

  test('Export Report as HTML and Markdown writes the files the CLI writes', async function () {
    this.timeout(120_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-export-'));
    try {
      const md = path.join(dir, 'report.md');
      assert.strictEqual(await vscode.commands.executeCommand('phasewise.exportReport', runId, { format: 'markdown', path: md }), md);
      const cliMd = runCli(['analyze', '--run', samples('k6.ndjson'), '--spans', samples('spans.otlp.jsonl'), '--contract', contract(), '--format', 'md']).stdout;
      assert.strictEqual(fs.readFileSync(md, 'utf8'), cliMd);
      const html = path.join(dir, 'report.html');
      await vscode.commands.executeCommand('phasewise.exportReport', runId, { format: 'html', path: html });
      const text = fs.readFileSync(html, 'utf8');
      assert.ok(text.includes("default-src 'none'") && text.includes(`"trace_id":"${cli.slow_traces[0].trace_id}"`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('Re-analyse with another contract reuses the run\'s database (same key) and shows that contract\'s verdict', async function () {
    this.timeout(120_000);
    const before = h.runs().find((r) => r.id === runId);
    const saturation = samples('saturation.loadcontract.yaml');
    const expected = cliReport(['--run', samples('k6.ndjson'), '--spans', samples('spans.otlp.jsonl'), '--contract', saturation]);
    const summary = await vscode.commands.executeCommand<{ verdict: { status: string } } | undefined>('phasewise.reanalyzeWithContract', runId, saturation);
    assert.strictEqual(summary?.verdict.status, expected.verdict.status);
    const after = h.runs().find((r) => r.id === runId);
    assert.strictEqual(after?.key, before?.key);
    assert.strictEqual(after?.inputs.contract, saturation);
    // The open report follows the new analysis.
    await waitFor('the report to load the new analysis', 30_000, () => {
      const loads = (panelOf(h, 'report', runId)?.messages ?? []).filter((m) => m.dir === 'out' && m.method === 'report/didLoad');
      const last = loads[loads.length - 1]?.params as { model: string } | undefined;
      return last !== undefined && (JSON.parse(last.model) as ReportViewModel).report.verdict.status === expected.verdict.status ? true : undefined;
    });
    await vscode.commands.executeCommand('phasewise.reanalyzeWithContract', runId, contract());
  });

  test('a malformed span file: no run, no panel, an error naming file and line', async function () {
    this.timeout(60_000);
    const before = h.runs().length;
    const panels = h.panels().length;
    const bad = inWorkspace(FIXTURE.malformedSpans);
    const r = await vscode.commands.executeCommand('phasewise.openRun', { run: [samples('k6.ndjson')], spans: [bad] });
    assert.strictEqual(r, undefined);
    assert.strictEqual(h.runs().length, before);
    assert.strictEqual(h.panels().length, panels);
    uiExpectations.notifications.push({ contains: [`${path.basename(bad)}:${FIXTURE.malformedLine}`, 'expected k6 JSON output'], reason: 'Open Run on a malformed span file' });
  });

  test('files dropped onto the Runs view open as a run; Remove takes it out; Clear Run Cache deletes the databases', async function () {
    this.timeout(180_000);
    const before = new Set(h.runs().map((r) => r.id));
    await h.drop([samples('requests.ndjson'), samples('spans.otlp.jsonl')]);
    const dropped = h.runs().find((r) => !before.has(r.id));
    assert.ok(dropped !== undefined, 'the drop opened no run');
    assert.deepStrictEqual(dropped.inputs.run, [samples('requests.ndjson')]);
    const expected = cliReport(['--run', samples('requests.ndjson'), '--spans', samples('spans.otlp.jsonl')]);
    assert.strictEqual(dropped.summary?.join.matched, expected.join.matched);
    assert.strictEqual(await vscode.commands.executeCommand('phasewise.removeRun', dropped.id), true);
    assert.ok(!h.runs().some((r) => r.id === dropped.id));
    const deleted = await vscode.commands.executeCommand<number>('phasewise.clearRunCache', true);
    assert.ok(typeof deleted === 'number' && deleted >= 2, `deleted ${String(deleted)}`);
    // The run stays listed and is loaded from its files again when next used.
    await vscode.commands.executeCommand('phasewise.showReport', runId);
    const slow = await vscode.commands.executeCommand('phasewise.showTrace', runId, cli.slow_traces[1].trace_id);
    assert.strictEqual(slow, true);
  });
});
