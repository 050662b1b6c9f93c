/**
 * The JSON Schema of a load contract (draft-07). It is the single source for editor hovers,
 * completions, the shipped `schemas/loadcontract.schema.json` (written by `npm run gen:schema`) and the
 * structural validation layer. Every property carries a description and examples.
 */

import { DIMENSIONS } from '../../analysis/groups/dimensions';

export type JsonSchema = { [key: string]: unknown };

function prop(description: string, examples: unknown[], schema: JsonSchema): JsonSchema {
  return { description, examples, ...schema };
}

const duration = (description: string, examples: unknown[]): JsonSchema =>
  prop(description, examples, { $ref: '#/definitions/duration' });

const fraction = (description: string, examples: number[]): JsonSchema =>
  prop(description, examples, { type: 'number', minimum: 0, maximum: 1 });

const stats = (what: string, examples: unknown[]): JsonSchema =>
  prop(`${what} objectives by statistic (quantiles with linear interpolation over matched successful requests).`, [
    { p95: examples[0] },
  ], {
    type: 'object',
    additionalProperties: false,
    properties: {
      p50: duration(`Median ${what} must not exceed this.`, examples.slice(1)),
      p95: duration(`95th percentile ${what} must not exceed this.`, examples.slice(0, 1)),
      p99: duration(`99th percentile ${what} must not exceed this.`, examples.slice(0, 1)),
    },
  });

const tokenBand = (what: string): JsonSchema =>
  prop(`${what} token band as \`[min, max]\` (inclusive); requests draw uniformly within it.`, [[100, 400]], {
    type: 'array',
    items: { type: 'integer', minimum: 0 },
    minItems: 2,
    maxItems: 2,
  });

const matcher: JsonSchema = prop('One way a span belongs to the phase: every given clause must hold.', [{ names: ['inference.acquire_slot'] }], {
  type: 'object',
  additionalProperties: false,
  properties: {
    names: prop('Exact span names (any of).', [['auth.check', 'route.select']], { type: 'array', items: { type: 'string' } }),
    attributes: prop('Attribute equality (all of).', [{ 'llm.phase': 'queue' }], {
      type: 'object',
      additionalProperties: { type: 'string' },
    }),
    attribute_present: prop('Attribute keys that must be present (all of).', [['gen_ai.operation.name']], {
      type: 'array',
      items: { type: 'string' },
    }),
    service: prop('Restrict to spans of this service.', ['llm-gateway'], { type: 'string' }),
  },
});

