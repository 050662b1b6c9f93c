import { emptyScenario, parseScenarioFlag, SCENARIO_USAGE, type ScenarioOptions } from './scenario';

/** Everything that shapes a generated run. Same options + seed → byte-identical files. */
export interface GenerateOptions {
  seed: number;
  /** Exact number of scheduled iterations; when null the run lasts `durationS` at `rate`. */
  requests: number | null;
  /** Target arrival rate (requests/s, open model). */
  rate: number;
  durationS: number;
  /** Linear ramp from 0 to `rate` over the first seconds (0 = none). */
  rampS: number;
  /** Rate wave: rate × (1 + waveAmplitude·sin(2πt/wavePeriodS)), so the queue fills and drains. */
  waveAmplitude: number;
  wavePeriodS: number;
  outDir: string;
  /** GPU slots (concurrent generations); 0 = sized for ≈ 85–90 % utilisation at `rate`. */
  slots: number;
  /** Waiting requests above which the gateway answers 429. */
  maxQueue: number;
  /** k6 preAllocatedVUs/maxVUs: with none free, the iteration is dropped. */
  maxVus: number;
  droppedFraction: number;
  lostRootFraction: number;
  lostSpanFraction: number;
  errorFraction: number;
  /** Injected 503 (no healthy backend) answered at route.select. */
  unavailableFraction: number;
  /** Injected backend stalls that run past the client timeout. */
  stallFraction: number;
  transportFraction: number;
  streamingFraction: number;
  timeoutMs: number;
  gzip: boolean;
  /** HTTPS to the gateway: a TLS handshake on every new connection (k6 http_req_tls_handshaking). */
  tls: boolean;
  /** OTLP JSON layout (otlpWriter.ts OtlpShape): the Collector's compact proto-JSON or the JS SDK's request bodies. */
  otlpShape: 'collector' | 'sdk';
  /** Floor span starts to whole ms (OpenTelemetry JS), durations kept exact. */
  msStartGranularity: boolean;
  /** OTLP intValue as JSON strings (Collector, proto-JSON) or numbers (OpenTelemetry JS). */
  intValues: 'string' | 'number';
  /** Run start, epoch seconds (whole seconds). */
  startEpochS: number;
  runId: string;
  /** OTLP batch flush interval and size (BatchSpanProcessor → Collector file exporter). */
  exportIntervalMs: number;
  maxBatchSpans: number;
  windowS: number;
  /** Routes, stepped rate, pools per model, degradations (scenario.ts); absent in a default run. */
  scenario?: ScenarioOptions;
}

export const DEFAULT_OPTIONS: GenerateOptions = {
  seed: 1,
  requests: null,
  rate: 10,
  durationS: 90,
  rampS: 0,
  waveAmplitude: 0,
  wavePeriodS: 60,
  outDir: 'out/generated',
  slots: 0,
  maxQueue: 0,
  maxVus: 512,
  droppedFraction: 0,
  lostRootFraction: 0.015,
  lostSpanFraction: 0.005,
  errorFraction: 0.01,
  unavailableFraction: 0.005,
  stallFraction: 0.002,
  transportFraction: 0.003,
  streamingFraction: 0.5,
  timeoutMs: 30000,
  gzip: false,
  tls: false,
  otlpShape: 'collector',
  msStartGranularity: false,
  intValues: 'string',
  startEpochS: 1795964400, // 2026-11-29T15:00:00Z
  runId: 'gen',
  exportIntervalMs: 1000,
  maxBatchSpans: 512,
  windowS: 60,
};

/** What the OpenTelemetry JS SDK writes besides its layout: intValue as JSON numbers, starts on a ms clock. */
export const SDK_WRITES: Partial<GenerateOptions> = { intValues: 'number', msStartGranularity: true };

/**
 * The SDK shape's batching: request bodies of ≈ 40–170 spans (35–155 KB lines), as a sink stored them
 * in the run issue 12 describes; at the bench rates the batch cap, not the interval, closes most of them.
 */
