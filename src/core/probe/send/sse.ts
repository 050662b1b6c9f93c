/**
 * Server-sent events as an OpenAI-compatible chat completion streams them
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * `data:` lines, events ended by a blank line, `[DONE]` at the end. The parser is fed raw chunks as
 * they arrive (an event may straddle two reads) and timestamps each event with the read that
 * completed it.
 */

/** One dispatched event: its data (lines joined by `\n`), its `event:` name, and when it completed. */
export interface SseEvent {
  data: string;
  event: string;
  atMs: number;
}

/** Incremental SSE parser: `push` each chunk with its arrival time; `end` dispatches nothing pending (per spec). */
export class SseParser {
  private buffer = '';
  private dataLines: string[] = [];
  private eventName = '';
  private readonly decoder = new TextDecoder('utf-8');

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  push(chunk: Uint8Array, atMs: number): void {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const nl = this.buffer.slice(start).search(/\r\n|\r|\n/);
      if (nl < 0) break;
      const end = start + nl;
      // A lone trailing \r may be the first half of \r\n: wait for the next chunk.
      if (this.buffer[end] === '\r' && end + 1 === this.buffer.length) break;
      const line = this.buffer.slice(start, end);
      start = end + (this.buffer.startsWith('\r\n', end) ? 2 : 1);
      this.line(line, atMs);
    }
    this.buffer = this.buffer.slice(start);
  }

  private line(line: string, atMs: number): void {
    if (line === '') {
      if (this.dataLines.length > 0) this.onEvent({ data: this.dataLines.join('\n'), event: this.eventName || 'message', atMs });
      this.dataLines = [];
      this.eventName = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'event') this.eventName = value;
  }
}

/** What one chat-completion chunk says about output. */
export interface ChunkContent {
  /** Characters of output content in this chunk (content, refusal, tool-call arguments). */
  contentChars: number;
  /** `usage.completion_tokens`, when the chunk carries usage (`stream_options.include_usage`). */
  completionTokens?: number;
  promptTokens?: number;
  finishReason?: string;
  /** The chunk is an error object (`{"error": …}`) sent in the stream. */
  error?: string;
}

/**
 * Reads one `data:` payload of an OpenAI chat completion stream. A content event is one that carries
 * output: a non-empty `delta.content`, `delta.refusal`, `delta.reasoning_content`/`reasoning`, or
 * tool-call `arguments`. Role-only deltas (`{"role":"assistant"}`), empty strings and usage-only
 * chunks are not content. Returns undefined when the payload is not JSON (a parse error the caller counts).
 */
export function readChatChunk(data: string): ChunkContent | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isObject(doc)) return undefined;
  const out: ChunkContent = { contentChars: 0 };
  if (isObject(doc.error)) out.error = typeof doc.error.message === 'string' ? doc.error.message : 'error object in the stream';
  const choices = Array.isArray(doc.choices) ? doc.choices : [];
  for (const choice of choices) {
    if (!isObject(choice)) continue;
    const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : undefined;
    if (delta) out.contentChars += outputChars(delta);
    if (typeof choice.finish_reason === 'string') out.finishReason = choice.finish_reason;
  }
  readUsage(doc.usage, out);
  return out;
}

/** Output characters of a delta or message. */
export function outputChars(delta: Record<string, unknown>): number {
  let n = 0;
  for (const key of ['content', 'refusal', 'reasoning_content', 'reasoning']) {
    const v = delta[key];
    if (typeof v === 'string') n += v.length;
  }
  if (Array.isArray(delta.tool_calls)) {
    for (const call of delta.tool_calls) {
      if (isObject(call) && isObject(call.function) && typeof call.function.arguments === 'string') n += call.function.arguments.length;
    }
  }
  return n;
}

/** Copies `usage.completion_tokens` / `prompt_tokens` onto `out` when they are non-negative integers. */
export function readUsage(usage: unknown, out: { completionTokens?: number; promptTokens?: number }): void {
  if (!isObject(usage)) return;
  if (Number.isInteger(usage.completion_tokens) && (usage.completion_tokens as number) >= 0) out.completionTokens = usage.completion_tokens as number;
  if (Number.isInteger(usage.prompt_tokens) && (usage.prompt_tokens as number) >= 0) out.promptTokens = usage.prompt_tokens as number;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
