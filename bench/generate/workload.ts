import type { Prng } from '../../src/core/prng';

/** Model classes behind the gateway: time per output token and prefill cost differ by size. */
export interface ModelClass {
  name: string;
  weight: number;
  tpotMs: number;
  prefillBaseMs: number;
  prefillPerInputTokenMs: number;
}

export const MODELS: readonly ModelClass[] = [
  { name: 'llama-3.1-8b-instruct', weight: 0.7, tpotMs: 9, prefillBaseMs: 6, prefillPerInputTokenMs: 0.04 },
  { name: 'llama-3.1-70b-instruct', weight: 0.3, tpotMs: 24, prefillBaseMs: 15, prefillPerInputTokenMs: 0.12 },
];

/** Prompt shapes: input/output token bands (lognormal, output capped at max_tokens). */
export interface PromptShape {
  id: string;
  weight: number;
  inputMedian: number;
  inputSigma: number;
  outputMedian: number;
  outputSigma: number;
  maxTokens: number;
}

export const SHAPES: readonly PromptShape[] = [
  { id: 'short', weight: 0.5, inputMedian: 200, inputSigma: 0.4, outputMedian: 60, outputSigma: 0.6, maxTokens: 256 },
  { id: 'medium', weight: 0.35, inputMedian: 900, inputSigma: 0.35, outputMedian: 180, outputSigma: 0.7, maxTokens: 768 },
  { id: 'long', weight: 0.15, inputMedian: 3000, inputSigma: 0.3, outputMedian: 320, outputSigma: 0.8, maxTokens: 1024 },
];

/** Models a scenario's routes may also name (never drawn by a default run, which keeps MODELS alone). */
export const EXTRA_MODELS: readonly ModelClass[] = [
  { name: 'mixtral-8x7b-instruct', weight: 0.5, tpotMs: 14, prefillBaseMs: 10, prefillPerInputTokenMs: 0.07 },
];

/** A model by name, among MODELS and EXTRA_MODELS. */
export function modelNamed(name: string): ModelClass {
  const m = [...MODELS, ...EXTRA_MODELS].find((x) => x.name === name);
  if (m === undefined) throw new Error(`unknown model '${name}' (known: ${[...MODELS, ...EXTRA_MODELS].map((x) => x.name).join(', ')})`);
  return m;
}

const MODEL_WEIGHTS = MODELS.map((m) => m.weight);
const SHAPE_WEIGHTS = SHAPES.map((s) => s.weight);

/** How much slower each token gets when every slot is busy (continuous-batching contention). */
export const CONTENTION = 0.3;

export interface Work {
  model: ModelClass;
  shape: PromptShape;
  inputTokens: number;
  outputTokens: number;
  prefillMs: number;
  /** Time per output token before contention. */
  tpotMs: number;
}

/**
 * Draws what one request asks for and what it costs on an idle GPU; `models` (a route's) replaces
 * MODELS. The same number of draws either way.
 */
export function drawWork(rng: Prng, models?: readonly ModelClass[]): Work {
  const model = models === undefined ? MODELS[rng.weighted(MODEL_WEIGHTS)] : models[rng.weighted(models.map((m) => m.weight))];
  const shape = SHAPES[rng.weighted(SHAPE_WEIGHTS)];
  const inputTokens = Math.max(1, Math.round(rng.lognormal(shape.inputMedian, shape.inputSigma)));
  const outputTokens = Math.min(shape.maxTokens, Math.max(1, Math.round(rng.lognormal(shape.outputMedian, shape.outputSigma))));
  const prefillMs = model.prefillBaseMs + inputTokens * model.prefillPerInputTokenMs * rng.lognormal(1, 0.1);
  const tpotMs = rng.lognormal(model.tpotMs, 0.12);
  return { model, shape, inputTokens, outputTokens, prefillMs, tpotMs };
}

/** Mean GPU time per request at the given utilisation, estimated by drawing (used to size the slots). */
export function meanGenerationMs(rng: Prng, utilisation: number, draws = 4000, models?: readonly ModelClass[]): number {
  let sum = 0;
  for (let i = 0; i < draws; i++) {
    const w = drawWork(rng, models);
    sum += w.prefillMs + w.outputTokens * w.tpotMs * (1 + CONTENTION * utilisation);
  }
  return sum / draws;
}
