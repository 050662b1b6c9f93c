/** The sections of the contract schema that describe the experiment: how load is offered, what each request is, how requests join spans. */
import { duration, fraction, matcher, prop, tokenBand, type JsonSchema } from './schemaParts';

export const WORKLOAD_SCHEMA: JsonSchema = prop('How load is offered: arrival model, executor, rate and timeline (ramp → plateau → drain).', [
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
  });

export const REQUEST_SCHEMA: JsonSchema = prop('What each request is: route, model, timeout, retries and the prompt-shape mix.', [
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
  });

export const TRACE_SCHEMA: JsonSchema = prop('How client requests join server spans: trace ID source, root span and phase selectors.', [{ id_source: 'metadata', root: { service: 'llm-gateway' } }], {
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
  });
