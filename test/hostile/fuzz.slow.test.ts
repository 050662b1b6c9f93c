import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DuckDBInstance } from '@duckdb/node-api';
import { repoRoot } from '../helpers/paths';
import { cliPath, runCliInProcess } from '../cli/runCli';
import { contractViolations } from './corpus';
import { makeCase, type FuzzCase } from './fuzzCases';
import { countJaeger, countOtlp, countZipkin, decode, k6MetricUsed, maybeNonStandardJson, viewLines, type LineView } from './fuzzCount';

/**
 * Seeded fuzzing of the real samples (docs/metrics.md §7). Each case mutates one sample (truncation, byte
 * flips, duplicated, deleted or swapped lines, CRLF, UTF-16/BOM/Latin-1, gzip and its damage, stray
 * control characters) and runs `analyze` on it, then checks:
 * - the error contract: exit 0–4, never 5; no DuckDB text, stack or raw control character;
 * - the count: every line the test finds blank, not UTF-8 or not a JSON object is reported as such,
 *   at its line, and no other line is; spans reported + skipped by kind = the spans the file holds;
 *   the k6 http_reqs counter = the http_reqs Points on lines not reported skipped; records + dropped +
 *   skipped = the records' lines. The test counts from the bytes itself (fuzzCount.ts).
 * Runs in process (the CLI's own main, output captured) for speed; every 10th case also through
 * dist/cli.js in a child process, which must give the same exit code and output.
 * The same mutations also reach the receiver (fuzzReceiver.slow.test.ts: bodies POSTed to it on 127.0.0.1)
 * and `--db` files are damaged byte by byte (fuzzDatabase.slow.test.ts).
 * Knobs: PHASEWISE_FUZZ_CASES (default 200), PHASEWISE_FUZZ_SEED (first seed, default 1). The
 * files and --db databases go to /dev/shm when there is one (each case writes and checkpoints one).
 */
const CASES = Number(process.env.PHASEWISE_FUZZ_CASES ?? 200);
const FIRST_SEED = Number(process.env.PHASEWISE_FUZZ_SEED ?? 1);
/** Where the input of a failing case is kept. */
const KEPT = path.join(os.tmpdir(), 'phasewise-fuzz-failures');

interface Ledger {
  records: number;
  skipped: Record<string, number>;
  /** Lines of load issues by code. */
  lines: Map<string, Set<number>>;
  httpReqs: number | null;
  dropped: number | null;
}

async function readLedger(db: string): Promise<Ledger> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const rows = async (sql: string): Promise<Array<Record<string, unknown>>> => (await conn.runAndReadAll(sql)).getRowObjectsJS();
    const [src] = await rows('SELECT records FROM sources');
    const skipped: Record<string, number> = {};
    for (const s of await rows('SELECT code, sum(count) AS n FROM load_skips GROUP BY code')) skipped[String(s.code)] = Number(s.n);
    const lines = new Map<string, Set<number>>();
    for (const i of await rows('SELECT code, line FROM load_issues WHERE line IS NOT NULL')) {
      const set = lines.get(String(i.code)) ?? new Set<number>();
      set.add(Number(i.line));
      lines.set(String(i.code), set);
    }
    const counter = async (metric: string): Promise<number | null> => {
      const [c] = await rows(`SELECT sum(value) AS v FROM run_counters WHERE metric = '${metric}'`);
      return c?.v === null || c?.v === undefined ? null : Number(c.v);
    };
    return { records: Number(src.records), skipped, lines, httpReqs: await counter('http_reqs'), dropped: await counter('dropped_iterations') };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

const LINE_KINDS = ['malformed-json', 'truncated-line', 'invalid-utf8'];

