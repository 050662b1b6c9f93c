/**
 * The benchmark table (console and bench/RESULTS.md) and the machine description.
 */
import * as os from 'os';
import type { ChildResult } from './child';

export const METHOD_LABELS: Record<string, string> = {
  load: '(a) Phasewise first load + analysis',
  'load-memory': '(a0) the same in memory (CLI without --db)',
  reanalyze: '(b) Phasewise re-analysis (--db)',
  'reanalyze-groups': '(b) the same with --group-by model,route',
  'reanalyze-phases': '(b′) re-analysis, another phase mapping',
  extract: '(c) DuckDB bare extraction',
  script: '(d) Node script (JSON.parse + Map + sort)',
};

export interface Measurement {
  size: string;
  /** Which bench input (generateCache.ts INPUTS). */
  input: string;
  inputBytes: number;
  loadAvg: string;
  /** The run shown (with --repeat: the median run by wall time). */
  result: ChildResult;
  /** Every run's wall time, in the order they ran (with --repeat). */
  wallSeconds?: number[];
  /** Median wall time of those runs. */
  medianWall?: number;
  /** Largest peak RSS over the runs. */
  maxRssMB?: number;
}

export interface SizeSummary {
  /** When this size and input were measured (ISO date): a machine's table merges runs of several days. */
  measuredAt?: string;
  size: string;
  input: string;
  inputBytes: number;
  rows: Measurement[];
  envelope: { phasewise?: number; inMemory?: number; script?: number; expected?: number; reanalysis?: number; reanalysisPhases?: number; ok: boolean; note: string };
}

/** Wall time of a row: the median over its runs. */
function wallOf(m: Measurement): number {
  return m.medianWall ?? m.result.wallSeconds;
}

export function loadAverage(): string {
  return os.loadavg().map((v) => v.toFixed(1)).join(' ');
}

export function machineLines(duckdbVersion: string): string[] {
  const cpus = os.cpus();
  return [
    `- CPU: ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} logical cores`,
    `- Memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; OS: ${os.type()} ${os.release()} (${os.arch()})`,
    `- Node ${process.version}; DuckDB ${duckdbVersion} (@duckdb/node-api)`,
    `- Date: ${new Date().toISOString()}`,
  ];
}

function wall(rows: Measurement[], method: string): number | undefined {
  const row = rows.find((r) => r.result.method === method);
  return row ? wallOf(row) : undefined;
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a';
}

/** The ratios docs/performance.md sets targets on: (d)/(a) ≥ 2 (first load + analysis against the script), and the engine's share. */
export function ratioLine(s: SizeSummary): string {
  const w = (m: string): number | undefined => wall(s.rows, m);
  const target = (first: string): string => {
    const r = w('script') !== undefined && w(first) !== undefined ? (w('script') as number) / (w(first) as number) : undefined;
    return r === undefined ? '' : r >= 2 ? ' (target ≥ 2: met)' : ' (target ≥ 2: MISSED)';
  };
  return `(d)/(a) = ${ratio(w('script'), w('load'))}${target('load')}, (d)/(a0) = ${ratio(w('script'), w('load-memory'))}${target('load-memory')}, (a)/(c) = ${ratio(w('load'), w('extract'))}, (d)/(b) = ${ratio(w('script'), w('reanalyze'))}, (d)/(b′) = ${ratio(w('script'), w('reanalyze-phases'))}`;
}

/** Markdown table (also readable on the console). */
export function table(summaries: SizeSummary[]): string[] {
  const lines = [
    '| size | input | input MB | method | wall s (median) | runs, s | peak RSS MB | input MB/s | CPU s | load avg (1/5/15 min) |',
    '|---|---|---:|---|---:|---|---:|---:|---:|---|',
  ];
  for (const s of summaries) {
    const mb = s.inputBytes / 1e6;
    for (const m of s.rows) {
      const r = m.result;
      const w = wallOf(m);
      const cpu = r.cpuSeconds !== undefined ? r.cpuSeconds.toFixed(1) : 'n/a';
      const runs = (m.wallSeconds ?? [r.wallSeconds]).map((x) => x.toFixed(2)).join(' ');
      lines.push(`| ${s.size} | ${s.input} | ${mb.toFixed(0)} | ${METHOD_LABELS[r.method]} | ${w.toFixed(2)} | ${runs} | ${(m.maxRssMB ?? r.maxRssMB).toFixed(0)} | ${(mb / w).toFixed(1)} | ${cpu} | ${m.loadAvg} |`);
    }
  }
  return lines;
}