const SDK_BATCHES: Partial<GenerateOptions> = { otlpShape: 'sdk', ...SDK_WRITES, exportIntervalMs: 50, maxBatchSpans: 170 };

const BENCH_10K: Partial<GenerateOptions> = { seed: 10000, requests: 10000, rate: 200, rampS: 5, waveAmplitude: 0.3, wavePeriodS: 20, maxVus: 2000, droppedFraction: 0.002, tls: true, runId: 'bench-10k' };
const BENCH_100K: Partial<GenerateOptions> = { seed: 100000, requests: 100000, rate: 500, rampS: 10, waveAmplitude: 0.3, wavePeriodS: 60, maxVus: 5000, droppedFraction: 0.002, tls: true, runId: 'bench-100k' };
const BENCH_1M: Partial<GenerateOptions> = { seed: 1000000, requests: 1000000, rate: 1000, rampS: 30, waveAmplitude: 0.3, wavePeriodS: 120, maxVus: 10000, droppedFraction: 0.002, tls: true, runId: 'bench-1m' };

/**
 * Benchmark presets: sizes of the performance targets (docs/performance.md), each in the Collector's compact
 * shape and (`-sdk`, same seed, so the same simulated requests) in the JS SDK's shape.
 */
export const PRESETS: Record<string, Partial<GenerateOptions>> = {
  // The committed samples/: ≈ 600 requests, a few % rejections, ~1.5 % lost roots, no dropped iterations.
  'sample': { seed: 20261129, rate: 10, durationS: 90, rampS: 10, runId: 'sample', slots: 32, maxQueue: 6, maxVus: 64, outDir: 'samples' },
  // Benchmarks (docs/performance.md): enough VUs that the executor only drops the injected 0.2 %.
  'bench-10k': { ...BENCH_10K, outDir: 'out/bench/runs/10k' },
  'bench-100k': { ...BENCH_100K, outDir: 'out/bench/runs/100k' },
  'bench-1m': { ...BENCH_1M, outDir: 'out/bench/runs/1m' },
  'bench-10k-sdk': { ...BENCH_10K, ...SDK_BATCHES, outDir: 'out/bench/runs/sdk-10k' },
  'bench-100k-sdk': { ...BENCH_100K, ...SDK_BATCHES, outDir: 'out/bench/runs/sdk-100k' },
  'bench-1m-sdk': { ...BENCH_1M, ...SDK_BATCHES, outDir: 'out/bench/runs/sdk-1m' },
};

const FRACTIONS: Array<[string, keyof GenerateOptions]> = [
  ['--dropped-fraction', 'droppedFraction'],
  ['--lost-root-fraction', 'lostRootFraction'],
  ['--lost-span-fraction', 'lostSpanFraction'],
  ['--error-fraction', 'errorFraction'],
  ['--unavailable-fraction', 'unavailableFraction'],
  ['--stall-fraction', 'stallFraction'],
  ['--transport-fraction', 'transportFraction'],
  ['--streaming-fraction', 'streamingFraction'],
];

const NUMBERS: Array<[string, keyof GenerateOptions, 'int' | 'pos']> = [
  ['--seed', 'seed', 'int'],
  ['--rate', 'rate', 'pos'],
  ['--duration', 'durationS', 'pos'],
  ['--ramp', 'rampS', 'int'],
  ['--wave-amplitude', 'waveAmplitude', 'pos'],
  ['--wave-period', 'wavePeriodS', 'pos'],
  ['--slots', 'slots', 'int'],
  ['--max-queue', 'maxQueue', 'int'],
  ['--max-vus', 'maxVus', 'int'],
  ['--timeout-ms', 'timeoutMs', 'pos'],
  ['--start-epoch', 'startEpochS', 'int'],
  ['--export-interval-ms', 'exportIntervalMs', 'pos'],
  ['--max-batch-spans', 'maxBatchSpans', 'int'],
  ['--window', 'windowS', 'pos'],
];

