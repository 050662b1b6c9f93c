import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_OPTIONS, PRESETS } from '../../bench/generate/options';
import { generateRun } from '../../bench/generate/run';
import { fixture } from '../helpers/paths';
import { runCli } from './runCli';

interface SideJson {
  label: string;
  join: { key: string; key_attribute: string | null; applicable: boolean; client_requests: number; matched: number; coverage: number | null; orphan_server_roots: number; duplicate_trace_ids: number; client_duplicate_trace_ids: number; server_ambiguous_ids: number };
}

/** The comparison without the sides' labels (the paths given), which are the only thing allowed to differ. */
function withoutLabels(json: string): string {
  const c = JSON.parse(json) as { base: SideJson; head: SideJson };
  c.base.label = '';
  c.head.label = '';
  return JSON.stringify(c);
}

/**
 * BASE and HEAD as input sets (--base/--head files and folders) against the same runs loaded into
 * --db files first by analyze: the generator's healthy (32 slots) and degraded (24 slots) pools.
 */
describe('phasewise compare --base/--head (input sets, built CLI)', function () {
  this.timeout(240_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-compare-inputs-'));
  const runs = { healthy: { seed: 101, slots: 32 }, degraded: { seed: 102, slots: 24 } };
  const db = (name: string): string => path.join(tmp, `${name}.duckdb`);
  const files: Record<string, { k6: string; spans: string }> = {};
  const headFolder = path.join(tmp, 'degraded-folder');

  before(async () => {
    for (const [name, r] of Object.entries(runs)) {
      const gen = await generateRun({ ...DEFAULT_OPTIONS, ...PRESETS.sample, seed: r.seed, slots: r.slots, outDir: path.join(tmp, name), runId: name });
      files[name] = { k6: gen.files.k6, spans: gen.files.spans };
      const res = await runCli(['analyze', '--run', gen.files.k6, '--spans', gen.files.spans, '--db', db(name), '--quiet']);
      assert.ok(res.status !== null && res.status <= 2, res.stderr);
    }
    // HEAD as a folder: the k6 output and the spans (sorted by content), and a JSON file of neither kind.
    fs.mkdirSync(headFolder);
    fs.copyFileSync(files.degraded.k6, path.join(headFolder, 'a.ndjson'));
    fs.copyFileSync(files.degraded.spans, path.join(headFolder, 'b.jsonl'));
    fs.writeFileSync(path.join(headFolder, 'notes.json'), '{"note": "not a run"}\n');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('equals the comparison of the same runs loaded into --db files, byte for byte but for the labels', async () => {
    const args = ['--format', 'json', '--resamples', '500', '--seed', '7', '--fail-on', 'gpu_queue_ms.p95>+10%'];
    const fromDb = await runCli(['compare', db('healthy'), db('degraded'), ...args]);
    const fromInputs = await runCli(['compare', '--base', files.healthy.k6, files.healthy.spans, '--head', headFolder, ...args]);
    assert.strictEqual(fromInputs.status, fromDb.status, fromInputs.stderr);
    assert.strictEqual(withoutLabels(fromInputs.stdout), withoutLabels(fromDb.stdout));
    const c = JSON.parse(fromInputs.stdout) as { base: SideJson; head: SideJson; moved: Array<{ metric: string; stat: string }> };
    assert.strictEqual(c.base.label, `${files.healthy.k6} + ${files.healthy.spans}`);
    assert.strictEqual(c.head.label, headFolder);
    assert.ok(c.moved.some((m) => m.metric === 'gpu_queue_ms' && m.stat === 'p95'), JSON.stringify(c.moved));
    // Nothing in the folder is skipped silently.
    assert.match(fromInputs.stderr, new RegExp(`skipped ${path.join(headFolder, 'notes.json').replace(/[.\\/]/g, '\\$&')}`));
    // A database may be one side alone, inputs the other.
    const mixed = await runCli(['compare', '--base', db('healthy'), '--head', headFolder, ...args]);
    assert.strictEqual(withoutLabels(mixed.stdout), withoutLabels(fromDb.stdout), mixed.stderr);
  });

  it('names a missing or unreadable input on either side (exit 4)', async () => {
    const missing = path.join(tmp, 'no-such.ndjson');
    const a = await runCli(['compare', '--base', files.healthy.k6, missing, '--head', headFolder]);
    assert.strictEqual(a.status, 4, a.stderr);
    assert.ok(a.stderr.includes(missing) && /no such file/.test(a.stderr), a.stderr);
    const bad = path.join(tmp, 'bad.ndjson');
    fs.writeFileSync(bad, 'hello\n');
    const b = await runCli(['compare', '--base', db('healthy'), '--head', files.degraded.k6, bad]);
    assert.strictEqual(b.status, 4, b.stderr);
    assert.ok(b.stderr.includes(`${bad}:1: expected k6 JSON output`) && b.stderr.includes("found 'hello'"), b.stderr);
    // The two ways of giving the sides do not mix; a database does not mix with inputs in one side.
    const c = await runCli(['compare', db('healthy'), '--head', headFolder]);
    assert.strictEqual(c.status, 4);
    assert.match(c.stderr, /unexpected argument/);
    const d = await runCli(['compare', '--base', db('healthy'), files.healthy.k6, '--head', headFolder]);
    assert.strictEqual(d.status, 4);
    assert.match(d.stderr, /is a run database; give it alone/);
  });
});

describe('phasewise compare of runs joined by request ID (built CLI)', function () {
  this.timeout(120_000);
  const AIPERF = fixture('tools', 'aiperf-profile_export.from-docs.jsonl');
  const SPANS = fixture('tools', 'spans-x-request-id.otlp.jsonl');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-compare-request-id-'));
  const db = path.join(tmp, 'aiperf.duckdb');
  before(async () => {
    const res = await runCli(['analyze', '--run', AIPERF, '--spans', SPANS, '--join-by', 'request-id', '--db', db, '--quiet']);
    assert.ok(res.status !== null && res.status <= 3, res.stderr);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("shows the request-ID join's coverage and collisions, not the trace-ID join's", async () => {
    const res = await runCli(['compare', '--base', AIPERF, SPANS, '--head', db, '--join-by', 'request-id', '--format', 'json', '--resamples', '100']);
    assert.strictEqual(res.status, 0, res.stderr);
    const c = JSON.parse(res.stdout) as { base: SideJson; head: SideJson };
    for (const side of [c.base, c.head]) {
      // By hand (test/fixtures/tools/README.md, requestIdJoin.test.ts): 9 records, requests 0–3 and 6
      // matched; request 4's ID is on two traces (one collision); 3 traces joined to no record.
      assert.strictEqual(side.join.key, 'request_id');
      assert.strictEqual(side.join.key_attribute, 'http.request.header.x-request-id');
      assert.deepStrictEqual(
        [side.join.client_requests, side.join.matched, side.join.orphan_server_roots, side.join.duplicate_trace_ids, side.join.server_ambiguous_ids, side.join.client_duplicate_trace_ids],
        [9, 5, 3, 1, 1, 0],
      );
      assert.strictEqual(side.join.coverage, 5 / 9);
    }
    const text = await runCli(['compare', '--base', AIPERF, SPANS, '--head', db, '--join-by', 'request-id', '--resamples', '100']);
    assert.match(text.stdout, /joined by\s+request ID\s+request ID/);
    assert.match(text.stdout, /join coverage\s+55\.6 % \(5\/9\)\s+55\.6 % \(5\/9\)/);
    assert.match(text.stdout, /on several traces\s+1\s+1/);
    assert.match(text.stdout, /BASE joined the client records' request_id to the span attribute http\.request\.header\.x-request-id/);
    // By trace ID the same files join nothing: not applicable, never 0 %.
    const byTrace = await runCli(['compare', '--base', AIPERF, SPANS, '--head', AIPERF, SPANS, '--format', 'json', '--resamples', '100']);
    const t = JSON.parse(byTrace.stdout) as { base: SideJson };
    assert.deepStrictEqual([t.base.join.key, t.base.join.applicable, t.base.join.coverage, t.base.join.matched], ['trace_id', false, null, 0]);
  });
});
