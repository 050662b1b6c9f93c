import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { repoRoot, sharedSamplesDir } from '../helpers/paths';
import { runCli, runCliProcess, type CliResult } from './runCli';

/**
 * The CLI suites run the CLI in the test's own process (runCli → runInProcess), and the slow tier runs
 * them again through dist/cli.js (PHASEWISE_CLI_SUBPROCESS=1). These keep the everyday tier honest
 * about the difference: the built binary gives the same exit code, stdout and stderr, byte for byte,
 * on a report, a failed gate, bad usage and bad input read relative to the working directory.
 */
describe('the built dist/cli.js answers as the in-process CLI', function () {
  this.timeout(120_000);
  const K6 = path.join(sharedSamplesDir, 'joined-otel-js', 'k6.ndjson');
  const SPANS = path.join(sharedSamplesDir, 'joined-otel-js', 'spans.otlp.jsonl');
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-binary-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function both(args: string[], cwd = repoRoot): Promise<CliResult> {
    const here = await runCli(args, cwd, { debug: false });
    const child = await runCliProcess(args, cwd, { debug: false });
    assert.deepStrictEqual(child, here, `phasewise ${args.join(' ')}`);
    return here;
  }

  it('--version, --help and an unknown command', async () => {
    assert.strictEqual((await both(['--version'])).status, 0);
    assert.strictEqual((await both(['--help'])).status, 0);
    const unknown = await both(['frobnicate']);
    assert.strictEqual(unknown.status, 4);
    assert.match(unknown.stderr, /unknown command 'frobnicate'/);
  });

  it('analyze of a joined run in text and JSON, with a failing gate (exit 1)', async () => {
    const text = await both(['analyze', '--run', K6, '--spans', SPANS]);
    assert.strictEqual(text.status, 0, text.stderr);
    assert.match(text.stdout, /^Phasewise verdict: NOT EVALUATED \(no gates\)/);
    const json = await both(['analyze', '--run', K6, '--spans', SPANS, '--format', 'json', '--threshold', 'error_rate.value<=0']);
    assert.strictEqual(json.status, 1, json.stderr);
    assert.strictEqual((JSON.parse(json.stdout) as { verdict: { status: string } }).verdict.status, 'fail');
  });

  it('bad input exits 4 naming the file, with relative paths read from the working directory', async () => {
    fs.writeFileSync(path.join(dir, 'broken.ndjson'), '{"type":"Point","metric":"http_req_duration","data":{"time":"x"\n');
    const r = await both(['analyze', '--run', 'broken.ndjson', '--format', 'json'], dir);
    assert.strictEqual(r.status, 4, r.stderr);
    // The relative path resolved against the working directory given, in both processes.
    assert.ok(r.stderr.startsWith(`phasewise: ${path.join(dir, 'broken.ndjson')}:1: expected `), r.stderr);
  });
});
