/**
 * One trace of 500,000 spans (issue 31, item 21): `reconcile --format html` under --memory-limit
 * 512MB peaked at 3.4–4 GB of RSS building a page of every span; the text waterfall crashed (exit 5,
 * call stack). The page now embeds the waterfall's first MAX_PAGE_TRACE_SPANS spans and says so; the
 * figures count them all. The peak RSS bound here is a resource bound for a hostile input (old: 4.05 GB), not a timing.
 */
import { strict as assert } from 'assert';
import { spawn } from 'child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cliPath, type CliResult } from '../cli/runCli';
import { contractViolations } from './corpus';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPANS = 500_000;

/** OTLP JSONL of one trace: a SERVER root and SPANS − 1 children with two attributes each, 1,000 spans a line. */
function writeTrace(file: string): void {
  const fd = openSync(file, 'w');
  const t0 = 1_764_428_000_000_000_000n;
  const hex = (n: number): string => n.toString(16).padStart(16, '0');
  let batch: unknown[] = [];
  const flush = (): void => {
    if (batch.length === 0) return;
    writeSync(fd, JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'gateway' } }] }, scopeSpans: [{ scope: { name: 'x' }, spans: batch }] }] }) + '\n');
    batch = [];
  };
  for (let i = 0; i < SPANS; i++) {
    const start = t0 + BigInt(i) * 1000n;
    batch.push({
      traceId: TRACE, spanId: hex(i + 1), ...(i > 0 ? { parentSpanId: hex(1) } : {}), name: i === 0 ? 'POST /v1/chat/completions' : `step-${i % 50}`, kind: i === 0 ? 2 : 1,
      startTimeUnixNano: String(start), endTimeUnixNano: String(i === 0 ? t0 + BigInt(SPANS) * 1000n + 5000n : start + 800n),
      attributes: [{ key: 'http.route', value: { stringValue: '/v1/chat/completions' } }, { key: 'step', value: { intValue: String(i) } }],
    });
    if (batch.length === 1000) flush();
  }
  flush();
  closeSync(fd);
}

/** Runs the CLI and reads its peak RSS (KiB, process.resourceUsage at exit, through a preloaded module). */
function cliWithPeak(args: string[], cwd: string): Promise<CliResult & { peakKiB: number }> {
  const peakFile = path.join(cwd, `peak-${Date.now()}`);
  const preload = path.join(cwd, 'peak.js');
  writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(peakFile)}, String(process.resourceUsage().maxRSS)));\n`);
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.PHASEWISE_DEBUG;
    const child = spawn(process.execPath, ['-r', preload, cliPath, ...args], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 280_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      let peakKiB = NaN;
      try {
        peakKiB = Number(readFileSync(peakFile, 'utf8'));
      } catch {
        // killed before exit
      }
      resolve({ status, stdout, stderr, peakKiB });
    });
  });
}

describe('hostile trace of 500,000 spans: reconcile is bounded (issue 31 item 21)', function () {
  this.timeout(600_000);
  let dir: string;
  let spans: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pw-hostile-trace-'));
    spans = path.join(dir, 'trace.otlp.jsonl');
    writeTrace(spans);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--format html --memory-limit 512MB: exit 0, at most 100,000 spans embedded with a note saying so, peak RSS under 2 GB', async () => {
    const out = path.join(dir, 'trace.html');
    const r = await cliWithPeak(['reconcile', '--spans', spans, '--trace', TRACE, '--format', 'html', '--memory-limit', '512MB', '--out', out], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(contractViolations(r), []);
    const html = readFileSync(out, 'utf8');
    const json = /<script type="application\/json" id="phasewise-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
    assert.ok(json !== undefined, 'no embedded data');
    const data = JSON.parse(json) as { trace: { spans: Array<{ span_id: string }>; notes: string[]; breakdown: { trace_id: string } } };
    assert.equal(data.trace.breakdown.trace_id, TRACE);
    assert.equal(data.trace.spans.length, 100_000);
    assert.ok(data.trace.notes.some((n) => /the waterfall shows the first 100,000 of its 500,000 spans, in waterfall order/.test(n)), data.trace.notes.join('\n'));
    assert.ok(r.peakKiB < 2 * 1024 * 1024, `peak RSS ${Math.round(r.peakKiB / 1024)} MiB`);
    // The page's spans are the first rows of the whole waterfall, in its order.
    const all = await cliWithPeak(['reconcile', '--spans', spans, '--trace', TRACE, '--format', 'json', '--memory-limit', '512MB'], dir);
    assert.equal(all.status, 0, all.stderr);
    const full = (JSON.parse(all.stdout) as { spans: Array<{ span_id: string }> }).spans;
    assert.equal(full.length, SPANS);
    assert.deepEqual(data.trace.spans.map((s) => s.span_id), full.slice(0, 100_000).map((s) => s.span_id));
  });

  it('the text waterfall of every span: exit 0 (it overflowed the call stack, exit 5)', async () => {
    const r = await cliWithPeak(['reconcile', '--spans', spans, '--trace', TRACE, '--memory-limit', '512MB'], dir);
    assert.equal(r.status, 0, r.stderr.slice(0, 500));
    assert.deepEqual(contractViolations(r), []);
    assert.ok(r.stdout.split('\n').filter((l) => /step-\d+/.test(l)).length === SPANS - 1);
  });
});