/** The count checks of one case whose run loaded the file (exit 0–3). */
function countFailures(c: FuzzCase, views: LineView[], ledger: Ledger): string[] {
  const out: string[] = [];
  const reported = (code: string): Set<number> => ledger.lines.get(code) ?? new Set();
  const equal = (what: string, got: number, want: number): void => {
    if (got !== want) out.push(`${what}: reported ${got}, the file holds ${want}`);
  };
  const lineDelimited = ['k6', 'otlp', 'records'].includes(c.sample.kind);
  if (lineDelimited) {
    // The last non-empty physical line is the one a writer killed mid-line leaves.
    const last = views.length;
    const bad = views.filter((v) => v.utf8 && !v.blank && v.value === undefined && !maybeNonStandardJson(v));
    const wantMalformed = new Set(bad.filter((v) => v.line !== last).map((v) => v.line));
    const wantTruncated = new Set(bad.filter((v) => v.line === last).map((v) => v.line));
    const wantUtf8 = new Set(views.filter((v) => !v.utf8).map((v) => v.line));
    for (const [code, want] of [['malformed-json', wantMalformed], ['truncated-line', wantTruncated], ['invalid-utf8', wantUtf8]] as const) {
      const got = reported(code);
      const missing = [...want].filter((l) => !got.has(l));
      const extra = [...got].filter((l) => !want.has(l) && !maybeNonStandardJson(views[l - 1]));
      if (missing.length > 0) out.push(`${code}: lines ${missing.slice(0, 5).join(', ')} not reported`);
      if (extra.length > 0) out.push(`${code}: lines ${extra.slice(0, 5).join(', ')} reported, but the test reads them as ${views[extra[0] - 1]?.blank ? 'blank' : 'a JSON object'}`);
      equal(`${code} count`, ledger.skipped[code] ?? 0, got.size);
    }
  }
  const objects = views.filter((v) => v.value !== undefined && !LINE_KINDS.some((k) => reported(k).has(v.line)));
  const skipped = (code: string): number => ledger.skipped[code] ?? 0;
  switch (c.sample.kind) {
    case 'otlp': {
      let spans = 0;
      let withoutId = 0;
      let elements = 0;
      let foreign = 0;
      for (const v of objects) {
        const n = countOtlp(v.value as Record<string, unknown>);
        spans += n.spans;
        withoutId += n.withoutId;
        elements += n.elements;
        if (n.foreign) foreign++;
      }
      equal('spans loaded + without IDs + duplicates', ledger.records + skipped('span-without-id') + skipped('duplicate-span'), spans);
      equal('spans without a trace or span ID', skipped('span-without-id'), withoutId);
      equal('malformed OTLP elements', skipped('malformed-element'), elements);
      equal('foreign lines', skipped('foreign-line'), foreign);
      break;
    }
    case 'k6': {
      const skippedLines = new Set([...LINE_KINDS, 'foreign-line', 'invalid-time', 'invalid-value'].flatMap((k) => [...reported(k)]));
      const foreign = objects.filter((v) => {
        const d = v.value as Record<string, unknown>;
        return d.type !== 'Metric' && !(d.type === 'Point' && typeof d.metric === 'string');
      });
      const wantForeign = new Set(foreign.map((v) => v.line));
      const gotForeign = reported('foreign-line');
      if ([...wantForeign].some((l) => !gotForeign.has(l)) || [...gotForeign].some((l) => !wantForeign.has(l))) {
        out.push(`foreign lines: reported ${[...gotForeign].slice(0, 5).join(', ')}, the file has ${[...wantForeign].slice(0, 5).join(', ')}`);
      }
      for (const code of ['invalid-time', 'invalid-value']) {
        for (const l of reported(code)) {
          const d = views[l - 1]?.value;
          if (!d || d.type !== 'Point' || typeof d.metric !== 'string' || !k6MetricUsed(d.metric)) out.push(`${code} at line ${l}, which the test does not read as a Point of a used metric`);
        }
      }
      // Every http_reqs Point on a line not skipped is counted: the counter is the requests k6 made.
      const httpReqs = objects.filter((v) => {
        const d = v.value as Record<string, unknown>;
        return d.type === 'Point' && d.metric === 'http_reqs' && !skippedLines.has(v.line);
      }).length;
      equal('http_reqs counter', ledger.httpReqs ?? 0, httpReqs);
      break;
    }
    case 'records': {
      // A record line is loaded, dropped by the generator, or skipped with its line.
      equal('records + generator-dropped + invalid values', ledger.records + (ledger.dropped ?? 0) + skipped('invalid-value'), objects.length);
      break;
    }
    case 'zipkin':
    case 'jaeger': {
      const doc = (() => {
        try {
          return JSON.parse(Buffer.concat(views.map((v) => Buffer.concat([v.bytes, Buffer.from('\n')]))).toString('utf8')) as unknown;
        } catch {
          return undefined;
        }
      })();
      const held = doc === undefined ? undefined : c.sample.kind === 'zipkin' ? countZipkin(doc) : countJaeger(doc);
      if (held !== undefined) equal('spans loaded + skipped', ledger.records + skipped('span-without-id') + skipped('duplicate-span') + skipped('malformed-element') + skipped('merged-span-piece'), held);
      break;
    }
    case 'records-csv':
    case 'k6-csv': {
      // Quoted fields may span lines, so only the upper bound is exact: nothing is counted twice.
      const dataLines = views.filter((v) => v.line > 1 && !v.blank).length;
      const rows = c.sample.kind === 'records-csv' ? ledger.records + (ledger.dropped ?? 0) : 0;
      if (rows + skipped('malformed-csv') + skipped('invalid-utf8') > dataLines) out.push(`more rows (${rows}) and skipped lines than the file has lines (${dataLines})`);
      break;
    }
  }
  return out;
}

