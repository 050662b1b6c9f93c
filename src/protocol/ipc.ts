/**
 * Messages between the extension host and a webview, declared once per message (GitLens'
 * IpcNotificationType/IpcCommandType pattern) and exchanged through one Endpoint on each side.
 *
 * Wire format (what `postMessage` carries), always a plain JSON object:
 * - notification `{ phasewise: 1, kind: 'notification', method, params }`
 * - request      `{ phasewise: 1, kind: 'request', id, method, params }`
 * - response     `{ phasewise: 1, kind: 'response', id, result }` or `{ …, id, error: { message } }`
 *
 * Ids are per sender; a response answers the sender's own request of that id. No `vscode` import:
 * the host wraps `webview.postMessage`/`onDidReceiveMessage`, the webview `acquireVsCodeApi()` and
 * `window` message events.
 */
import { literal, number, object, optional, string, type Infer, type Schema } from './schema';

/** Who sends a message: declared with it so an endpoint refuses to send what its side may not. */
export type Direction = 'toWebview' | 'toHost';

/** A one-way message. */
export interface NotificationType<M extends string, P> {
  readonly kind: 'notification';
  readonly method: M;
  readonly direction: Direction;
  readonly params: Schema<P>;
}

/** A message that expects one reply, matched to it by id. */
export interface RequestType<M extends string, P, R> {
  readonly kind: 'request';
  readonly method: M;
  readonly direction: Direction;
  readonly params: Schema<P>;
  readonly result: Schema<R>;
}

/** Declares a notification; the params type comes from its schema. */
export function notification<M extends string, S extends Schema<unknown>>(method: M, direction: Direction, params: S): NotificationType<M, Infer<S>> {
  return { kind: 'notification', method, direction, params: params as Schema<Infer<S>> };
}

/** Declares a request and the schema of its reply. */
export function request<M extends string, S extends Schema<unknown>, R extends Schema<unknown>>(
  method: M,
  direction: Direction,
  params: S,
  result: R,
): RequestType<M, Infer<S>, Infer<R>> {
  return { kind: 'request', method, direction, params: params as Schema<Infer<S>>, result: result as Schema<Infer<R>> };
}

export type ParamsOf<T> = T extends NotificationType<string, infer P> ? P : T extends RequestType<string, infer P, unknown> ? P : never;
export type ResultOf<T> = T extends RequestType<string, unknown, infer R> ? R : never;

/** The wire envelope's version tag: a message without it is not ours (another extension's, or the page's). */
export const WIRE_TAG = 'phasewise';
export const WIRE_VERSION = 1;

const envelope = object({ phasewise: literal(WIRE_VERSION), kind: literal('notification', 'request', 'response'), method: optional(string), id: optional(number) });

/** Raw wire message (kept loose: its params are checked against the method's own schema). */
export interface WireMessage {
  phasewise: 1;
  kind: 'notification' | 'request' | 'response';
  method?: string;
  id?: number;
  params?: unknown;
  result?: unknown;
  error?: { message: string };
}

/** An error a handler throws is sent back with its message; the requester's promise rejects with it. */
export class RemoteError extends Error {
  constructor(method: string, message: string) {
    super(`${method}: ${message}`);
    this.name = 'RemoteError';
  }
}

/** A message that arrived but does not match its declaration (or no handler knows its method). */
export interface ProtocolProblem {
  method: string;
  message: string;
}

type AnyNotification = NotificationType<string, unknown>;
type AnyRequest = RequestType<string, unknown, unknown>;

interface Pending {
  method: string;
  result: Schema<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
}

export interface EndpointOptions {
  /** Which side this endpoint is: it sends the messages of the other direction's opposite. */
  side: 'host' | 'webview';
  /** Posts one wire message to the other side. */
  post: (message: WireMessage) => void;
  /** Called for messages that fail their schema or have no handler (log them; never throw). */
  onProblem?: (problem: ProtocolProblem) => void;
  /** A request without a reply after this many ms rejects (default 60 s; 0 = never). */
  requestTimeoutMs?: number;
}

/**
 * One side of the conversation. `receive` is fed every raw incoming message; handlers are looked up by
 * method, their params checked against the declaration first.
 */
export class Endpoint {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly notificationHandlers = new Map<string, { type: AnyNotification; handler: (p: unknown) => void }>();
  private readonly requestHandlers = new Map<string, { type: AnyRequest; handler: (p: unknown) => unknown }>();
  private disposed = false;

  constructor(private readonly options: EndpointOptions) {}

  private get sends(): Direction {
    return this.options.side === 'host' ? 'toWebview' : 'toHost';
  }