export const LOAD_CONTRACT_SCHEMA: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://phasewise.dev/schemas/loadcontract.schema.json',
  title: 'Phasewise load contract',
  description: 'What a load run claims, frozen before it runs: workload, request shape, trace mapping, SLO, per-phase budgets and gates.',
  type: 'object',
  additionalProperties: false,
  required: ['version', 'name', 'workload', 'request', 'slo'],
  definitions: {
    duration: {
      description: 'A duration: a string with a unit (`250ms`, `30s`, `10m`, `1h`, `1m30s`) or a number of milliseconds.',
      examples: ['250ms', '30s', '10m'],
      type: ['string', 'number'],
      pattern: '^\\s*(\\d+(\\.\\d+)?(ms|s|m|h))+\\s*$',
      minimum: 0,
    },
  },
  properties: {
    version: prop('Contract format version.', [1], { type: 'integer', enum: [1] }),
    name: prop('Short name of the run, used in reports.', ['chat-completions steady SLO check'], { type: 'string', minLength: 1 }),
    claim: prop('What the run is meant to show; the kind changes which rules apply.', [{ kind: 'slo_check', statement: 'p95 total ≤ 2 s at 10 req/s' }], {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: {
        kind: prop(
          'Experiment kind: `slo_check` (hold an SLO at a fixed rate), `capacity`/`saturation` (find the rate where it breaks: retries must be off), `soak` (long plateau), `regression` (compare to a baseline).',
          ['slo_check', 'saturation'],
          { type: 'string', enum: ['slo_check', 'capacity', 'saturation', 'soak', 'regression'] },
        ),
        statement: prop('The claim in one sentence, as it will appear in the report.', ['llm-gateway holds p95 total ≤ 2 s at 10 req/s'], { type: 'string' }),
      },
    }),
    workload: prop('How load is offered: arrival model, executor, rate and timeline (ramp → plateau → drain).', [
      { model: 'open', executor: 'constant-arrival-rate', rate: 10, time_unit: '1s', plateau: '10m' },
    ], {
      type: 'object',
      additionalProperties: false,
      required: ['model', 'executor'],
      properties: {
        model: prop(
          'Arrival model. `open`: arrivals do not wait for responses (the only model that can claim a rate). `closed`: a fixed number of users each wait for their response. `hybrid`: sessions arrive open, calls within a session are sequential.',
          ['open'],
          { type: 'string', enum: ['open', 'closed', 'hybrid'] },
        ),
        executor: prop(
          'k6 executor. Arrival-rate executors implement the open model; VU executors are closed.',
          ['constant-arrival-rate', 'ramping-arrival-rate'],
          { type: 'string', enum: ['constant-arrival-rate', 'ramping-arrival-rate', 'constant-vus', 'ramping-vus', 'per-vu-iterations', 'shared-iterations'] },
        ),
        rate: prop('Arrivals (iterations started) per `time_unit`. k6 requires an integer: write 0.5/s as `rate: 1, time_unit: 2s`.', [10], { type: 'number', exclusiveMinimum: 0 }),
        time_unit: duration('Period that `rate` is counted over (default `1s`).', ['1s', '1m']),
        start_rate: prop('Starting rate of a `ramping-arrival-rate` profile, per `time_unit`.', [0, 5], { type: 'number', minimum: 0 }),
        stages: prop('Ramping profile: each stage moves linearly to `target` over `duration` (a step is a short ramp followed by a hold).', [
          [{ target: 5, duration: '10s' }, { target: 5, duration: '5m' }],
        ], {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['target', 'duration'],
            properties: {
              target: prop('Rate (arrival executors) or VUs (`ramping-vus`) at the end of the stage.', [10], { type: 'number', minimum: 0 }),
              duration: duration('How long the stage lasts.', ['10s', '5m']),
            },
          },
        }),
        ramp: duration('Time to reach the rate before the plateau (warm-up traffic; default 0).', ['30s']),
        plateau: duration('Time at the declared rate; the steady window is the plateau minus `warmup_exclude`. At least 10 minutes for p95/p99 claims.', ['10m', '15m']),
        drain: duration('Grace period after the plateau for in-flight requests to finish (k6 `gracefulStop`).', ['30s']),
        warmup_exclude: duration('Start of the plateau excluded from budgets and SLOs (caches, autoscaling, JIT).', ['1m']),
        max_in_flight: prop('Upper bound on concurrent requests (k6 `maxVUs`). Must cover rate × total SLO (Little’s law) or the generator drops iterations.', [50], { type: 'integer', minimum: 1 }),
        pre_allocated_vus: prop('VUs allocated before the run (k6 `preAllocatedVUs`); default: Little’s law at the total SLO.', [20], { type: 'integer', minimum: 1 }),
        vus: prop('Virtual users of a closed model (`constant-vus`, `ramping-vus` start).', [10], { type: 'integer', minimum: 1 }),
        calls_per_session: prop('Calls per user session, for the session tail probability (and calls per iteration in the hybrid model).', [4], { type: 'integer', minimum: 1 }),
      },
    }),
    request: prop('What each request is: route, model, timeout, retries and the prompt-shape mix.', [
      { route: 'POST /v1/chat/completions', model_class: 'llama-3-8b', timeout: '30s', retries: 0 },
    ], {
      type: 'object',
      additionalProperties: false,
      required: ['route'],
      properties: {
        route: prop('HTTP method and path of the entry route.', ['POST /v1/chat/completions'], { type: 'string', pattern: '^[A-Z]+ /' }),
        base_url: prop('Target base URL for generated scripts (overridable with the BASE_URL environment variable).', ['http://localhost:8080'], { type: 'string' }),
        model_class: prop('Model (or model class) requested; sent as the `model` field.', ['llama-3-8b'], { type: 'string' }),
        region: prop('Region the run targets.', ['eu-west-1'], { type: 'string' }),
        priority: prop('Priority class of the traffic.', ['interactive', 'batch'], { type: 'string' }),
        streaming: prop('Whether responses stream (SSE). Streaming needs `first_content_event` for TTFT.', [false, true], { type: 'boolean' }),
        first_content_event: prop('Server span event marking the first write of output content (TTFT).', ['first_token'], { type: 'string' }),
        timeout: duration('Client timeout per request. Must exceed the total SLO or timeouts censor the tail.', ['30s', '60s']),
        retries: prop('Client retries per request. Keep 0: retries hide errors and, in capacity runs, add load the claim does not declare.', [0], { type: 'integer', minimum: 0 }),
        prompt_shapes: prop('Mix of prompt shapes; each request picks one by weight.', [
          [{ id: 'short', weight: 0.8, input_tokens: [50, 200], output_tokens: [50, 150] }],
        ], {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'weight', 'input_tokens', 'output_tokens'],
            properties: {
              id: prop('Shape id, recorded as the low-cardinality `prompt_shape` tag.', ['short', 'long_context'], { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' }),
              weight: prop('Relative weight in the mix.', [0.8, 1], { type: 'number', exclusiveMinimum: 0 }),
              input_tokens: tokenBand('Input'),
              output_tokens: tokenBand('Output (`max_tokens`)'),
            },
          },
        }),
      },
    }),
    trace: prop('How client requests join server spans: trace ID source, root span and phase selectors.', [{ id_source: 'metadata', root: { service: 'llm-gateway' } }], {
      type: 'object',
      additionalProperties: false,
      properties: {
        id_source: prop('What joins client requests to spans. The trace ID, recorded on the client as `metadata` (k6 `exec.vu.metrics.metadata`, no cardinality cost) or a `tag` (one time series per request: avoid); or `request_id`: the request ID a load generator without trace propagation sends (AIPerf `x_request_id`, sent as X-Request-ID; a records `request_id`) against the span attribute `id_attribute`.', ['metadata', 'request_id'], {
          type: 'string',
          enum: ['metadata', 'tag', 'request_id'],
        }),
        id_tag: prop('Name of the metadata key or tag carrying the trace ID.', ['trace_id'], { type: 'string' }),
        id_attribute: prop('With `id_source: request_id`: the span attribute that carries the request ID (default `http.request.header.x-request-id`, the OpenTelemetry HTTP convention for a captured request header).', ['http.request.header.x-request-id'], { type: 'string', minLength: 1 }),
        root: prop('Root span selection: the SERVER span of the entry service whose parent is the client.', [{ service: 'llm-gateway', span: 'POST /v1/chat/completions' }], {
          type: 'object',
          additionalProperties: false,
          properties: {
            service: prop('Entry service name.', ['llm-gateway'], { type: 'string' }),
            span: prop('Root span name.', ['POST /v1/chat/completions'], { type: 'string' }),
          },
        }),
        sampling: fraction('Head sampling ratio the server uses (1 = every trace kept); join coverage cannot exceed it.', [1, 0.1]),
        phases: prop('Phase selectors (override the defaults gateway, gpu_queue, generation). Key: phase name; value: matchers (any of).', [
          { gpu_queue: [{ names: ['inference.acquire_slot'] }] },
        ], {
          type: 'object',
          propertyNames: { pattern: '^[a-z][a-z0-9_]*$' },
          additionalProperties: { type: 'array', minItems: 1, items: matcher },
        }),
      },
    }),
    slo: prop('Latency objectives on the whole request (client side, matched successes in the steady window).', [{ total_ms: { p95: '2s' } }], {
      type: 'object',
      additionalProperties: false,
      properties: {
        total_ms: stats('Client total duration', ['2s', '800ms']),
        ttft_ms: stats('Time to first token (TTFB when not streaming)', ['500ms', '300ms']),
        itl_ms: stats('Inter-token latency', ['50ms', '30ms']),
      },
    }),
    budgets: prop('Per-phase allocations of an SLO figure, each under an explicit condition.', [
      [{ allocates: 'total_ms.p95', when: { model_class: 'llama-3-8b', region: 'eu-west-1', rate: 10, window: 'steady' }, phases: { gpu_queue: '400ms' } }],
    ], {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['allocates', 'phases'],
        properties: {
          allocates: prop('The SLO figure being split, `<metric>.<stat>`.', ['total_ms.p95', 'ttft_ms.p95'], {
            type: 'string',
            enum: ['total_ms.p50', 'total_ms.p95', 'total_ms.p99', 'ttft_ms.p50', 'ttft_ms.p95', 'ttft_ms.p99'],
          }),
          when: prop('Condition the allocation holds under; a budget without one cannot be compared across runs.', [{ model_class: 'llama-3-8b', region: 'eu-west-1', rate: 10, window: 'steady' }], {
            type: 'object',
            additionalProperties: false,
            properties: {
              model_class: prop('Model class.', ['llama-3-8b'], { type: 'string' }),
              region: prop('Region.', ['eu-west-1'], { type: 'string' }),
              priority: prop('Priority class.', ['interactive'], { type: 'string' }),
              input_tokens: tokenBand('Input'),
              rate: prop('Offered rate per `workload.time_unit`.', [10], { type: 'number', exclusiveMinimum: 0 }),
              window: prop('Window the budget applies to: `steady` (plateau minus warm-up) or a stage label.', ['steady'], { type: 'string' }),
            },
          }),
          phases: prop('Phase → limit at the allocated statistic. Phases: `network_envelope`, `gateway`, `gpu_queue`, `generation`, `unattributed_server` or one from `trace.phases`.', [
            { network_envelope: '150ms', gateway: '100ms', gpu_queue: '400ms', generation: '1200ms' },
          ], {
            type: 'object',
            minProperties: 1,
            propertyNames: { pattern: '^[a-z][a-z0-9_]*$' },
            additionalProperties: { $ref: '#/definitions/duration' },
          }),
        },
      },
    }),
    gates: prop('Run-level gates; the verdict is inconclusive when workload or coverage gates fail.', [{ error_rate: 0.01, dropped_iterations: 0 }], {
      type: 'object',
      additionalProperties: false,
      properties: {
        error_rate: fraction('Maximum share of started requests that did not succeed.', [0.01]),
        dropped_iterations: prop('Maximum iterations the generator dropped (k6 `dropped_iterations`); above it the run is inconclusive.', [0], { type: 'integer', minimum: 0 }),
        scheduler_lag_ms: duration('Maximum p95 scheduler lag (planned → actual send).', ['50ms', 50]),
        join_coverage: fraction('Minimum share of client requests matched to exactly one server root.', [0.95]),
        negative_envelope_share: fraction('Maximum share of matched requests with a negative network envelope.', [0.01]),
        achieved_rate_ratio: fraction('Minimum achieved start rate as a share of the declared rate.', [0.95]),
      },
    }),
    windows: prop('Per-window figures.', [{ size: '30s' }, { size: '15m', slide: '1m' }], {
      type: 'object',
      additionalProperties: false,
      properties: {
        size: duration('Fixed window size for per-window quantiles (default 30 s).', ['30s', '1m']),
        slide: duration('A sliding window series: windows of `size` starting every `slide` (shorter than `size`). Absent: fixed windows.', ['1m', '10s']),
      },
    }),
    report: prop('How the report is cut.', [{ group_by: ['model', 'route'] }], {
      type: 'object',
      additionalProperties: false,
      properties: {
        group_by: prop(
          'Dimensions the report shows figures per group for (default: route and model when the run holds several; `[]`: no groups).',
          [['model', 'route'], ['input_band']],
          { type: 'array', uniqueItems: true, items: { enum: DIMENSIONS.map((d) => d.name) } },
        ),
        min_group_size: prop('A group with fewer successful calls is marked too small for a p95 (default 200).', [200, 50], { type: 'integer', minimum: 1 }),
      },
    }),
  },
};