export const USAGE = `usage: npm run generate -- [--preset sample|bench-10k|bench-100k|bench-1m|bench-10k-sdk|bench-100k-sdk|bench-1m-sdk]
  [--requests N | --rate R --duration S] [--ramp S] [--wave-amplitude A --wave-period S] [--seed N] [--out DIR] [--run-id ID]
  [--slots N] [--max-queue N] [--max-vus N] [--timeout-ms MS]
  [--dropped-fraction F] [--lost-root-fraction F] [--lost-span-fraction F] [--error-fraction F]
  [--unavailable-fraction F] [--stall-fraction F] [--transport-fraction F] [--streaming-fraction F]
  [--gzip] [--tls] [--otlp-shape collector|sdk] [--ms-start-granularity] [--int-values string|number] [--start-epoch S]
  [--export-interval-ms MS] [--max-batch-spans N] [--window S]
${SCENARIO_USAGE}`;

/** Parses CLI arguments over the defaults (and a preset, applied first). Throws with the usage on error. */
export function parseArgs(argv: readonly string[]): GenerateOptions {
  const presetAt = argv.indexOf('--preset');
  let options: GenerateOptions = { ...DEFAULT_OPTIONS };
  if (presetAt >= 0) {
    const name = argv[presetAt + 1];
    const preset = PRESETS[name];
    if (!preset) throw new Error(`unknown preset '${name}' (expected one of ${Object.keys(PRESETS).join(', ')})\n${USAGE}`);
    options = { ...options, ...preset };
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    const fraction = FRACTIONS.find(([f]) => f === flag);
    const numeric = NUMBERS.find(([f]) => f === flag);
    const scenario = options.scenario ?? emptyScenario();
    const used = parseScenarioFlag(flag, value, scenario);
    if (used > 0) {
      options.scenario = scenario;
      i += used - 1;
    } else if (flag === '--preset') {
      i++;
    } else if (flag === '--gzip') {
      options.gzip = true;
    } else if (flag === '--tls') {
      options.tls = true;
    } else if (flag === '--ms-start-granularity') {
      options.msStartGranularity = true;
    } else if (flag === '--out') {
      options.outDir = requireValue(flag, value);
      i++;
    } else if (flag === '--run-id') {
      options.runId = requireValue(flag, value);
      i++;
    } else if (flag === '--requests') {
      options.requests = parseNumber(flag, value, 'int');
      i++;
    } else if (flag === '--otlp-shape') {
      if (value !== 'collector' && value !== 'sdk') throw new Error(`--otlp-shape expects collector or sdk, got '${value}'`);
      options.otlpShape = value;
      // What the JS SDK writes; a later --int-values still overrides it.
      if (value === 'sdk') Object.assign(options, SDK_WRITES);
      i++;
    } else if (flag === '--int-values') {
      if (value !== 'string' && value !== 'number') throw new Error(`--int-values expects string or number, got '${value}'`);
      options.intValues = value;
      i++;
    } else if (fraction) {
      const f = parseNumber(flag, value, 'pos');
      if (f > 1) throw new Error(`${flag} expects a fraction in [0, 1], got ${value}`);
      (options as unknown as Record<string, number>)[fraction[1]] = f;
      i++;
    } else if (numeric) {
      (options as unknown as Record<string, number>)[numeric[1]] = parseNumber(flag, value, numeric[2]);
      i++;
    } else {
      throw new Error(`unknown argument '${flag}'\n${USAGE}`);
    }
  }
  if (options.rate <= 0) throw new Error('--rate must be > 0');
  if (options.waveAmplitude > 1) throw new Error('--wave-amplitude must be in [0, 1]');
  return options;
}

function requireValue(flag: string, value: string | undefined): string {
  if (value === undefined || value.startsWith('--')) throw new Error(`${flag} expects a value\n${USAGE}`);
  return value;
}

function parseNumber(flag: string, value: string | undefined, kind: 'int' | 'pos'): number {
  const n = Number(requireValue(flag, value));
  if (!Number.isFinite(n) || n < 0 || (kind === 'int' && !Number.isInteger(n))) {
    throw new Error(`${flag} expects a ${kind === 'int' ? 'non-negative integer' : 'non-negative number'}, got '${value}'`);
  }
  return n;
}
