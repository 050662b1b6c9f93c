import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gzipSync } from 'zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { main } from '../../src/cli/dispatch';
import { fixture, repoRoot } from '../helpers/paths';
import { cliPath, type CliResult } from '../cli/runCli';
import { contractViolations } from './corpus';
import { countJaeger, countOtlp, countZipkin, decode, k6MetricUsed, maybeNonStandardJson, viewLines, type LineView } from './fuzzCount';

/**
 * Seeded fuzzing of the real samples (DESIGN §7). Each case mutates one sample (truncation, byte
 * flips, duplicated, deleted or swapped lines, CRLF, UTF-16/BOM/Latin-1, gzip and its damage, stray
 * control characters) and runs `analyze` on it, then checks:
 * - the error contract: exit 0–4, never 5; no DuckDB text, stack or raw control character;
 * - the count: every line the test finds blank, not UTF-8 or not a JSON object is reported as such,
 *   at its line, and no other line is; spans reported + skipped by kind = the spans the file holds;
 *   the k6 http_reqs counter = the http_reqs Points on lines not reported skipped; records + dropped +
 *   skipped = the records' lines. The test counts from the bytes itself (fuzzCount.ts).
 * Runs in process (the CLI's own main, output captured) for speed; every 10th case also through
 * dist/cli.js in a child process, which must give the same exit code and output.
 * Knobs: PHASEWISE_FUZZ_CASES (default 200), PHASEWISE_FUZZ_SEED (first seed, default 1). The
 * files and --db databases go to /dev/shm when there is one (each case writes and checkpoints one).
 */
const CASES = Number(process.env.PHASEWISE_FUZZ_CASES ?? 200);
const FIRST_SEED = Number(process.env.PHASEWISE_FUZZ_SEED ?? 1);
/** Where the input of a failing case is kept. */
const KEPT = path.join(os.tmpdir(), 'phasewise-fuzz-failures');

type Kind = 'k6' | 'otlp' | 'records' | 'records-csv' | 'k6-csv' | 'zipkin' | 'jaeger';

interface Sample {
  kind: Kind;
  side: '--run' | '--spans';
  bytes: Buffer;
}

function lines(file: string, count?: number): Buffer {
  const text = fs.readFileSync(fixture(file), 'utf8').split('\n');
  return Buffer.from(text.slice(0, count ?? text.length).join('\n') + (count === undefined ? '' : '\n'), 'utf8');
}

/** Slices of the real samples, small enough for a few hundred runs. */
const SAMPLES: Sample[] = [
  { kind: 'k6', side: '--run', bytes: lines('shared-samples/joined-otel-js/k6.ndjson', 240) },
  { kind: 'otlp', side: '--spans', bytes: lines('shared-samples/joined-otel-js/spans.otlp.jsonl', 3) },
  { kind: 'records', side: '--run', bytes: lines('shared-samples/joined-otel-js/requests.ndjson', 60) },
  { kind: 'records-csv', side: '--run', bytes: lines('client-readers/records-slice.csv') },
  { kind: 'k6-csv', side: '--run', bytes: lines('client-readers/k6-joined-slice.csv', 200) },
  { kind: 'zipkin', side: '--spans', bytes: lines('shared-samples/zipkin-json/zipkin_zipkin-lens_testdata_yelp.json') },
  { kind: 'jaeger', side: '--spans', bytes: lines('shared-samples/jaeger-json/jaeger-ui_utils_fixtures_oltp2jaeger-multi-out.json') },
];