/** Stage names in the order a first load runs them (a re-analysis shows the ones it ran). */
function stageOrder(rows: readonly Measurement[]): string[] {
  const names: string[] = [];
  for (const m of rows) for (const t of m.result.stages ?? []) if (!names.includes(t.stage)) names.push(t.stage);
  return names;
}

/**
 * Where the time goes, per stage, for one method: one row per stage, a wall and a CPU column per
 * size and input (the median run's), so that a regression shows in the stage that caused it.
 */
export function stageTable(summaries: readonly SizeSummary[], method: string): string[] {
  const cols = summaries.flatMap((s) => s.rows.filter((m) => m.result.method === method && (m.result.stages?.length ?? 0) > 0).map((m) => ({ s, m })));
  if (cols.length === 0) return [];
  const stages = stageOrder(cols.map((c) => c.m));
  const cell = (m: Measurement, stage: string): string => {
    const t = m.result.stages?.find((x) => x.stage === stage);
    return t === undefined ? '| | ' : `| ${t.wallSeconds.toFixed(2)} | ${t.cpuSeconds.toFixed(2)} `;
  };
  const total = (m: Measurement): string => {
    const all = m.result.stages ?? [];
    return `| ${all.reduce((a, t) => a + t.wallSeconds, 0).toFixed(2)} | ${all.reduce((a, t) => a + t.cpuSeconds, 0).toFixed(2)} `;
  };
  return [
    `| stage ${cols.map((c) => `| ${c.s.size} ${c.s.input} wall s | CPU s `).join('')}|`,
    `|---${cols.map(() => '|---:|---:').join('')}|`,
    ...stages.map((stage) => `| ${stage} ${cols.map((c) => cell(c.m, stage)).join('')}|`),
    `| **whole process** ${cols.map((c) => total(c.m)).join('')}|`,
    `| load avg (1 min) ${cols.map((c) => `| ${c.m.loadAvg.split(' ')[0]} | `).join('')}|`,
    `| first part ready (verdict, join, owners), since start ${cols.map((c) => (c.m.result.firstPart ? `| ${c.m.result.firstPart.wallSeconds.toFixed(2)} | ${c.m.result.firstPart.cpuSeconds.toFixed(2)} ` : '| | ')).join('')}|`,
  ];
}

/** What one machine's section is made from; kept in the file (a comment) so that a later run merges into it. */
export interface MachineResults {
  key: string;
  machine: string[];
  commands: string[];
  summaries: SizeSummary[];
  editor: string[];
}

/** The machine a section belongs to: CPU model and logical cores (the figures of another machine are not comparable). */
export function machineKey(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length}`;
}

const DATA_MARK = '<!-- bench-data ';

/** One machine's section: its current table, the ratios, where the time goes per stage, the editor figures. */
export function machineSection(r: MachineResults): string {
  const stageMethods = ['load', 'load-memory', 'reanalyze', 'reanalyze-phases'].filter((m) => stageTable(r.summaries, m).length > 0);
  const out = [
    `## ${r.key}`,
    '',
    ...r.machine,
    `- Measured by: ${r.commands.map((c) => `\`${c}\``).join('; ')}`,
    '',
    '### Side by side',
    '',
    ...table(r.summaries),
    '',
    ...r.summaries.map((s) => `- ${s.size} ${s.input}${s.measuredAt ? ` (${s.measuredAt.slice(0, 16).replace('T', ' ')} UTC)` : ''}: ${ratioLine(s)}; envelope p95 ${s.envelope.ok ? 'agrees' : 'DISAGREES'}: ${s.envelope.note}`),
    '',
  ];
  for (const method of stageMethods) {
    out.push(`### Where the time goes: ${METHOD_LABELS[method]}`, '', ...stageTable(r.summaries, method), '');
  }
  const slowest = r.summaries.flatMap((s) => s.rows.filter((m) => m.result.method === 'load').map((m) => ({ s, m })));
  if (slowest.length > 0) {
    out.push('### Slowest statements of (a)', '');
    for (const { s, m } of slowest) {
      const statements = m.result.steps.filter((t) => t.step.startsWith('  '));
      out.push(`- ${s.size} ${s.input}: ${statements.map((t) => `${t.seconds.toFixed(2)} s ${t.step.trim().replace(/\|/g, '\\|').slice(0, 90)}`).join('; ')}`);
    }
    out.push('');
  }
  out.push('### Editor', '', ...r.editor, '');
  out.push(`${DATA_MARK}${JSON.stringify({ ...r, summaries: r.summaries })} -->`, '');
  return out.join('\n');
}