  /** Sends a notification this side may send. */
  notify<P>(type: NotificationType<string, P>, params: P): void {
    this.checkOutgoing(type.method, type.direction, type.params, params);
    this.options.post({ phasewise: WIRE_VERSION, kind: 'notification', method: type.method, params });
  }

  /** Sends a request and resolves with its checked reply. */
  request<P, R>(type: RequestType<string, P, R>, params: P): Promise<R> {
    this.checkOutgoing(type.method, type.direction, type.params, params);
    if (this.disposed) return Promise.reject(new Error(`${type.method}: the channel is closed`));
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const entry: Pending = { method: type.method, result: type.result as Schema<unknown>, resolve: resolve as (v: unknown) => void, reject };
      const timeout = this.options.requestTimeoutMs ?? 60_000;
      if (timeout > 0) {
        entry.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new Error(`${type.method}: no reply after ${timeout} ms`));
        }, timeout);
      }
      this.pending.set(id, entry);
      this.options.post({ phasewise: WIRE_VERSION, kind: 'request', id, method: type.method, params });
    });
  }

  onNotification<P>(type: NotificationType<string, P>, handler: (params: P) => void): void {
    this.checkIncoming(type.method, type.direction);
    this.notificationHandlers.set(type.method, { type: type as AnyNotification, handler: handler as (p: unknown) => void });
  }

  onRequest<P, R>(type: RequestType<string, P, R>, handler: (params: P) => R | Promise<R>): void {
    this.checkIncoming(type.method, type.direction);
    this.requestHandlers.set(type.method, { type: type as AnyRequest, handler: handler as (p: unknown) => unknown });
  }

  /** Feeds one raw message from the other side. Returns false when it is not a Phasewise message. */
  receive(raw: unknown): boolean {
    if (envelope.check(raw, 'message') !== undefined) return false;
    const msg = raw as WireMessage;
    if (msg.kind === 'response') this.receiveResponse(msg);
    else if (msg.kind === 'notification') this.receiveNotification(msg);
    else void this.receiveRequest(msg);
    return true;
  }

  /** Rejects every pending request; later sends fail. */
  dispose(): void {
    this.disposed = true;
    for (const [id, p] of this.pending) {
      if (p.timer !== undefined) clearTimeout(p.timer);
      p.reject(new Error(`${p.method}: the channel was closed before the reply`));
      this.pending.delete(id);
    }
  }

  private receiveResponse(msg: WireMessage): void {
    const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
    if (p === undefined) {
      this.problem(msg.method ?? 'response', `a reply to no pending request (id ${msg.id})`);
      return;
    }
    this.pending.delete(msg.id as number);
    if (p.timer !== undefined) clearTimeout(p.timer);
    if (msg.error !== undefined) {
      p.reject(new RemoteError(p.method, typeof msg.error.message === 'string' ? msg.error.message : 'failed'));
      return;
    }
    const e = p.result.check(msg.result, `${p.method} result`);
    if (e !== undefined) p.reject(new Error(e));
    else p.resolve(msg.result);
  }

  private receiveNotification(msg: WireMessage): void {
    const method = msg.method ?? '';
    const h = this.notificationHandlers.get(method);
    if (h === undefined) return this.problem(method, 'no handler for this notification');
    const e = h.type.params.check(msg.params, `${method} params`);
    if (e !== undefined) return this.problem(method, e);
    h.handler(msg.params);
  }

  private async receiveRequest(msg: WireMessage): Promise<void> {
    const method = msg.method ?? '';
    const reply = (body: { result?: unknown; error?: { message: string } }): void =>
      this.options.post({ phasewise: WIRE_VERSION, kind: 'response', id: msg.id, method, ...body });
    const h = this.requestHandlers.get(method);
    if (h === undefined) {
      this.problem(method, 'no handler for this request');
      return reply({ error: { message: 'no handler for this request' } });
    }
    const e = h.type.params.check(msg.params, `${method} params`);
    if (e !== undefined) {
      this.problem(method, e);
      return reply({ error: { message: e } });
    }
    try {
      reply({ result: await h.handler(msg.params) });
    } catch (err) {
      reply({ error: { message: err instanceof Error ? err.message : String(err) } });
    }
  }

  private checkOutgoing(method: string, direction: Direction, params: Schema<unknown>, value: unknown): void {
    if (direction !== this.sends) throw new Error(`${method} is sent ${direction === 'toHost' ? 'by the webview' : 'by the host'}, not by the ${this.options.side}`);
    const e = params.check(value, `${method} params`);
    if (e !== undefined) throw new TypeError(e);
  }

  private checkIncoming(method: string, direction: Direction): void {
    if (direction === this.sends) throw new Error(`${method} is sent by the ${this.options.side}; it cannot be handled here`);
  }

  private problem(method: string, message: string): void {
    this.options.onProblem?.({ method, message });
  }
}
