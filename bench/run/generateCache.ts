/**
 * The bench's inputs, cached in `<data>/<input>-<size>` (default data directory out/bench/runs):
 * - compact: the generator in the OpenTelemetry Collector's compact proto-JSON shape (bench-<size>);
 * - sdk: the same simulated run in the OpenTelemetry JS SDK's OTLP/HTTP JSON shape (bench-<size>-sdk);
 * - real: the real joined-otel-js run replicated with fresh IDs (bench/replicate), ceil(N / 120) copies.
 * A run is reused when its files exist and expected.json records the same options (same options and
 * seed give byte-identical files).
 */
import { existsSync, readFileSync } from 'fs';
import * as path from 'path';
import { DEFAULT_OPTIONS, PRESETS, type GenerateOptions } from '../generate/options';
import { generateRun } from '../generate/run';
import { DEFAULT_CONCURRENT, DEFAULT_SOURCE, SOURCE_REQUESTS } from '../replicate/main';
import { replicateRun, type ReplicateOptions } from '../replicate/replicate';

export const SIZES = ['10k', '100k', '1m'] as const;
export type Size = (typeof SIZES)[number];

export const INPUTS = ['compact', 'sdk', 'real'] as const;
export type Input = (typeof INPUTS)[number];

export const INPUT_LABELS: Record<Input, string> = {
  compact: 'generator, Collector compact shape',
  sdk: 'generator, OpenTelemetry JS SDK shape',
  real: 'joined-otel-js replicated',
};

const REQUESTS: Record<Size, number> = { '10k': 10_000, '100k': 100_000, '1m': 1_000_000 };

export const RUN_FILES = ['k6.ndjson', 'requests.ndjson', 'spans.otlp.jsonl', 'expected.json'] as const;

export function runDir(dataDir: string, input: Input, size: Size): string {
  return path.join(dataDir, `${input}-${size}`);
}

export function presetOptions(size: Size, input: 'compact' | 'sdk', dataDir: string): GenerateOptions {
  const preset = PRESETS[input === 'sdk' ? `bench-${size}-sdk` : `bench-${size}`];
  return { ...DEFAULT_OPTIONS, ...preset, outDir: runDir(dataDir, input, size) };
}

export function replicateOptions(size: Size, dataDir: string): ReplicateOptions {
  return { source: DEFAULT_SOURCE, outDir: runDir(dataDir, 'real', size), copies: Math.ceil(REQUESTS[size] / SOURCE_REQUESTS), concurrent: DEFAULT_CONCURRENT, seed: REQUESTS[size] };
}

function recordedOptions(dir: string): Record<string, unknown> | undefined {
  if (!RUN_FILES.every((f) => existsSync(path.join(dir, f)))) return undefined;
  try {
    return (JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { options?: Record<string, unknown> }).options;
  } catch {
    return undefined;
  }
}

/** True when the cached run was generated with exactly these options. */
export function isCached(options: GenerateOptions): boolean {
  const recorded = recordedOptions(options.outDir);
  if (recorded === undefined) return false;
  return (Object.keys(recorded) as Array<keyof GenerateOptions>).every((k) => k === 'outDir' || recorded[k] === options[k]) &&
    (Object.keys(options) as Array<keyof GenerateOptions>).every((k) => k === 'outDir' || k in recorded);
}

function isReplicaCached(o: ReplicateOptions): boolean {
  const recorded = recordedOptions(o.outDir);
  return recorded !== undefined && recorded.copies === o.copies && recorded.concurrent === o.concurrent && recorded.seed === o.seed;
}

/** Returns the run directory of `input` at `size`, generating or replicating it first unless it is cached. */
export async function ensureRun(input: Input, size: Size, dataDir: string, log: (line: string) => void): Promise<string> {
  if (input === 'real') {
    const o = replicateOptions(size, dataDir);
    if (isReplicaCached(o)) {
      log(`${size} ${input}: using cached run in ${o.outDir}`);
    } else {
      log(`${size} ${input}: replicating joined-otel-js × ${o.copies} …`);
      const run = await replicateRun(o);
      log(`${size} ${input}: wrote ${(run.bytes / 1e6).toFixed(0)} MB in ${run.seconds.toFixed(1)} s`);
    }
    return o.outDir;
  }
  const options = presetOptions(size, input, dataDir);
  if (isCached(options)) {
    log(`${size} ${input}: using cached run in ${options.outDir}`);
  } else {
    log(`${size} ${input}: generating (${input === 'sdk' ? `bench-${size}-sdk` : `bench-${size}`}) …`);
    const run = await generateRun(options);
    log(`${size} ${input}: generated ${(run.bytes / 1e6).toFixed(0)} MB in ${run.seconds.toFixed(1)} s`);
  }
  return options.outDir;
}