/** mulberry32: a small, fixed, seedable generator (the same cases on every machine). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Mutation = (b: Buffer, r: () => number) => Buffer;
const pick = (r: () => number, n: number): number => Math.floor(r() * n);
const splitLines = (b: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  let from = 0;
  for (let nl = b.indexOf(0x0a); nl !== -1; nl = b.indexOf(0x0a, from)) {
    out.push(b.subarray(from, nl + 1));
    from = nl + 1;
  }
  if (from < b.length) out.push(b.subarray(from));
  return out;
};

const MUTATIONS: Readonly<Record<string, Mutation>> = {
  truncate: (b, r) => b.subarray(0, pick(r, b.length)),
  flipBytes: (b, r) => {
    const out = Buffer.from(b);
    for (let i = 1 + pick(r, 4); i > 0; i--) out[pick(r, out.length)] ^= 1 + pick(r, 255);
    return out;
  },
  printableByte: (b, r) => {
    const out = Buffer.from(b);
    out[pick(r, out.length)] = 0x20 + pick(r, 95);
    return out;
  },
  duplicateLines: (b, r) => {
    const ls = splitLines(b);
    for (let i = 1 + pick(r, 3); i > 0; i--) {
      const at = pick(r, ls.length);
      ls.splice(at, 0, ls[at]);
    }
    return Buffer.concat(ls);
  },
  deleteLines: (b, r) => {
    const ls = splitLines(b);
    for (let i = 1 + pick(r, 3); i > 0 && ls.length > 2; i--) ls.splice(1 + pick(r, ls.length - 1), 1);
    return Buffer.concat(ls);
  },
  swapLines: (b, r) => {
    const ls = splitLines(b);
    const i = pick(r, ls.length);
    const j = pick(r, ls.length);
    [ls[i], ls[j]] = [ls[j], ls[i]];
    return Buffer.concat(ls);
  },
  crlf: (b) => Buffer.from(b.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'),
  mixedCrlf: (b, r) => Buffer.concat(splitLines(b).map((l) => (r() < 0.5 && l[l.length - 1] === 0x0a ? Buffer.concat([l.subarray(0, l.length - 1), Buffer.from('\r\n')]) : l))),
  utf16: (b) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(b.toString('utf8'), 'utf16le')]),
  utf8Bom: (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]),
  latin1Byte: (b, r) => {
    const ls = splitLines(b);
    const at = 1 + pick(r, Math.max(1, ls.length - 1));
    if (at < ls.length) ls[at] = Buffer.concat([Buffer.from([0xe9]), ls[at]]);
    return Buffer.concat(ls);
  },
  controlCharacters: (b, r) => {
    const ls = splitLines(b);
    const at = pick(r, ls.length);
    ls.splice(at, 0, Buffer.from(['\u001b[2J', '\u001b]0;PWNED\u0007', '\u0000', '\u202e', '\r', '\u0001'][pick(r, 6)] + 'x\n', 'utf8'));
    return Buffer.concat(ls);
  },
  blankLines: (b, r) => {
    const ls = splitLines(b);
    ls.splice(pick(r, ls.length), 0, Buffer.from(['\n', '   \n', '\t\n'][pick(r, 3)]));
    return Buffer.concat(ls);
  },
  gzip: (b) => gzipSync(b),
  gzipTruncated: (b, r) => {
    const z = gzipSync(b);
    return z.subarray(0, 10 + pick(r, z.length - 10));
  },
  gzipFlip: (b, r) => {
    const z = Buffer.from(gzipSync(b));
    z[10 + pick(r, z.length - 10)] ^= 1 + pick(r, 255);
    return z;
  },
};
const MUTATION_NAMES = Object.keys(MUTATIONS);
/** Byte-level edits run before the file-level ones (encodings, gzip), never after. */
const FILE_LEVEL = new Set(['utf16', 'gzip', 'gzipTruncated', 'gzipFlip']);

interface FuzzCase {
  seed: number;
  sample: Sample;
  mutations: string[];
  bytes: Buffer;
}

function makeCase(seed: number): FuzzCase {
  const r = rng(seed);
  const sample = SAMPLES[pick(r, SAMPLES.length)];
  const names: string[] = [];
  for (let n = 1 + pick(r, 3); n > 0; n--) names.push(MUTATION_NAMES[pick(r, MUTATION_NAMES.length)]);
  const ordered = [...names.filter((m) => !FILE_LEVEL.has(m)), ...names.filter((m) => FILE_LEVEL.has(m)).slice(0, 1)];
  let bytes = sample.bytes;
  for (const m of ordered) bytes = MUTATIONS[m](bytes, r);
  return { seed, sample, mutations: ordered, bytes };
}

/** Runs the CLI's main in this process with stdout and stderr captured. */
async function runInProcess(args: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  const fake = (sink: string[]) => ((s: string | Uint8Array, ...rest: unknown[]) => {
    sink.push(typeof s === 'string' ? s : Buffer.from(s).toString('utf8'));
    rest.find((x): x is () => void => typeof x === 'function')?.();
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = fake(out);
  process.stderr.write = fake(err);
  const debug = process.env.PHASEWISE_DEBUG;
  delete process.env.PHASEWISE_DEBUG;
  try {
    const status = await main(args);
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
    if (debug !== undefined) process.env.PHASEWISE_DEBUG = debug;
  }
}

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
      if (held !== undefined) equal('spans loaded + skipped', ledger.records + skipped('span-without-id') + skipped('duplicate-span') + skipped('malformed-element'), held);
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
      const result = await runInProcess(args);
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
