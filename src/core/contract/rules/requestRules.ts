/** Semantic rules on the request and trace sections: retries, timeout vs SLO, streaming, trace ID. */
import type { ContractContext } from './context';
import { DEFAULT_FIRST_CONTENT_EVENT } from '../defaults';
import { formatDuration } from '../parse/durations';
import { maxTotalSlo } from './quantities';

const R = '/request';

function checkRetries(ctx: ContractContext): void {
  const retries = ctx.num(`${R}/retries`);
  const kind = ctx.str('/claim/kind');
  if (retries !== undefined && retries > 0 && (kind === 'capacity' || kind === 'saturation')) {
    ctx.at(`${R}/retries`, 'value', 'retries-in-capacity', 'error', `Retries (${retries}) in a ${kind} run add load the contract does not declare and turn rejections into slow successes, so the breaking point moves; set \`retries: 0\`.`, {
      title: 'Set `retries: 0`',
      edits: [ctx.replaceValue(`${R}/retries`, '0')],
    });
  }
}

function checkTimeout(ctx: ContractContext): void {
  const timeout = ctx.ms(`${R}/timeout`);
  const slo = maxTotalSlo(ctx);
  if (timeout === undefined || slo === undefined) return;
  if (timeout <= slo.ms) {
    ctx.at(`${R}/timeout`, 'value', 'timeout-below-slo', 'error', `Client timeout ${formatDuration(timeout)} is not above the total SLO (${slo.stat} ${formatDuration(slo.ms)}): requests slower than the timeout are cut off and leave the latency distribution, which censors the tail; raise the timeout well above the SLO (e.g. ${formatDuration(Math.max(slo.ms * 3, 30_000))}).`);
  }
}

function checkStreaming(ctx: ContractContext): void {
  const streaming = ctx.get(`${R}/streaming`);
  if (streaming === true && !ctx.has(`${R}/first_content_event`)) {
    const edit = ctx.insertKey(R, 'first_content_event', ctx.scalar(DEFAULT_FIRST_CONTENT_EVENT));
    ctx.at(`${R}/streaming`, 'value', 'streaming-no-first-content', 'error', 'Streaming requests need `first_content_event` (the server span event of the first content write), otherwise TTFT cannot be split into envelope and server time; add `first_content_event: first_token` or the event your server emits.', edit ? { title: 'Add `first_content_event: first_token`', edits: [edit] } : undefined);
  }
  if (streaming !== true && ctx.has('/slo/ttft_ms')) {
    ctx.at('/slo/ttft_ms', 'key', 'ttft-not-streaming', 'information', 'The request does not stream, so `ttft_ms` is measured as time to first byte (k6 `http_req_waiting`) and labelled TTFB.');
  }
}

function checkPromptShapes(ctx: ContractContext): void {
  const shapes = ctx.get(`${R}/prompt_shapes`);
  if (!Array.isArray(shapes)) return;
  const seen = new Set<string>();
  shapes.forEach((_, i) => {
    const base = `${R}/prompt_shapes/${i}`;
    const id = ctx.str(`${base}/id`);
    if (id !== undefined) {
      if (seen.has(id)) ctx.at(`${base}/id`, 'value', 'prompt-shape-duplicate', 'error', `Prompt shape id \`${id}\` is used twice; ids must be unique (they are the \`prompt_shape\` tag).`);
      seen.add(id);
    }
    for (const band of ['input_tokens', 'output_tokens']) {
      const lo = ctx.num(`${base}/${band}/0`);
      const hi = ctx.num(`${base}/${band}/1`);
      if (lo !== undefined && hi !== undefined && lo > hi) {
        ctx.at(`${base}/${band}`, 'value', 'token-band-inverted', 'error', `\`${band}\` [${lo}, ${hi}] has min above max; write [${hi}, ${lo}].`, {
          title: `Swap to [${hi}, ${lo}]`,
          edits: [ctx.replaceValue(`${base}/${band}/0`, String(hi)), ctx.replaceValue(`${base}/${band}/1`, String(lo))],
        });
      }
    }
  });
}

function checkTrace(ctx: ContractContext): void {
  if (ctx.str('/trace/id_source') === 'tag') {
    ctx.at('/trace/id_source', 'value', 'trace-id-tag', 'warning', 'A trace ID as a metric tag creates one time series per request (unbounded cardinality in k6 and any metrics backend); record it as metadata: `id_source: metadata`.', {
      title: 'Use `id_source: metadata`',
      edits: [ctx.replaceValue('/trace/id_source', ctx.scalar('metadata'))],
    });
  }
  // id_attribute names the span attribute of the request-ID join: with any other id_source it is never read.
  if (ctx.str('/trace/id_attribute') !== undefined && ctx.str('/trace/id_source') !== 'request_id') {
    ctx.at('/trace/id_attribute', 'key', 'id-attribute-unused', 'warning', '`id_attribute` is read only by the request-ID join: with this `id_source` requests join spans by trace ID and the attribute is ignored. Set `id_source: request_id` to join by it.', {
      title: 'Use `id_source: request_id`',
      edits: ctx.str('/trace/id_source') !== undefined ? [ctx.replaceValue('/trace/id_source', ctx.scalar('request_id'))] : [],
    });
  }
}

export function checkRequest(ctx: ContractContext): void {
  checkRetries(ctx);
  checkTimeout(ctx);
  checkStreaming(ctx);
  checkPromptShapes(ctx);
  checkTrace(ctx);
}
