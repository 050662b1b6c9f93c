/**
 * The probe's request: an OpenAI-compatible chat completion with a fixed prompt of a declared shape,
 * so that two probes (or a probe and a load test's prompt shape) are comparable. The prompt text is
 * sent and never stored: records keep only the shape's id and its declared sizes.
 */

/** A declared prompt shape: what the request asks for, by size, not by text. */
export interface PromptShape {
  /** Written to the records as prompt_shape_id. */
  id: string;
  /** Words in the user message (a fixed sentence repeated). */
  inputWords: number;
  /** `max_tokens` asked of the server. */
  maxOutputTokens: number;
}

/** The default: a short prompt and a short answer, enough to see queue, first token and a few intervals. */
export const DEFAULT_PROMPT_SHAPE: PromptShape = { id: 'probe-64w-32t', inputWords: 64, maxOutputTokens: 32 };

export const DEFAULT_ROUTE = '/v1/chat/completions';

/** Where and what to send. */
export interface ChatRequestSpec {
  /** Base URL (`http://127.0.0.1:8080`) or a full URL whose path is the route. */
  baseUrl: string;
  /** Route appended to the base URL's path (default `/v1/chat/completions`); ignored when the base URL has a path. */
  route?: string;
  model: string;
  stream: boolean;
  shape?: PromptShape;
  /**
   * A JSON object sent instead of the generated body (from a contract or `--body`); `model` and
   * `stream` are still set from the spec so the timings know what they measure.
   */
  body?: Record<string, unknown>;
}

const SENTENCE = 'Phasewise probe request measuring queue wait, time to first token and inter-token latency of this endpoint.'.split(' ');

/** The user message: the fixed sentence repeated to exactly `words` words. */
export function promptText(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(SENTENCE[i % SENTENCE.length]);
  return out.join(' ');
}

/** The request body as sent (JSON text); stream requests ask for usage in the last chunk. */
export function chatRequestBody(spec: ChatRequestSpec): string {
  const shape = spec.shape ?? DEFAULT_PROMPT_SHAPE;
  const body: Record<string, unknown> = spec.body
    ? { ...spec.body }
    : {
        messages: [
          { role: 'system', content: 'Answer briefly.' },
          { role: 'user', content: promptText(shape.inputWords) },
        ],
        max_tokens: shape.maxOutputTokens,
        temperature: 0,
      };
  body.model = spec.model;
  body.stream = spec.stream;
  if (spec.stream && body.stream_options === undefined) body.stream_options = { include_usage: true };
  return JSON.stringify(body);
}

/** The URL to send to: the base URL with the route appended unless the base URL already names a path. */
export function chatRequestUrl(spec: Pick<ChatRequestSpec, 'baseUrl' | 'route'>): URL {
  const url = new URL(spec.baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`expected an http:// or https:// URL, got ${url.protocol}`);
  if (url.pathname === '/' || url.pathname === '') url.pathname = spec.route ?? DEFAULT_ROUTE;
  else if (spec.route !== undefined) url.pathname = url.pathname.replace(/\/$/, '') + spec.route;
  return url;
}

/** The URL as it may be shown or stored: no user info, no query (either can carry a key). */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
