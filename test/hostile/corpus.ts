/**
 * The hostile corpus (every JSON file in test/fixtures/hostile/, one per round of cases): bad inputs, each with its one expected
 * outcome, run through the real CLI. Every run is also held to the error contract (docs/metrics.md §7,
 * contractViolations): an exit code from the table, never an internal error, no DuckDB text, stack
 * trace or raw control character in what the user sees.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fixture, sharedSamplesDir } from '../helpers/paths';
import { runCliProcess, type CliResult } from '../cli/runCli';
import { makeFile, type FileSpec } from './recipes';
import { runReceiverCase, type ReceiveSpec } from './receiverCase';

export interface Expectation {
  exit: number;
  /** Regular expressions (multi-line) stderr must match. */
  stderr?: string[];
  /** …and must not match. */
  notStderr?: string[];
  stdout?: string[];
  notStdout?: string[];
  /** Load issues that must be reported (from the JSON report), as [file, line] or [file, line, code]. */
  cites?: Array<[string, number] | [string, number, string]>;
  /** inputs[].records per case file. */
  records?: Record<string, number>;
  /** inputs[].skipped_by_kind per case file: exactly these kinds, with these counts. */
  skipped?: Record<string, Record<string, number>>;
  /** Load issue codes that must be present in the report. */
  codes?: string[];
  /** …and must not. */
  notCodes?: string[];
  /** report.join.client_requests / matched, when given. */
  requests?: number;
  matched?: number;
  /** Case files whose bytes and modification time must not change. */
  untouched?: string[];
  /** Regular expressions (multi-line) each case file must match after the run. */
  contents?: Record<string, string[]>;
  /** Case files that must still be symbolic links afterwards (to whatever they pointed at). */
  links?: string[];
}

export interface HostileCase {
  id: string;
  /** The item of issue 11 it comes from (1–8), or "more". */
  item: string;
  what: string;
  files?: Record<string, FileSpec>;
  /** CLI arguments; `{name}` is a case file, `{shared:path}` a file under test/fixtures/shared-samples, `{fixture:path}` one under test/fixtures, `{dir}` the case's directory. */
  args: string[];
  /** Run as an unprivileged user when the tests run as root (file permissions). */
  unprivileged?: boolean;
  /** CLI commands run first (each must exit 0), e.g. a load into a --db file. */
  setup?: string[][];
  /** DuckDB statements run on a case file after the setup (e.g. to mark a load interrupted). */
  sql?: Record<string, string[]>;
  /** chmod (octal) of case files or directories after the setup. */
  modes?: Record<string, string>;
  /** A receiver case: `args` are `receive`'s, and these bodies are POSTed to it (receiverCase.ts). */
  receive?: ReceiveSpec;
  /** The run is killed after this long and fails as hung (default CASE_TIMEOUT_MS). */
  timeoutMs?: number;
  expect: Expectation;
}

