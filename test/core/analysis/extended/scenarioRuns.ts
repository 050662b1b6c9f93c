/**
 * Generated runs with a known truth for the issue-17 tests: the bench generator with scenario flags
 * (routes, a stepped rate, pools per model, degradations), analysed from the per-request records and
 * the OTLP spans; and a plain-TypeScript reading of the records for the independent figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from '../../../../bench/generate/options';
import { generateRun } from '../../../../bench/generate/run';
import { analyzeRun } from '../../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions, type GateSpec } from '../../../../src/core/analysis/options';
import type { Report } from '../../../../src/core/report/model';
import { loadRun } from '../../../../src/core/run/loadRun';
import { DuckStore } from '../../../../src/core/store/duckStore';

/** A steady run with room to spare: 20/s for 120 s, 400 slots (no queue), no faults but the defaults. */
export const STEADY = ['--rate', '20', '--duration', '120', '--ramp', '0', '--slots', '400', '--max-queue', '400'];

export interface ScenarioRun {
  dir: string;
  records: string;
  spans: string;
  k6: string;
}

const made: string[] = [];

export async function generateScenario(name: string, args: readonly string[]): Promise<ScenarioRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `pw-i17-${name}-`));
  made.push(dir);
  await generateRun(parseArgs([...args, '--out', dir]));
  return { dir, records: path.join(dir, 'requests.ndjson'), spans: path.join(dir, 'spans.otlp.jsonl'), k6: path.join(dir, 'k6.ndjson') };
}

export function removeScenarios(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export async function analyzeScenario(run: ScenarioRun, options: Partial<AnalysisOptions> = {}, client: 'records' | 'k6' = 'records', gates: GateSpec[] = []): Promise<Report> {
  const store = new DuckStore();
  try {
    await loadRun(store, { run: [client === 'records' ? run.records : run.k6], spans: [run.spans] });
    return await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, ...options }, gates);
  } finally {
    await store.close();
  }
}

/** One line of the generator's per-request records, as written (recordsWriter.ts). */
export interface Record17 {
  trace_id: string | null;
  route_id: string;
  model_class: string;
  scheduled_offset_ms: number;
  send_offset_ms: number | null;
  first_content_offset_ms: number | null;
  final_content_offset_ms: number | null;
  scheduler_lag_ms: number | null;
  output_token_count: number | null;
  outcome: string;
  streaming: boolean;
  generator_dropped: boolean;
}

export function readRecords(file: string): Record17[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record17)
    .filter((r) => !r.generator_dropped);
}

/** client_total_ms of a record (final − send), as docs/metrics.md §1 defines it for records. */
export function totalOf(r: Record17): number | null {
  return r.final_content_offset_ms !== null && r.send_offset_ms !== null ? r.final_content_offset_ms - r.send_offset_ms : null;
}
