/**
 * Generates the k6 script that runs a contract: declared executor and rate, a crypto-random W3C
 * traceparent per request with the trace ID in metadata (never a tag), the prompt-shape mix, the
 * timeout, no retries, and thresholds from the SLO and gates.
 */
import { formatDuration } from '../parse/durations';
import { k6Options } from './k6Options';
import type { LoadContract } from '../types';

export { K6GenerationError, k6Options } from './k6Options';
export type { K6Options } from './k6Options';

/**
 * The one way a contract value enters the generated script: as a JavaScript literal (a JSON value,
 * which ES2019+ parses as JavaScript), never inside a comment, a template literal or code. JSON leaves
 * some characters raw that JavaScript or a reader treat specially, so they are escaped too: the line
 * and paragraph separators (line terminators in older engines: a `//` comment ends there), DEL and the
 * C1 controls, bidi controls (Trojan Source), zero-width characters and the byte-order mark. `<` and
 * `>` are escaped so the script can be pasted into HTML (`</script>`). JSON.stringify already escapes
 * quotes, backslashes, C0 controls and lone surrogates. Non-finite numbers become null (as JSON.stringify
 * does), so the script never holds `NaN` or `Infinity` by accident.
 */
export function jsLiteral(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, null, indent);
  if (text === undefined) throw new Error('jsLiteral: not a JSON value');
  return text.replace(/[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb<>]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const js = (v: unknown): string => jsLiteral(v);

function runtimeSource(contract: LoadContract): string {
  const r = contract.request;
  const [method, ...pathParts] = r.route.split(' ');
  const path = pathParts.join(' ');
  const shapes = r.promptShapes.length > 0
    ? r.promptShapes.map((s) => ({ id: s.id, weight: s.weight, input_tokens: [s.inputTokens.min, s.inputTokens.max], output_tokens: [s.outputTokens.min, s.outputTokens.max] }))
    : [{ id: 'default', weight: 1, input_tokens: [100, 100], output_tokens: [100, 100] }];
  const calls = contract.workload.model === 'hybrid' ? (contract.workload.callsPerSession ?? 1) : 1;
  return `const BASE_URL = __ENV.BASE_URL || ${js(r.baseUrl ?? 'http://localhost:8080')};
const METHOD = ${js(method)};
const PATH = ${js(path)};
const MODEL = ${js(r.modelClass ?? 'default')};
const STREAMING = ${js(r.streaming === true)};
const TIMEOUT = ${js(formatDuration(r.timeoutMs))};
const TRACE_ID_KEY = ${js(contract.trace.idTag)};
// Calls per iteration: 1 in the open model; a session's sequential calls in the hybrid model.
const CALLS_PER_ITERATION = ${js(Number.isSafeInteger(calls) && calls > 0 ? calls : 1)};
const PROMPT_SHAPES = ${js(shapes)};
const TOTAL_WEIGHT = PROMPT_SHAPES.reduce((a, s) => a + s.weight, 0);

http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }));

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => (b < 16 ? '0' : '') + b.toString(16)).join('');
}

// W3C traceparent with crypto-random IDs (all-zero IDs are invalid and redrawn); sampled flag set.
function newTraceparent() {
  let traceId = hex(randomBytes(16));
  while (/^0+$/.test(traceId)) traceId = hex(randomBytes(16));
  let spanId = hex(randomBytes(8));
  while (/^0+$/.test(spanId)) spanId = hex(randomBytes(8));
  return { traceId, header: '00-' + traceId + '-' + spanId + '-01' };
}

function pickShape() {
  let x = Math.random() * TOTAL_WEIGHT;
  for (const shape of PROMPT_SHAPES) {
    x -= shape.weight;
    if (x < 0) return shape;
  }
  return PROMPT_SHAPES[PROMPT_SHAPES.length - 1];
}

function within(band) {
  return band[0] + Math.floor(Math.random() * (band[1] - band[0] + 1));
}

// About one token per short word; the text is filler, never real prompts.
function filler(tokens) {
  return 'lorem '.repeat(Math.max(1, tokens)).trim();
}

function callOnce() {
  const shape = pickShape();
  const trace = newTraceparent();
  // Metadata, not a tag: one trace ID per request would create one time series per request.
  exec.vu.metrics.metadata[TRACE_ID_KEY] = trace.traceId;
  const headers = { 'Content-Type': 'application/json', traceparent: trace.header };
  if (__ENV.API_KEY) headers.Authorization = 'Bearer ' + __ENV.API_KEY;
  const body = JSON.stringify({
    model: MODEL,
    stream: STREAMING,
    max_tokens: within(shape.output_tokens),
    messages: [{ role: 'user', content: filler(within(shape.input_tokens)) }],
  });
  const res = http.request(METHOD, BASE_URL + PATH, body, {
    headers,
    timeout: TIMEOUT,
    tags: { prompt_shape: shape.id, model_class: MODEL },
  });
  delete exec.vu.metrics.metadata[TRACE_ID_KEY];
  // Retries are off by contract: a failed request is recorded as it happened and never re-sent.
  check(res, { 'status is 2xx': (r) => r.status >= 200 && r.status < 300 });
}

export default function () {
  for (let i = 0; i < CALLS_PER_ITERATION; i++) callOnce();
}
`;
}

/**
 * The k6 script text for a contract (throws K6GenerationError for executors a contract cannot drive).
 * The comments are fixed text: the contract's name and path are string constants (jsLiteral), because
 * a value inside a `//` comment ends the comment at its first line terminator and runs as code.
 */
export function generateK6Script(contract: LoadContract, meta: { contractPath?: string } = {}): string {
  const options = k6Options(contract);
  const header = `// Generated by Phasewise from the load contract named in CONTRACT_NAME (file: CONTRACT_FILE).
// Regenerate with \`phasewise k6\` instead of editing: the contract is the source of truth.
// Run: k6 run --out json=k6.ndjson script.js   (BASE_URL and API_KEY come from the environment)
import http from 'k6/http';
import exec from 'k6/execution';
import { check } from 'k6';
import { randomBytes } from 'k6/crypto';

const CONTRACT_NAME = ${js(contract.name)};
const CONTRACT_FILE = ${js(meta.contractPath ?? null)};

export const options = ${js(options)};

`;
  return header + runtimeSource(contract);
}
