/**
 * The JSON Schema of a load contract (draft-07). It is the single source for editor hovers,
 * completions, the shipped `schemas/loadcontract.schema.json` (written by `npm run gen:schema`) and the
 * structural validation layer. Every property carries a description and examples.
 */

import { DIMENSIONS } from '../../analysis/groups/dimensions';
import { duration, fraction, prop, stats, tokenBand, type JsonSchema } from './schemaParts';
import { REQUEST_SCHEMA, TRACE_SCHEMA, WORKLOAD_SCHEMA } from './schemaSections';

export type { JsonSchema } from './schemaParts';

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
    workload: WORKLOAD_SCHEMA,
    request: REQUEST_SCHEMA,
    trace: TRACE_SCHEMA,
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
