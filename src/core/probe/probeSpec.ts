/**
 * What to send, from the active contract's `request` section (base_url, route, model_class,
 * streaming, timeout, the first prompt shape), overridden by flags or settings. One function for the
 * CLI and the editor, so both probe the same request for the same contract.
 */
import type { RequestSpec } from '../contract/types';
import { DEFAULT_PROMPT_SHAPE, DEFAULT_ROUTE, type PromptShape } from './send/chatRequest';

/** The request a probe sends; every field has a value once resolved. */
export interface ProbeSpec {
  baseUrl: string | undefined;
  route: string;
  model: string;
  stream: boolean;
  requestTimeoutMs: number;
  shape: PromptShape;
}

/** What a caller may override (flags, settings); undefined keeps the contract's or the default value. */
export type ProbeOverrides = Partial<ProbeSpec>;

export const DEFAULT_PROBE_SPEC: ProbeSpec = {
  baseUrl: undefined,
  route: DEFAULT_ROUTE,
  model: 'default',
  stream: true,
  requestTimeoutMs: 60_000,
  shape: DEFAULT_PROMPT_SHAPE,
};

/**
 * The contract's request as a probe: its route without the method (`POST /v1/chat/completions` →
 * `/v1/chat/completions`), its first prompt shape at the bottom of its bands (a probe should be the
 * cheapest request the contract declares: it checks the chain, not the capacity).
 */
export function probeSpecFromContract(request: RequestSpec | undefined): ProbeOverrides {
  if (!request) return {};
  const out: ProbeOverrides = { stream: request.streaming, requestTimeoutMs: request.timeoutMs };
  const route = request.route.trim().split(/\s+/).pop();
  if (route?.startsWith('/')) out.route = route;
  if (request.baseUrl) out.baseUrl = request.baseUrl;
  if (request.modelClass) out.model = request.modelClass;
  const shape = request.promptShapes[0];
  if (shape) out.shape = { id: shape.id, inputWords: Math.max(1, shape.inputTokens.min), maxOutputTokens: Math.max(1, shape.outputTokens.min) };
  return out;
}

/** Defaults ← contract ← overrides (a later undefined never erases an earlier value). */
export function resolveProbeSpec(...layers: ProbeOverrides[]): ProbeSpec {
  const spec: ProbeSpec = { ...DEFAULT_PROBE_SPEC };
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer) as Array<[keyof ProbeSpec, ProbeSpec[keyof ProbeSpec]]>) {
      if (v !== undefined) (spec as unknown as Record<string, unknown>)[k] = v;
    }
  }
  return spec;
}
