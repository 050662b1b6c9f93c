import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fixture } from '../helpers/paths';
import { runCli } from './runCli';

const FILE = fixture('trace', 'jaeger-ui-31-digit-trace-id.json');
const SHORT = 'df84e36b9e2ee3815d07f0867a5be1f';
const FULL = `0${SHORT}`;

/** Jaeger UI's real trace with a 31-digit trace ID and a 15-digit span ID: padded for the join and reconcile. */
describe('Jaeger IDs written without leading zeros (built CLI)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-shortid-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reconcile --trace with the 31 digits as Jaeger shows them: every span in one tree under the root', async () => {
    const doc = JSON.parse(fs.readFileSync(FILE, 'utf8')) as { spans: { spanID: string; references: { spanID: string }[] }[] };
    assert.strictEqual(doc.spans.length, 12);
    assert.ok(doc.spans.some((s) => s.spanID.length === 15));
    for (const trace of [SHORT, FULL]) {
      const res = await runCli(['reconcile', '--trace', trace, '--spans', FILE, '--format', 'json']);
      assert.strictEqual(res.status, 0, res.stderr);
      const out = JSON.parse(res.stdout) as { breakdown: { trace_id: string }; spans: { span_id: string; depth: number }[]; notes: string[] };
      assert.strictEqual(out.breakdown.trace_id, FULL);
      assert.strictEqual(out.spans.length, 12);
      assert.deepStrictEqual(out.spans.filter((s) => s.depth === 0).map((s) => s.span_id), ['9afcdf2e24e8d70a']);
      assert.ok(out.spans.some((s) => s.span_id === '0a68c6983a6d81a2'), 'the 15-digit span ID padded to 16');
      assert.ok(!out.notes.some((n) => /not under the root|not a valid/.test(n)), out.notes.join('\n'));
    }
  });

  it('joins a client record that carries the full W3C trace ID', async () => {
    const records = path.join(dir, 'requests.ndjson');
    const rec = { run_id: 'r', request_id: 'r-0', trace_id: FULL, scheduled_offset_ms: 0, send_offset_ms: 0, final_content_offset_ms: 5, http_status: 200, outcome: 'success', generator_dropped: false };
    fs.writeFileSync(records, JSON.stringify(rec) + '\n');
    const res = await runCli(['reconcile', '--trace', FULL, '--run', records, '--spans', FILE, '--format', 'json']);
    assert.strictEqual(res.status, 0, res.stderr);
    const out = JSON.parse(res.stdout) as { matched: boolean; notes: string[] };
    assert.strictEqual(out.matched, true, out.notes.join('\n'));
  });
});
