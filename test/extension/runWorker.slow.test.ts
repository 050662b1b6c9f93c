// The run worker in plain Node (no VS Code): a real worker thread (out/src/extension/runs/runWorker.js
// next to the compiled client), real DuckDB, real files. Answers are checked against the core run in
// this process, against samples/expected.json (the generator's truth) and against figures read from
// the files by hand.
import * as assert from 'assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { analyzeFiles } from '../../src/core/run/analyzeFiles';
import { CancelledError, InputError } from '../../src/core/errors';
import { renderMarkdownReport } from '../../src/core/report/markdown';
import type { TraceModel } from '../../src/core/analysis/trace/types';
import { defaultRunWorkerFile, RunClient } from '../../src/extension/runs/runClient';
import * as P from '../../src/extension/runs/workerProtocol';
import { fixture, repoRoot } from '../helpers/paths';

const samples = path.join(repoRoot, 'samples');
const k6 = path.join(samples, 'k6.ndjson');
const spans = path.join(samples, 'spans.otlp.jsonl');
const steady = path.join(samples, 'steady.loadcontract.yaml');
const saturation = path.join(samples, 'saturation.loadcontract.yaml');
const settings: P.RunSettings = { slowTraceCount: 10 };

interface SamplesTruth {
  counts: { matched: number; started: number; lost_roots: number };
  matched_succeeded: Record<string, { n: number; p95: number }>;
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof Error);
    return err;
  }
  assert.fail('expected a rejection');
}

/**
 * Per trace, read from the files without Phasewise: the `inference.acquire_slot` span's duration
 * (samples/ has one per trace: the gpu_queue phase), for the traces with exactly one root
 * `POST /v1/chat/completions` whose k6 request succeeded (status 200): the matched successes.
 */
function queueByHand(): Map<string, number> {
  const queue = new Map<string, number>();
  const roots = new Map<string, number>();
  for (const line of readFileSync(spans, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const doc = JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: { traceId: string; name: string; kind: number; parentSpanId?: string; startTimeUnixNano: string; endTimeUnixNano: string }[] }[] }[] };
    for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) {
      const id = s.traceId.toLowerCase();
      if (s.name === 'inference.acquire_slot') queue.set(id, Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6);
      if (s.name === 'POST /v1/chat/completions' && s.kind === 2) roots.set(id, (roots.get(id) ?? 0) + 1);
    }
  }
  const ok = new Set<string>();
  for (const line of readFileSync(k6, 'utf8').split('\n')) {
    if (!line.includes('"http_req_duration"') || !line.includes('"Point"')) continue;
    const p = JSON.parse(line) as { data: { tags: { status?: string }; metadata?: { trace_id?: string } } };
    const id = p.data.metadata?.trace_id?.toLowerCase();
    if (id !== undefined && p.data.tags.status === '200' && roots.get(id) === 1) ok.add(id);
  }
  return new Map([...queue].filter(([id]) => ok.has(id)));
}