const HEADER = [
  '# Phasewise benchmark results',
  '',
  'Written by `npm run bench` (bench/run/main.ts); do not edit by hand. One section per machine, holding the',
  'current figures of that machine: a run replaces the rows of the sizes and inputs it measured and keeps the',
  'others, each row with its date\'s load average. Inputs = k6.ndjson + spans.otlp.jsonl of: `compact`, a',
  'generated run in the OpenTelemetry Collector\'s compact proto-JSON (bench/generate); `sdk`, the same simulated',
  'run in the OpenTelemetry JS SDK\'s OTLP/HTTP JSON shape (empties kept, 40–170 spans per request body); `real`,',
  'the real joined-otel-js run replicated with fresh IDs (bench/replicate). Each method runs in its own process;',
  'peak RSS is that process\'s maxRSS (the largest over the runs). (b) re-analyses the database file written by',
  '(a) with a different contract (10 s windows, another gate set) without re-parsing; (b′) the same with another',
  'phase mapping (bench/run/child.ts PHASES_B). With --repeat the methods run in turn and the wall time is the',
  'median (every run listed); CPU s, the stages and the load average are those of the median run. CPU s is the',
  'whole process (every DuckDB thread): on a shared 2-core machine the load inflates wall time far more than CPU.',
  '',
].join('\n');

/** The sections of a results file, by machine key, with the data each was written from. */
export function readSections(text: string): MachineResults[] {
  const out: MachineResults[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(DATA_MARK)) continue;
    try {
      out.push(JSON.parse(line.slice(DATA_MARK.length, line.lastIndexOf(' -->'))) as MachineResults);
    } catch {
      // A hand-damaged data line: that machine's section is written afresh.
    }
  }
  return out;
}

/**
 * The results file after this run: its machine's section merged (rows of the sizes and inputs measured
 * now replace the earlier ones; editor figures measured now replace the earlier ones), the other
 * machines' sections kept as they were.
 */
export function mergeResults(existing: string | undefined, now: MachineResults): string {
  const sections = existing === undefined ? [] : readSections(existing);
  const before = sections.find((s) => s.key === now.key);
  const measured = new Set(now.summaries.map((s) => `${s.size} ${s.input}`));
  const merged: MachineResults = before === undefined ? now : {
    key: now.key,
    machine: now.machine,
    commands: [...before.commands.filter((c) => !now.commands.includes(c)), ...now.commands].slice(-4),
    summaries: [...before.summaries.filter((s) => !measured.has(`${s.size} ${s.input}`)), ...now.summaries].sort(bySizeThenInput),
    editor: now.editor.length > 0 ? now.editor : before.editor,
  };
  const all = [...sections.filter((s) => s.key !== now.key), merged].sort((a, b) => a.key.localeCompare(b.key));
  return `${HEADER}\n${all.map(machineSection).join('\n')}`;
}

const SIZE_ORDER = ['10k', '100k', '1m'];
const INPUT_ORDER = ['compact', 'sdk', 'real'];

function bySizeThenInput(a: SizeSummary, b: SizeSummary): number {
  return SIZE_ORDER.indexOf(a.size) - SIZE_ORDER.indexOf(b.size) || INPUT_ORDER.indexOf(a.input) - INPUT_ORDER.indexOf(b.input);
}