describe(`fuzzing the real samples (${CASES} seeded cases from seed ${FIRST_SEED})`, function () {
  this.timeout(600_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'pw-fuzz-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the error contract and the counts on every case', async () => {
    const failures: string[] = [];
    const figures = { cases: 0, loaded: 0, badInput: 0, counted: 0, childRuns: 0 };
    const started = Date.now();
    for (let seed = FIRST_SEED; seed < FIRST_SEED + CASES; seed++) {
      const c = makeCase(seed);
      const file = path.join(dir, `case-${seed}.${c.sample.kind === 'records-csv' || c.sample.kind === 'k6-csv' ? 'csv' : 'json'}`);
      const db = path.join(dir, `case-${seed}.duckdb`);
      fs.writeFileSync(file, c.bytes);
      const args = ['analyze', c.sample.side, file, '--db', db, '--format', 'json'];
      if (process.env.PHASEWISE_FUZZ_VERBOSE) process.stderr.write(`fuzz seed ${seed} ${c.sample.kind} ${c.mutations.join(',')}\n`);
      const result = await runCliInProcess(args, repoRoot, { debug: false });
      figures.cases++;
      const label = `seed ${seed} (${c.sample.kind}: ${c.mutations.join(', ')})`;
      const problems = contractViolations(result);
      if (result.status === 4) {
        figures.badInput++;
        if (!result.stderr.includes(file)) problems.push(`exit 4 without naming the file: ${result.stderr.slice(0, 200)}`);
      } else if (result.status !== null && result.status <= 3) {
        figures.loaded++;
        const decoded = decode(c.bytes);
        if (decoded.problem === 'utf16') problems.push('a UTF-16 file loaded');
        else if (decoded.bytes && decoded.problem !== 'gzip-corrupt') {
          figures.counted++;
          problems.push(...countFailures(c, viewLines(decoded.bytes), await readLedger(db)));
        }
      }
      if (seed % 10 === 0) {
        // The same case through the built CLI in its own process: the same outcome, byte for byte.
        figures.childRuns++;
        fs.rmSync(db, { force: true });
        const child = spawnSync(process.execPath, [cliPath, ...args], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, PHASEWISE_DEBUG: '' } });
        if (child.status !== result.status || child.stderr !== result.stderr || child.stdout !== result.stdout) {
          problems.push(`dist/cli.js gave exit ${child.status} and ${child.stderr.slice(0, 200)}`);
        }
      }
      for (const p of problems) failures.push(`${label}: ${p}`);
      if (problems.length > 0) {
        // Kept for a look: the failing input, by seed.
        fs.mkdirSync(KEPT, { recursive: true });
        fs.copyFileSync(file, path.join(KEPT, path.basename(file)));
      }
      fs.rmSync(file, { force: true });
      fs.rmSync(db, { force: true });
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    process.stdout.write(`      fuzz: ${figures.cases} cases in ${seconds} s: ${figures.loaded} loaded (${figures.counted} counted), ${figures.badInput} refused as bad input, ${figures.childRuns} also through dist/cli.js\n`);
    assert.deepStrictEqual(failures, [], `inputs kept in ${KEPT}`);
    // The cases must exercise the readers, not only their refusals.
    assert.ok(figures.counted >= figures.cases / 3, `only ${figures.counted} of ${figures.cases} cases reached the count checks`);
  });
});
