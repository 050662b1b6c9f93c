/**
 * Scenario options of the generator: several routes with their own models, a stepped arrival rate,
 * one inference pool per model, and degradations that switch on at a time (a pool that loses slots,
 * batching pressure, a slow gateway, a generator that opens new connections, a proxy that holds the
 * first chunk, a slow response path, work no span covers). Each one is a known truth for a diagnosis
 * (src/core/analysis/diagnose/rules.ts) or a group figure.
 *
 * All of it is off by default: a run without scenario flags draws the same numbers and writes the same
 * bytes as before these options existed (samples/ and the bench presets stay byte-identical).
 */

/** A route of the gateway and the models it serves (by ModelClass name, workload.ts). */
export interface RouteSpec {
  /** Route id as the records and the k6 `route` tag carry it, e.g. `chat`. */
  id: string;
  /** HTTP path of the route (the root span is `POST <path>`). */
  path: string;
  weight: number;
  models: string[];
}

/** One step of a stepped arrival rate. */
export interface RateStep {
  rate: number;
  durationS: number;
}

export type DegradeKind = 'pool' | 'batch' | 'gateway' | 'connections' | 'first-chunk' | 'network' | 'unattributed';

/**
 * A degradation from `atS` seconds after the run start on:
 * - pool: the pool keeps `factor` of its slots (of `model`'s pool, or every pool);
 * - batch: the contention of a busy pool (per-token slow-down) is multiplied by `factor`;
 * - gateway: the gateway spans (auth.check, request.prepare, route.select) last `factor` times longer;
 * - connections: every request opens a new connection, `factor` times slower to connect;
 * - first-chunk: a proxy holds the first streamed chunk `factor` ms (TTFT only; the total is unchanged);
 * - network: the response takes `factor` ms more to reach the client (outside the root span);
 * - unattributed: `factor` ms of server work inside the root, after generation, that no span covers.
 */
export interface Degradation {
  kind: DegradeKind;
  atS: number;
  factor: number;
  model?: string;
}

export interface ScenarioOptions {
  /** Routes with their models; null = the one chat route and every model (the default run). */
  routes: RouteSpec[] | null;
  /** Stepped rate, replacing --rate/--duration/--ramp for arrivals (pools are still sized for --rate). */
  steps: RateStep[] | null;
  /** One pool (slots and queue) per model instead of one shared pool. */
  poolPerModel: boolean;
  degrade: Degradation[];
}

export const DEGRADE_KINDS: readonly DegradeKind[] = ['pool', 'batch', 'gateway', 'connections', 'first-chunk', 'network', 'unattributed'];

export function emptyScenario(): ScenarioOptions {
  return { routes: null, steps: null, poolPerModel: false, degrade: [] };
}

export const SCENARIO_USAGE = `  [--routes ID=PATH:WEIGHT:MODEL+MODEL,…] [--steps RATE:SECONDS,…] [--pool-per-model]
  [--degrade KIND@SECONDS:FACTOR[:MODEL]] (KIND: ${DEGRADE_KINDS.join(', ')}; repeatable)`;

/** `chat=/v1/chat/completions:0.7:llama-3.1-8b-instruct+llama-3.1-70b-instruct,…` */
export function parseRoutes(text: string): RouteSpec[] {
  return text.split(',').map((part) => {
    const m = /^([A-Za-z0-9_.-]+)=(\/[^:]*):([0-9.]+):([A-Za-z0-9_.+-]+)$/.exec(part.trim());
    if (!m || !(Number(m[3]) > 0)) throw new Error(`--routes expects ID=PATH:WEIGHT:MODEL+MODEL, got '${part}'`);
    return { id: m[1], path: m[2], weight: Number(m[3]), models: m[4].split('+') };
  });
}

/** `10:60,20:60,40:60` (rate per second : seconds). */
export function parseSteps(text: string): RateStep[] {
  return text.split(',').map((part) => {
    const m = /^([0-9.]+):([0-9.]+)$/.exec(part.trim());
    if (!m || !(Number(m[1]) > 0) || !(Number(m[2]) > 0)) throw new Error(`--steps expects RATE:SECONDS,…, got '${part}'`);
    return { rate: Number(m[1]), durationS: Number(m[2]) };
  });
}

/** `pool@120:0.5:llama-3.1-70b-instruct` */
export function parseDegradation(text: string): Degradation {
  const m = /^([a-z-]+)@([0-9.]+):([0-9.]+)(?::([A-Za-z0-9_.-]+))?$/.exec(text.trim());
  if (!m || !(DEGRADE_KINDS as readonly string[]).includes(m[1])) {
    throw new Error(`--degrade expects KIND@SECONDS:FACTOR[:MODEL] with KIND one of ${DEGRADE_KINDS.join(', ')}, got '${text}'`);
  }
  const d: Degradation = { kind: m[1] as DegradeKind, atS: Number(m[2]), factor: Number(m[3]) };
  if (m[4] !== undefined) d.model = m[4];
  return d;
}

/**
 * Applies one scenario flag to `scenario`; returns how many arguments it consumed (0: not a scenario
 * flag). Called by options.ts parseArgs.
 */
export function parseScenarioFlag(flag: string, value: string | undefined, scenario: ScenarioOptions): number {
  const need = (): string => {
    if (value === undefined || value.startsWith('--')) throw new Error(`${flag} expects a value`);
    return value;
  };
  switch (flag) {
    case '--routes':
      scenario.routes = parseRoutes(need());
      return 2;
    case '--steps':
      scenario.steps = parseSteps(need());
      return 2;
    case '--pool-per-model':
      scenario.poolPerModel = true;
      return 1;
    case '--degrade':
      scenario.degrade.push(parseDegradation(need()));
      return 2;
    default:
      return 0;
  }
}

export function isEmptyScenario(s: ScenarioOptions | undefined): boolean {
  return s === undefined || (s.routes === null && s.steps === null && !s.poolPerModel && s.degrade.length === 0);
}

/** The factor of `kind` in force at `tNs` (ns since the run start) for `model`, or undefined. */
export function degradation(s: ScenarioOptions | undefined, kind: DegradeKind, tNs: number, model?: string): number | undefined {
  if (s === undefined) return undefined;
  let factor: number | undefined;
  for (const d of s.degrade) {
    if (d.kind !== kind || tNs < d.atS * 1e9) continue;
    if (d.model !== undefined && model !== undefined && d.model !== model) continue;
    factor = d.factor;
  }
  return factor;
}

/** Total duration of the steps, in seconds. */
export function stepsDurationS(steps: readonly RateStep[]): number {
  return steps.reduce((a, s) => a + s.durationS, 0);
}
