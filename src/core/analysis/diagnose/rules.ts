/**
 * The symptom table: how phases move together points at the owner. Every rule, its thresholds and its
 * wording live here and only here; diagnose/evaluate.ts applies them to a window series (or to a
 * stepped run's stages). A rule fires when its figure rose between two windows (the later one higher,
 * by at least both limits) while the figures it needs flat stayed within their tolerance (within the
 * absolute OR the relative one) between the same two windows.
 *
 * The limits are set well above window-to-window noise of medians over ≥ 20 requests (diagnose tests:
 * a steady generated run fires nothing) and below the effects the generated scenarios inject.
 */
import type { DiagnosisCode } from '../../report/model';

/** A figure of a window: an owner column's statistic, or the window's mean in-flight. */
export interface FigureRef {
  figure: string;
  stat: 'p50' | 'p95' | 'mean' | 'value';
}

export interface RiseLimit extends FigureRef {
  /** At least this much higher (the figure's unit: ms, ms/token, requests). */
  minAbsolute: number;
  /** And at least this fraction higher than the earlier window (1 = doubled). */
  minRelative: number;
}

export interface FlatLimit extends FigureRef {
  maxAbsolute: number;
  maxRelative: number;
}

export interface RuleDecl {
  code: DiagnosisCode;
  title: string;
  rises: RiseLimit;
  /** Figures that must not have moved between the same two windows. */
  flat: readonly FlatLimit[];
  /** Figures that must have risen with it (same windows, relative limit only). */
  alsoRises?: readonly RiseLimit[];
  /** Across every compared window, Pearson r of the rule's figure against this one at least minR (from minWindows windows). */
  correlates?: FigureRef & { minR: number; minWindows: number };
  /** The first thing to check. */
  firstCheck: string;
}

/** The rules, in the order the report lists what fired. */
export const RULES: readonly RuleDecl[] = [
  {
    code: 'generator-connections',
    title: 'Transport setup rose while the server stayed flat: the load generator is opening connections',
    rises: { figure: 'transport_setup_ms', stat: 'mean', minAbsolute: 2, minRelative: 1 },
    flat: [{ figure: 'server_root_ms', stat: 'p50', maxAbsolute: 10, maxRelative: 0.15 }],
    firstCheck:
      'The generator opens new connections or exhausts a local resource: check connection reuse (k6 noConnectionReuse, keep-alive, a connection limit), the generator host\'s ephemeral ports, file descriptors and CPU, and DNS/TLS session reuse.',
  },
  {
    code: 'gateway-bound',
    title: 'The gateway rose while the queue stayed flat: the gateway itself is the bottleneck',
    rises: { figure: 'gateway_ms', stat: 'p50', minAbsolute: 3, minRelative: 0.5 },
    flat: [{ figure: 'gpu_queue_ms', stat: 'p50', maxAbsolute: 5, maxRelative: 0.25 }],
    firstCheck:
      'Rate limiting, serialization, masking or too few gateway replicas: check the gateway\'s CPU and replica count, its rate limiter, and per-request work such as auth, prompt masking or body (de)serialization.',
  },
  {
    code: 'pool-saturation',
    title: 'The queue rose while generation per token stayed flat: the inference pool is saturated',
    rises: { figure: 'gpu_queue_ms', stat: 'p50', minAbsolute: 20, minRelative: 1 },
    flat: [{ figure: 'generation_ms_per_output_token', stat: 'p50', maxAbsolute: 1, maxRelative: 0.2 }],
    firstCheck:
      'Inference pool saturation: compare the in-flight requests with the pool\'s slots (replicas × max concurrent sequences), check for lost replicas, and add capacity or lower the offered rate.',
  },
  {
    code: 'batch-pressure',
    title: 'Generation per token rose with the requests in flight: batching or memory pressure',
    rises: { figure: 'generation_ms_per_output_token', stat: 'p50', minAbsolute: 0.5, minRelative: 0.35 },
    flat: [],
    alsoRises: [{ figure: 'in_flight', stat: 'value', minAbsolute: 0, minRelative: 0.2 }],
    correlates: { figure: 'in_flight', stat: 'value', minR: 0.7, minWindows: 4 },
    firstCheck:
      'Batching too aggressive or memory pressure: check the server\'s batch size / max concurrent sequences, KV-cache usage, preemptions or swaps, and whether decode slows as the batch grows.',
  },
  {
    code: 'pre-start-wait',
    title: 'TTFT worsened while the total barely changed: the wait before the first token grew',
    rises: { figure: 'client_ttft_ms', stat: 'p50', minAbsolute: 50, minRelative: 0.5 },
    flat: [{ figure: 'client_total_ms', stat: 'p50', maxAbsolute: 25, maxRelative: 0.15 }],
    firstCheck:
      'The pre-start wait grew: compare client TTFT with server_ttft_ms (a gap outside the server means a proxy holding the first chunk), then admission queues and prefill before the first token.',
  },
  {
    code: 'outside-root',
    title: 'The client total rose while the root span did not: the time is outside the root span',
    rises: { figure: 'client_total_ms', stat: 'p50', minAbsolute: 50, minRelative: 0.2 },
    flat: [{ figure: 'server_root_ms', stat: 'p50', maxAbsolute: 10, maxRelative: 0.1 }],
    firstCheck:
      'Response transfer or work outside the root span: check the response path (bandwidth, proxies, TLS termination, client receiving time) and whether the root span ends before the response is flushed.',
  },
  {
    code: 'missing-phase',
    title: 'Unattributed server time grew: a phase is missing or a boundary is wrong',
    rises: { figure: 'unattributed_server_ms', stat: 'p50', minAbsolute: 10, minRelative: 0.5 },
    flat: [],
    firstCheck:
      'A missing phase or a wrong boundary (never the network): open a slow trace\'s waterfall, find the server time no phase selector claims (an uninstrumented step, a span no selector picks), and add it to trace.phases.',
  },
];

export const DIAGNOSIS_CODES: readonly DiagnosisCode[] = RULES.map((r) => r.code);
