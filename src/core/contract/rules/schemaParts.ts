/** Builders the contract schema's sections share (schema.ts, schemaSections.ts): every property carries a description and examples. */
export type JsonSchema = { [key: string]: unknown };

export function prop(description: string, examples: unknown[], schema: JsonSchema): JsonSchema {
  return { description, examples, ...schema };
}

export const duration = (description: string, examples: unknown[]): JsonSchema =>
  prop(description, examples, { $ref: '#/definitions/duration' });

export const fraction = (description: string, examples: number[]): JsonSchema =>
  prop(description, examples, { type: 'number', minimum: 0, maximum: 1 });

export const stats = (what: string, examples: unknown[]): JsonSchema =>
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

export const tokenBand = (what: string): JsonSchema =>
  prop(`${what} token band as \`[min, max]\` (inclusive); requests draw uniformly within it.`, [[100, 400]], {
    type: 'array',
    items: { type: 'integer', minimum: 0 },
    minItems: 2,
    maxItems: 2,
  });

export const matcher: JsonSchema = prop('One way a span belongs to the phase: every given clause must hold.', [{ names: ['inference.acquire_slot'] }], {
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