describe('run worker', function () {
  this.timeout(180_000);
  let dir: string;
  let client: RunClient;
  const logs: string[] = [];

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-runworker-'));
    client = new RunClient({ onLog: (level, m) => logs.push(`${level} ${m}`) });
  });
  after(async () => {
    await client.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the worker script next to the compiled client and does not start it before a request', () => {
    assert.ok(existsSync(defaultRunWorkerFile()), defaultRunWorkerFile());
    assert.strictEqual(new RunClient().started, false);
  });

  it('opens samples/ with a contract: the same verdict, join and figures as analyzeFiles, then reuses the database', async () => {
    const inputs = { run: [k6], spans: [spans], contract: steady };
    const files: string[] = [];
    const analysing: string[] = [];
    const first = await client.job(P.OpenRun, { dir, inputs, settings, base: null }, (e) => {
      if (e.file !== null) files.push(e.file);
      if (e.message.startsWith('analysing')) analysing.push(e.message);
    });
    const local = await analyzeFiles({ run: [k6], spans: [spans], contract: steady });
    assert.strictEqual(first.reused, false);
    assert.deepStrictEqual(files, [k6, spans]);
    // The report's parts as they come: the verdict, join and owners first, then each later section.
    assert.deepStrictEqual(analysing, ['analysing', ...['verdict, join coverage and owners of the p95', 'groups', 'window series and diagnoses', 'join bias', 'user-observed figures', 'provenance', 'stages'].map((p) => `analysing: ${p} ready`)]);
    assert.deepStrictEqual(first.summary.verdict, local.verdict);
    assert.deepStrictEqual(first.summary.join.matched, local.join.matched);
    assert.strictEqual(first.summary.join.coverage, local.join.coverage);
    const truth = JSON.parse(readFileSync(path.join(samples, 'expected.json'), 'utf8')) as SamplesTruth;
    assert.strictEqual(first.summary.join.matched, truth.counts.matched);
    assert.strictEqual(first.summary.join.lost_roots, truth.counts.lost_roots);
    // Each owner's whole-run p95 against the generator's truth; the budget row against the gate.
    for (const o of first.summary.owners) {
      const t = truth.matched_succeeded[o.metric];
      assert.ok(t !== undefined, `no truth for ${o.metric}`);
      assert.strictEqual(o.n, t.n, o.metric);
      assert.ok(Math.abs((o.p95 ?? NaN) - t.p95) < 1e-6, `${o.metric} p95 ${o.p95} vs ${t.p95}`);
      const gate = local.gates.find((g) => g.id === `budget.${o.metric}.p95`);
      assert.strictEqual(o.budget?.observed, gate?.observed, o.metric);
      assert.strictEqual(o.budget?.status, gate?.status);
    }
    assert.deepStrictEqual(first.summary.owners.map((o) => o.owner), ['network_envelope', 'gateway', 'gpu_queue', 'generation', 'unattributed_server']);
    // The database and its manifest are there (and, the run being open, the analysis's WAL and the
    // database's lock), nothing half-loaded.
    assert.deepStrictEqual(readdirSync(dir).filter((f) => !f.endsWith('.wal')).sort(), [`${first.key}.duckdb`, `${first.key}.duckdb.phasewise-lock`, `${first.key}.json`]);
    // The contract's plateau warning reached the host's log.
    assert.ok(logs.some((l) => l.includes('plateau-too-short')), logs.join('\n'));

    // The same files again (a reload): the database is reused, nothing is parsed.
    files.length = 0;
    const again = await client.job(P.OpenRun, { dir, inputs, settings, base: null }, (e) => e.file !== null && files.push(e.file));
    assert.strictEqual(again.reused, true);
    assert.strictEqual(again.key, first.key);
    assert.deepStrictEqual(files, []);
    assert.deepStrictEqual(again.summary.verdict, first.summary.verdict);

    // Another contract: same key (the contract is not part of it), no load, its own verdict.
    const other = await client.job(P.OpenRun, { dir, inputs: { ...inputs, contract: saturation }, settings, base: null });
    const localOther = await analyzeFiles({ run: [k6], spans: [spans], contract: saturation });
    assert.strictEqual(other.key, first.key);
    assert.strictEqual(other.reused, true);
    assert.deepStrictEqual(other.summary.verdict, localOther.verdict);
    assert.strictEqual(other.summary.contract, saturation);
  });

  it('serves the views of the open run: report, trace, slow traces by queue, window traces, comparison, exports, a query', async () => {
    const opened = await client.job(P.OpenRun, { dir, inputs: { run: [k6], spans: [spans], contract: steady }, settings, base: null });
    const key = opened.key;
    const report = JSON.parse((await client.call(P.GetReport, { key })).report) as ReturnType<typeof JSON.parse>;
    assert.deepStrictEqual(report.verdict, opened.summary.verdict);
    const view = JSON.parse((await client.call(P.ReportView, { key })).model) as { title: string; report: { join: { matched: number } } };
    assert.strictEqual(view.report.join.matched, opened.summary.join.matched);
    assert.strictEqual(view.title, 'k6.ndjson + spans.otlp.jsonl');

    // Slow traces by queue time against the files read by hand.
    const byHand = [...queueByHand()].sort((a, b) => b[1] - a[1]).slice(0, 5);
    const slow = await client.call(P.SlowTraces, { key, order: 'gpu_queue', limit: 5 });
    assert.strictEqual(slow.total, queueByHand().size);
    assert.deepStrictEqual(slow.traces.map((t) => t.trace.trace_id), byHand.map(([id]) => id));
    slow.traces.forEach((t, i) => assert.ok(Math.abs((t.trace.phases.gpu_queue_ms ?? NaN) - byHand[i][1]) < 1e-6, `${t.trace.trace_id}`));
    // Each row's dominant owner is its largest positive figure, its share of the client total.
    for (const { trace: t, dominant } of slow.traces) {
      const figures: [string, number | null][] = [['network_envelope', t.network_envelope_ms], ...Object.entries(t.phases).map(([k, v]): [string, number] => [k.replace(/_ms$/, ''), v]), ['unattributed_server', t.unattributed_server_ms]];
      const [owner, ms] = figures.filter((f): f is [string, number] => f[1] !== null && f[1] > 0).sort((a, b) => b[1] - a[1])[0];
      assert.deepStrictEqual(dominant, { owner, ms, share: ms / (t.client_total_ms as number) });
    }
    await assert.rejects(client.call(P.SlowTraces, { key, order: 'tokens', limit: 5 }), /no figure 'tokens'/);

    // The slowest trace's model: its ID, its root, and the reconcile lines of the CLI.
    const id = opened.summary.slow_traces[0].trace.trace_id;
    const trace = JSON.parse((await client.call(P.Trace, { key, trace_id: id.toUpperCase() })).trace ?? 'null') as TraceModel;
    assert.strictEqual(trace.trace_id, id);
    assert.strictEqual(trace.matched, true);
    assert.ok(trace.spans.some((s) => s.name === 'inference.generate'));
    assert.strictEqual(trace.reconciliation[0], `trace_id=${id}`);
    assert.ok(trace.reconciliation.some((l) => l.startsWith('network_envelope_ms=')));
    assert.strictEqual((await client.call(P.Trace, { key, trace_id: 'ab'.repeat(16) })).trace, null);
    const badId = await rejection(client.call(P.Trace, { key, trace_id: 'not-an-id' }));
    assert.ok(badId instanceof InputError && badId.message.includes('32 hex digits'), badId.message);

    const cmp = await client.call(P.Compare, { key, trace_id: id });
    assert.ok(cmp.comparison !== null, cmp.reason ?? '');
    const listed = await client.call(P.ListTraces, { key, selection: { kind: 'window', index: 1 }, limit: 3 });
    assert.ok(listed.total > 0 && listed.traces.length === 3);
    assert.ok(listed.traces[0].client_total_ms! >= listed.traces[2].client_total_ms!);

    const md = path.join(dir, 'out.md');
    await client.call(P.ExportReport, { key, format: 'markdown', path: md });
    assert.strictEqual(readFileSync(md, 'utf8'), renderMarkdownReport(report));
    const html = path.join(dir, 'out.html');
    await client.call(P.ExportReport, { key, format: 'html', path: html });
    assert.ok(readFileSync(html, 'utf8').includes(`"trace_id":"${id}"`));
    const traceHtml = path.join(dir, 'trace.html');
    await client.call(P.ExportTrace, { key, trace_id: id, format: 'html', path: traceHtml });
    assert.ok(readFileSync(traceHtml, 'utf8').startsWith('<!DOCTYPE html>'));
    for (const f of [md, html, traceHtml]) rmSync(f);

    const rows = JSON.parse((await client.call(P.Query, { key, sql: 'SELECT count(*) AS n FROM spans WHERE name = $1', params: ['inference.acquire_slot'] })).rows) as { n: number }[];
    assert.strictEqual(rows[0].n, [...readFileSync(spans, 'utf8').matchAll(/"name":"inference\.acquire_slot"/g)].length);
    await assert.rejects(client.call(P.Query, { key, sql: 'DELETE FROM spans', params: [] }), /read-only/);
  });

  it('the contract form\'s messages: the phase preview counts what the selectors pick (by hand from the files), the gates are the Report\'s', async () => {
    const opened = await client.job(P.OpenRun, { dir, inputs: { run: [k6], spans: [spans], contract: steady }, settings, base: null });
    const key = opened.key;
    const names = [...readFileSync(spans, 'utf8').matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]);
    const count = (n: string): number => names.filter((x) => x === n).length;
    const { picks } = await client.call(P.PhasePreview, {
      key,
      phases: [
        { name: 'queue', anyOf: [{ names: ['inference.acquire_slot'] }] },
        { name: 'edges', anyOf: [{ names: ['auth.check', 'response.write'] }] },
        { name: 'none', anyOf: [{ names: ['no.such.span'] }] },
      ],
    });
    assert.strictEqual(picks.queue.spans, count('inference.acquire_slot'));
    assert.deepStrictEqual(picks.edges.names.map((n) => n.count).reduce((a, b) => a + b, 0), count('auth.check') + count('response.write'));
    assert.deepStrictEqual(picks.none, { spans: 0, traces: 0, names: [] });
    // The preview left the run's own analysis alone: its report is still the steady contract's.
    const report = JSON.parse((await client.call(P.GetReport, { key })).report) as { gates: { id: string; status: string; observed: number | null }[]; verdict: { status: string } };
    const gates = await client.call(P.Gates, { key });
    assert.strictEqual(gates.verdict.status, report.verdict.status);
    assert.deepStrictEqual(
      gates.gates.map((g) => [g.id, g.status, g.observed]),
      report.gates.map((g) => [g.id, g.status, typeof g.observed === 'number' && Number.isFinite(g.observed) ? g.observed : null]),
    );
    assert.ok(gates.gates.some((g) => g.id.startsWith('budget.')) && gates.gates.some((g) => g.id.startsWith('slo.')));
  });

  it('a malformed file is an InputError naming file and line; a cancelled load leaves no database and the previous run intact', async () => {
    const bad = fixture('extension', 'not-a-trace.jsonl');
    const err = await rejection(client.job(P.OpenRun, { dir, inputs: { run: [k6], spans: [bad], contract: null }, settings, base: null }));
    assert.ok(err instanceof InputError, err.message);
    assert.strictEqual(err.file, bad);
    assert.strictEqual(err.line, 1);

    const before = readdirSync(dir).sort();
    const joined = path.join(repoRoot, 'test', 'fixtures', 'shared-samples', 'joined-otel-js');
    let cancel: (() => void) | undefined;
    const signal = {
      isCancellationRequested: false,
      onCancellationRequested(listener: () => void) {
        cancel = listener;
        return { dispose: () => undefined };
      },
    };
    const cancelled = await rejection(
      client.job(P.OpenRun, { dir, inputs: { run: [path.join(joined, 'k6.ndjson')], spans: [path.join(joined, 'spans.otlp.jsonl')], contract: null }, settings, base: null }, () => cancel?.(), signal),
    );
    assert.ok(cancelled instanceof CancelledError, `${cancelled.name}: ${cancelled.message}`);
    assert.deepStrictEqual(readdirSync(dir).sort(), before, 'the cancelled load left files behind');
    const again = await client.job(P.OpenRun, { dir, inputs: { run: [k6], spans: [spans], contract: steady }, settings, base: null });
    assert.strictEqual(again.reused, true);
  });

  it('a contract with errors is a ContractError whose lines name the contract, the same as in this process', async () => {
    const contract = path.join(dir, 'broken.loadcontract.yaml');
    // Not YAML at all: an unclosed flow mapping on line 1.
    writeFileSync(contract, '{ slo: [1, 2\n');
    const local = await rejection(analyzeFiles({ run: [k6], spans: [], contract }));
    const err = await rejection(client.job(P.OpenRun, { dir, inputs: { run: [k6], spans: [], contract }, settings, base: null }));
    assert.strictEqual(err.name, 'ContractError', err.message);
    const lines = (err as unknown as { lines: string[] }).lines;
    assert.deepStrictEqual(lines, (local as unknown as { lines: string[] }).lines);
    assert.ok(lines[0].startsWith(`${contract}:2:1: error syntax`), lines.join('\n'));
    rmSync(contract);
  });

  it('Add Span Export: a run of the client file alone is extended by copying its database and loading only the spans', async () => {
    // A folder of its own: the run of both files is in `dir` already.
    const own = path.join(dir, 'add');
    const clientOnly = await client.job(P.OpenRun, { dir: own, inputs: { run: [k6], spans: [], contract: null }, settings, base: null });
    assert.strictEqual(clientOnly.summary.join.matched, 0);
    const files: string[] = [];
    const both = await client.job(P.OpenRun, { dir: own, inputs: { run: [k6], spans: [spans], contract: null }, settings, base: clientOnly.key }, (e) => e.file !== null && files.push(e.file));
    const local = await analyzeFiles({ run: [k6], spans: [spans] });
    // A new key (new inputs), loaded from the seed: only the span file was read.
    assert.notStrictEqual(both.key, clientOnly.key);
    assert.deepStrictEqual(files, [spans]);
    for (const k of ['matched', 'client_requests', 'server_spans', 'lost_roots'] as const) assert.strictEqual(both.summary.join[k], local.join[k], k);
    assert.deepStrictEqual(both.summary.verdict, local.verdict);
  });

  it('classifies a folder by content: run artifacts, span exports, contracts, and what it skipped', async () => {
    const c = await client.call(P.Classify, { paths: [samples] });
    assert.deepStrictEqual(c.run, [
      { path: path.join(samples, 'k6.ndjson'), format: 'k6-json' },
      { path: path.join(samples, 'requests.ndjson'), format: 'records-ndjson' },
    ]);
    assert.deepStrictEqual(c.spans, [{ path: spans, format: 'otlp-json' }]);
    assert.deepStrictEqual(c.folders, [samples]);
    assert.deepStrictEqual(c.contracts, ['saturation', 'steady', 'streaming'].map((n) => path.join(samples, `${n}.loadcontract.yaml`)));
    // expected.json is JSON but none of the formats; README.md is not a data file and is not opened.
    assert.deepStrictEqual(c.skipped.map((s) => path.basename(s.path)), ['expected.json']);
    assert.match(c.skipped[0].reason, /expected\.json:1: expected k6 JSON output/);
  });

  it('the live run: spans POSTed to the receiver are stored in its database and analysed as they arrive', async () => {
    const key = 'live-test';
    const jsonl = path.join(dir, 'received.otlp.jsonl');
    const events: string[] = [];
    const live = new RunClient({ onReceiverEvent: (e) => events.push(`${e.kind}:${e.stored_spans}`) });
    try {
      const { address } = await live.call(P.StartReceiver, { listen: '127.0.0.1:0', key, dir, jsonl, redact: [], settings });
      const lines = readFileSync(spans, 'utf8').split('\n').filter((l) => l.trim() !== '').slice(0, 3);
      const expectedSpans = lines.reduce((n, l) => n + [...l.matchAll(/"spanId"/g)].length, 0);
      const traces = new Set(lines.flatMap((l) => [...l.matchAll(/"traceId":"([0-9a-f]{32})"/g)].map((m) => m[1])));
      for (const body of lines) assert.strictEqual(await post(address, body), 200);
      const deadline = Date.now() + 20_000;
      while (!events.includes(`stored:${expectedSpans}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(events.includes(`stored:${expectedSpans}`), events.join(' '));
      const a = await live.job(P.Analyze, { key, dir, contract: null, settings });
      assert.strictEqual(a.summary.join.server_spans, expectedSpans);
      assert.strictEqual(a.summary.join.server_traces, traces.size);
      const stopped = (await live.call(P.StopReceiver, {})) as { summary: { accepted_spans: number } } | null;
      assert.strictEqual(stopped?.summary.accepted_spans, expectedSpans);
      assert.strictEqual(readFileSync(jsonl, 'utf8').trim().split('\n').length, 3);
    } finally {
      await live.dispose();
    }
  });
});

function post(address: string, body: string): Promise<number> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port: Number(port), path: '/v1/traces', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}
