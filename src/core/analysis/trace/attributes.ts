/**
 * Span attributes as the waterfall may show them: values of keys that carry prompt or response text,
 * credentials or cookies are replaced before they leave the core (docs/architecture.md: nothing shows or stores
 * prompt text, response text, API keys or request headers), and the GenAI figures become badges.
 */
import type { GenAiBadges, SpanAttribute } from './types';

/**
 * A key segment (split on `.`, `_`, `-`) that marks sensitive content: GenAI prompt/completion and
 * message bodies (`gen_ai.prompt.0.content`, `llm.completions`, `gen_ai.input.messages`), credentials
 * and headers (`http.request.header.authorization`, `cookie`, `set-cookie`, `x-api-key`).
 */
const SENSITIVE_SEGMENTS = new Set([
  'prompt',
  'prompts',
  'completion',
  'completions',
  'messages',
  'content',
  'input',
  'output',
  'authorization',
  'cookie',
  'cookies',
  'password',
  'passwd',
  'secret',
  'apikey',
  'token',
  'bearer',
  'credential',
  'credentials',
]);

/** Counts are figures, not content: `gen_ai.usage.input_tokens`, `llm.usage.prompt_tokens`. */
const COUNT_KEY = /(^|[._-])(tokens|count|length|size)$|token_count$|_tokens$/i;
/** Names and ids that merely mention a sensitive word (`gen_ai.output.type`, `gen_ai.prompt.name`). */
const DESCRIPTIVE_KEY = /[._-](type|name|id|format|role|index)$/i;
/** Whole keys that hold a credential without a telling segment. */
const SENSITIVE_KEYS = /(^|[._-])(api[_-]?key|x[_-]api[_-]key|access[_-]?token|refresh[_-]?token|id[_-]?token|session[_-]?id)$/i;

/** True when the value of `key` must not be shown. */
export function isSensitiveKey(key: string): boolean {
  if (SENSITIVE_KEYS.test(key)) return true;
  if (COUNT_KEY.test(key) || DESCRIPTIVE_KEY.test(key)) return false;
  return key
    .toLowerCase()
    .split(/[._-]/)
    .some((segment) => SENSITIVE_SEGMENTS.has(segment));
}

/** The attributes with sensitive values replaced by a note of their length. */
export function maskAttributes(attrs: readonly SpanAttribute[]): SpanAttribute[] {
  return attrs.map((a) =>
    isSensitiveKey(a.key) ? { key: a.key, value: `‹masked: ${Array.from(a.value).length.toLocaleString('en-US')} characters›`, masked: true } : a,
  );
}

function firstValue(attrs: readonly SpanAttribute[], keys: readonly string[]): string | null {
  for (const k of keys) {
    const hit = attrs.find((a) => a.key === k);
    if (hit !== undefined && hit.value !== '') return hit.value;
  }
  return null;
}

function firstCount(attrs: readonly SpanAttribute[], keys: readonly string[]): number | null {
  const v = firstValue(attrs, keys);
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * GenAI badges from the semantic conventions (`gen_ai.*`, with the older `llm.*` names), read from
 * the unmasked attributes; null for a span with none of them.
 */
export function genAiBadges(attrs: readonly SpanAttribute[]): GenAiBadges | null {
  const badges: GenAiBadges = {
    operation: firstValue(attrs, ['gen_ai.operation.name']),
    model: firstValue(attrs, ['gen_ai.response.model', 'gen_ai.request.model', 'llm.response.model', 'llm.request.model', 'llm.model']),
    input_tokens: firstCount(attrs, ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.usage.prompt_tokens', 'llm.input_tokens']),
    output_tokens: firstCount(attrs, ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.usage.completion_tokens', 'llm.output_tokens']),
  };
  return Object.values(badges).every((v) => v === null) ? null : badges;
}