/** Every case of every manifest in test/fixtures/hostile/, manifests in name order. */
export function loadManifest(): HostileCase[] {
  const dir = fixture('hostile');
  const manifests = fs.readdirSync(dir).filter((name) => name.endsWith('.json')).sort();
  return manifests.flatMap((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as HostileCase[]);
}

function fingerprint(file: string): string {
  const info = fs.statSync(file);
  return `${info.size}:${info.mtimeMs}:${crypto.createHash('sha1').update(fs.readFileSync(file)).digest('hex')}`;
}

export interface CaseRun {
  result: CliResult;
  /** The JSON report, when stdout is one. */
  report: Report | undefined;
  failures: string[];
}

interface Report {
  inputs: Array<{ path: string; records: number; skipped: number; skipped_by_kind: Record<string, { unit: string; count: number }> }>;
  load_issues: { by_code: Record<string, number>; examples: Array<{ path: string; line: number | null; code: string }> };
  join: { client_requests: number; matched: number };
}

/** Runs one case with the CLI at `cli` (dist/cli.js unless given) and returns what failed. */
export async function runCase(c: HostileCase, cli?: string): Promise<CaseRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pw-hostile-${c.id}-`));
  fs.chmodSync(dir, 0o777);
  try {
    const paths: Record<string, string> = {};
    for (const [name, spec] of Object.entries(c.files ?? {})) paths[name] = await makeFile(dir, name, spec);
    const substitute = (arg: string): string =>
      arg.replace(/\{(shared:|fixture:)?([^}]+)\}/g, (_m, kind: string | undefined, name: string) => {
        if (kind === 'shared:') return path.join(sharedSamplesDir, name);
        if (kind === 'fixture:') return fixture(name);
        if (name === 'dir') return dir;
        return paths[name] ?? path.join(dir, name);
      });
    for (const command of c.setup ?? []) {
      const r = await runCliProcess(command.map(substitute), dir, { debug: false });
      if (r.status !== 0) throw new Error(`setup ${command.join(' ')} exited ${r.status}: ${r.stderr}`);
    }
    for (const [name, statements] of Object.entries(c.sql ?? {})) await runSql(substitute(`{${name}}`), statements);
    for (const [name, mode] of Object.entries(c.modes ?? {})) fs.chmodSync(substitute(`{${name}}`), parseInt(mode, 8));
    const untouched = new Map((c.expect.untouched ?? []).map((name) => [name, fingerprint(substitute(`{${name}}`))]));
    const args = c.args.map(substitute);
    const timeoutMs = c.timeoutMs ?? CASE_TIMEOUT_MS;
    const received = c.receive ? await runReceiverCase(args, c.receive, dir, paths, cli) : undefined;
    const result = received?.result ?? (cli === undefined
      ? await runCliProcess(args, dir, { debug: false, unprivileged: c.unprivileged, timeoutMs })
      : await runCliAt(cli, args, dir, c.unprivileged === true, timeoutMs));
    const failures = [...(received?.failures ?? []), ...contractViolations(result, c.expect.exit)];
    if (result.timedOut) failures.push(`no exit after ${timeoutMs} ms (killed)`);
    for (const [name, patterns] of Object.entries(c.expect.contents ?? {})) {
      const file = substitute(`{${name}}`);
      const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
      for (const p of patterns) if (text === undefined || !new RegExp(p, 'm').test(text)) failures.push(`${name} does not match /${p}/${text === undefined ? ' (no such file)' : ''}`);
    }
    let report: Report | undefined;
    try {
      report = result.stdout.trimStart().startsWith('{') ? (JSON.parse(result.stdout) as Report) : undefined;
    } catch {
      report = undefined;
    }
    failures.push(...checkExpectation(c, result, report, paths));
    for (const name of c.expect.links ?? []) {
      const file = substitute(`{${name}}`);
      if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) failures.push(`${name} is no longer a symbolic link`);
    }
    for (const [name, before] of untouched) {
      const file = substitute(`{${name}}`);
      if (!fs.existsSync(file) || fingerprint(file) !== before) failures.push(`${name} was modified`);
    }
    return { result, report, failures };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function runSql(file: string, statements: string[]): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(file);
  const conn = await instance.connect();
  for (const sql of statements) await conn.run(sql);
  conn.closeSync();
  instance.closeSync();
}

/** A case that runs longer than this hangs (the test's own timeout is 180 s). */
const CASE_TIMEOUT_MS = 150_000;

/** An older build (for the before/after table): the same child process, another cli.js. */
async function runCliAt(cli: string, args: string[], cwd: string, unprivileged: boolean, timeoutMs: number): Promise<CliResult> {
  const { spawn } = await import('child_process');
  const { runsAsRoot, UNPRIVILEGED_ID } = await import('../cli/runCli');
  const env = { ...process.env };
  delete env.PHASEWISE_DEBUG;
  const ids = unprivileged && runsAsRoot() ? { uid: UNPRIVILEGED_ID, gid: UNPRIVILEGED_ID } : {};
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, ...ids });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, ...(timedOut ? { timedOut } : {}) });
    });
  });
}

/** DuckDB's error names and SQL that must never reach the user (docs/metrics.md §7). */
const DUCKDB_TEXT = /\b(Binder|Parser|Catalog|Conversion|Invalid Input|Constraint|Out of Range|Serialization|Not implemented|INTERNAL) Error\b|\bSELECT\b.*\bFROM\b|\bLINE \d+:|read_csv|read_json|json_transform/;
/** Raw control characters (the line feed is the only one the CLI writes), C1, bidi, separators. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069\ufeff]/;

/** What every run must hold, whatever its input. */
export function contractViolations(r: CliResult, expectedExit?: number): string[] {
  const out: string[] = [];
  const allowed = [0, 1, 2, 3, 4];
  if (r.status === null || (!allowed.includes(r.status) && r.status !== expectedExit)) out.push(`exit ${r.status} is not one of 0–4`);
  if (/internal error/.test(r.stderr)) out.push('an internal error');
  for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
    const duck = DUCKDB_TEXT.exec(text);
    if (duck) out.push(`DuckDB text in ${name}: ${JSON.stringify(duck[0])}`);
    if (/\n\s+at .+\(.*:\d+:\d+\)/.test(text)) out.push(`a stack trace in ${name}`);
    const raw = RAW_CONTROL.exec(text);
    if (raw) out.push(`raw U+${raw[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${name}`);
  }
  return out;
}

function checkExpectation(c: HostileCase, r: CliResult, report: Report | undefined, paths: Record<string, string>): string[] {
  const e = c.expect;
  const out: string[] = [];
  const re = (pattern: string): RegExp => new RegExp(pattern, 'm');
  if (r.status !== e.exit) out.push(`exit ${r.status}, expected ${e.exit}`);
  for (const p of e.stderr ?? []) if (!re(p).test(r.stderr)) out.push(`stderr does not match /${p}/`);
  for (const p of e.notStderr ?? []) if (re(p).test(r.stderr)) out.push(`stderr matches /${p}/`);
  for (const p of e.stdout ?? []) if (!re(p).test(r.stdout)) out.push(`stdout does not match /${p}/`);
  for (const p of e.notStdout ?? []) if (re(p).test(r.stdout)) out.push(`stdout matches /${p}/`);
  const needsReport = e.cites || e.records || e.skipped || e.codes || e.notCodes || e.requests !== undefined || e.matched !== undefined;
  if (!needsReport) return out;
  if (!report) return [...out, 'no JSON report on stdout'];
  const input = (name: string): Report['inputs'][number] | undefined => report.inputs?.find((i) => i.path === paths[name]);
  for (const [name, line, code] of e.cites ?? []) {
    const hit = report.load_issues?.examples?.some((x) => x.path === paths[name] && x.line === line && (code === undefined || x.code === code));
    if (!hit) out.push(`no load issue at ${name}:${line}${code ? ` (${code})` : ''}`);
  }
  for (const [name, n] of Object.entries(e.records ?? {})) {
    const got = input(name)?.records;
    if (got !== n) out.push(`${name}: ${got} records, expected ${n}`);
  }
  for (const [name, kinds] of Object.entries(e.skipped ?? {})) {
    const got = Object.fromEntries(Object.entries(input(name)?.skipped_by_kind ?? {}).map(([k, v]) => [k, v.count]));
    if (JSON.stringify(sortKeys(got)) !== JSON.stringify(sortKeys(kinds))) out.push(`${name}: skipped ${JSON.stringify(got)}, expected ${JSON.stringify(kinds)}`);
  }
  const codes = Object.keys(report.load_issues?.by_code ?? {});
  for (const code of e.codes ?? []) if (!codes.includes(code)) out.push(`no ${code} load issue (found ${codes.join(', ') || 'none'})`);
  for (const code of e.notCodes ?? []) if (codes.includes(code)) out.push(`a ${code} load issue`);
  if (e.requests !== undefined && report.join?.client_requests !== e.requests) out.push(`${report.join?.client_requests} client requests, expected ${e.requests}`);
  if (e.matched !== undefined && report.join?.matched !== e.matched) out.push(`${report.join?.matched} matched, expected ${e.matched}`);
  return out;
}

function sortKeys(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}
