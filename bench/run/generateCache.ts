/**
 * Generated runs are cached in out/bench/runs/<size>: a run is reused when all four files exist and
 * expected.json records the same options as the preset (same options + seed → byte-identical files).
 */
import { existsSync, readFileSync } from 'fs';
import * as path from 'path';
import { DEFAULT_OPTIONS, PRESETS, type GenerateOptions } from '../generate/options';
import { generateRun } from '../generate/run';

export const SIZES = ['10k', '100k', '1m'] as const;
export type Size = (typeof SIZES)[number];

export const RUN_FILES = ['k6.ndjson', 'requests.ndjson', 'spans.otlp.jsonl', 'expected.json'] as const;

export function presetOptions(size: Size): GenerateOptions {
  return { ...DEFAULT_OPTIONS, ...PRESETS[`bench-${size}`] };
}

/** True when the cached run was generated with exactly these options. */
export function isCached(options: GenerateOptions): boolean {
  if (!RUN_FILES.every((f) => existsSync(path.join(options.outDir, f)))) return false;
  try {
    const expected = JSON.parse(readFileSync(path.join(options.outDir, 'expected.json'), 'utf8')) as { options?: Record<string, unknown> };
    const recorded = expected.options ?? {};
    return (Object.keys(recorded) as Array<keyof GenerateOptions>).every((k) => k === 'outDir' || recorded[k] === options[k]) &&
      (Object.keys(options) as Array<keyof GenerateOptions>).every((k) => k === 'outDir' || k in recorded);
  } catch {
    return false;
  }
}

/** Returns the run directory, generating the run first unless it is cached. */
export async function ensureRun(size: Size, log: (line: string) => void): Promise<string> {
  const options = presetOptions(size);
  if (isCached(options)) {
    log(`${size}: using cached run in ${options.outDir}`);
  } else {
    log(`${size}: generating (npm run generate -- --preset bench-${size}) …`);
    const run = await generateRun(options);
    log(`${size}: generated ${(run.bytes / 1e6).toFixed(0)} MB in ${run.seconds.toFixed(1)} s`);
  }
  return options.outDir;
}
