/**
 * The report sections beside the whole-run figures, built by hand for the renderer tests: two routes
 * (one below the 200-call floor), two fixed windows where the queue doubled, one diagnosis, a biased
 * join and the provenance of two inputs.
 */
import { handBuiltStages } from './handBuiltStages';
import type { GroupFigures, Report, SeriesStat, SeriesWindow, UserObserved } from '../../../src/core/report/model';

type Extended = Pick<Report, 'grouping' | 'groups' | 'window_series' | 'diagnoses' | 'diagnosis_status' | 'join_bias' | 'user_observed' | 'provenance' | 'stages'>;

const stat = (n: number, p50: number, p95: number): SeriesStat => ({ n, p50, p95, p99: p95 + 10, mean: (p50 + p95) / 2 });
const q = (n: number, p50: number, p95: number) => ({ n, p50, p95, p99: p95 + 10, mean: (p50 + p95) / 2, min: p50 / 2, max: p95 + 100 });

function window(index: number, queueP50: number): SeriesWindow {
  return {
    index,
    label: null,
    start_offset_ms: index * 30_000,
    end_offset_ms: (index + 1) * 30_000,
    partial: false,
    scheduled_per_s: null,
    started_per_s: 16.5,
    completed_per_s: 16.4,
    in_flight: 12.5 + index * 10,
    started: 495,
    succeeded: 475,
    errors: { rejected: 10, timed_out: 10, transport_failed: 0, canceled: 0, failed: 0 },
    tokens_per_s: 2100,
    owners: { client_total_ms: stat(470, 1100 + queueP50, 1800 + queueP50), gpu_queue_ms: stat(470, queueP50, queueP50 * 3) },
  };
}

function observed(): UserObserved {
  return {
    first_content_ms: q(0, 0, 0),
    censored_total_ms: { ...q(960, 1195, 1900), succeeded: 950, censored: 10, excluded: 30 },
    timeout_ms: 60_000,
    api_total_ms: q(950, 1190.1, 1850.3),
    definitions: { censored_total_ms: 'successes and timeouts, timeouts at the timeout' },
  };
}

function group(route: string, started: number, succeeded: number): GroupFigures {
  return {
    key: `route=${route}`,
    dimensions: { route },
    successes: succeeded,
    too_small: succeeded < 200,
    join: { client_requests: started, matched: succeeded, coverage: succeeded / started },
    metrics: { client_total_ms: q(succeeded, route === 'chat' ? 1200 : 300, route === 'chat' ? 1900 : 450) },
    client_only: {},
    server_only: {},
    outcomes: { started, succeeded, rejected: started - succeeded, timed_out: 0, transport_failed: 0, canceled: 0, failed: 0, error_rate: (started - succeeded) / started },
    tail: { tail_ratio: route === 'chat' ? 1900 / 1200 : 1.5, budget_ms: 2000, tail_share: 0.04, calls_per_session: null, session_tail_probability: null },
    tail_attribution: { threshold_ms: 1900, n: 45, mean_client_total_ms: 2100, phases: [{ phase: 'gpu_queue', mean_ms: 840, share: 0.4 }] },
    user_observed: observed(),
    window_series: { kind: 'fixed', size_ms: 30_000, slide_ms: 30_000, owners: [], windows: [], worst: [] },
    diagnoses: [],
    diagnosis_status: { basis: 'windows', windows_compared: 0, evaluated: [], not_evaluated: [], summary: 'no rule could be evaluated' },
  };
}

export function handBuiltExtended(): Extended {
  return {
    grouping: {
      by: ['route'],
      source: 'option',
      min_group_size: 200,
      mixes: [{ dimension: 'route', values: [{ value: 'chat', calls: 900 }, { value: 'embed', calls: 90 }] }],
      omitted: { groups: 0, calls: 0 },
      definitions: { route: "the client's route" },
    },
    groups: [group('chat', 900, 870), group('embed', 90, 80)],
    window_series: {
      kind: 'fixed',
      size_ms: 30_000,
      slide_ms: 30_000,
      owners: ['client_total_ms', 'network_envelope_ms', 'transport_setup_ms', 'gpu_queue_ms', 'unattributed_server_ms'],
      windows: [window(0, 100), window(1, 250)],
      worst: [
        {
          metric: 'client_total_ms',
          stat: 'p95',
          source: 'default',
          window: 1,
          value: 2050,
          n: 470,
          typical: 1975,
          owner_grew: { owner: 'gpu_queue_ms', worst_mean_ms: 500, typical_mean_ms: 350, delta_ms: 150 },
          owners: [],
        },
      ],
    },
    diagnoses: [
      {
        code: 'pool-saturation',
        title: 'The queue rose while generation per token stayed flat: the inference pool is saturated',
        evidence: [
          {
            figure: 'gpu_queue_ms',
            stat: 'p50',
            role: 'rose',
            from_window: 0,
            to_window: 1,
            from: 100,
            to: 250,
            change: 150,
            relative: 1.5,
            n_from: 470,
            n_to: 470,
            text: 'gpu_queue_ms p50 rose 100 ms → 250 ms (+150 ms, +150%) from window #0 (0–30 s), n=470 to window #1 (30–60 s), n=470',
          },
        ],
        first_check: 'Inference pool saturation: compare the in-flight requests with the pool\'s slots.',
      },
    ],
    diagnosis_status: { basis: 'windows', windows_compared: 2, evaluated: ['pool-saturation'], not_evaluated: [], summary: '1 of 1 rules fired over the windows: pool-saturation' },
    join_bias: {
      matched: { n: 940, p50: 1250, p95: 1900 },
      unmatched: { n: 10, p50: 400, p95: 600 },
      test: 'two-sample Kolmogorov–Smirnov',
      statistic: 0.9,
      p_value: 1e-6,
      biased: true,
      alpha: 0.01,
      declared_sampling: 1,
      message: 'the matched requests are slower than the unmatched ones: the decomposition describes a biased sample',
    },
    user_observed: observed(),
    provenance: {
      phasewise_version: '0.1.0',
      inputs: [
        { path: '/runs/k6.ndjson', format: 'k6-json', side: 'client', bytes: 12_582_912, sha256: 'ab'.repeat(32) },
        { path: '/runs/spans.otlp.jsonl', format: 'otlp-json', side: 'server', bytes: 5_242_880, sha256: 'cd'.repeat(32) },
      ],
      contract: { path: '/runs/steady.loadcontract.yaml', name: 'steady-chat', sha256: 'ef'.repeat(32), bytes: 812 },
      resources: [
        { service_name: 'gateway', service_version: '1.4.2', sdk_name: 'opentelemetry', sdk_version: '1.30.0', sdk_language: 'nodejs', schema_url: null, sources: ['/runs/spans.otlp.jsonl'] },
      ],
      resources_note: 'resources read from: /runs/spans.otlp.jsonl: all 3 documents',
      services: [{ service: 'gateway', spans: 6400 }],
      sampling: { declared: 1, source: 'contract' },
      options: { windowSizeMs: 30_000 },
    },
    stages: handBuiltStages(),
  };
}
