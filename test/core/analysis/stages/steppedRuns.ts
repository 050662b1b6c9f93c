/**
 * Stepped runs for the stage tests: the bench generator's stepped rate (four steps of 60 s) into a pool
 * of known size, with the generator's own truth per request (its queue time, never read back from the
 * files) beside the records it wrote.
 */
import { mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from '../../../../bench/generate/options';
import { generateRun } from '../../../../bench/generate/run';
import type { ScenarioRun } from '../extended/scenarioRuns';

/** 10, 20, 30, 40 requests/s, 60 s each; no lost spans or roots, so every success is matched. */
export const STEPS = ['--steps', '10:60,20:60,30:60,40:60', '--lost-root-fraction', '0', '--lost-span-fraction', '0'];
export const STEP_S = 60;
export const STEP_RATES = [10, 20, 30, 40];

/** The generator's truth per trace ID: queue time (ms) and whether the request was dropped. */
export interface Truth {
  queueMs: Map<string, number>;
  dropped: number[];
}

const made: string[] = [];

export async function generateStepped(name: string, args: readonly string[]): Promise<{ run: ScenarioRun; truth: Truth }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `pw-stages-${name}-`));
  made.push(dir);
  const truth: Truth = { queueMs: new Map(), dropped: [] };
  await generateRun(parseArgs([...args, '--out', dir]), (r) => {
    if (r.dropped) truth.dropped.push(r.scheduledNs / 1e6);
    else if (r.traceId !== null && r.server !== null) truth.queueMs.set(r.traceId, r.server.gpuQueueNs / 1e6);
  });
  return { run: { dir, records: path.join(dir, 'requests.ndjson'), spans: path.join(dir, 'spans.otlp.jsonl'), k6: path.join(dir, 'k6.ndjson') }, truth };
}

export function removeStepped(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** quantile_cont: position (n − 1)·p, linear interpolation between neighbours. */
export function quantileCont(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
