/**
 * The host's side of one webview: an Endpoint whose outgoing messages wait until the webview's
 * `webview/ready` (VS Code drops posts to a webview whose script has not started, and a reloaded
 * webview starts again from nothing). No `vscode` import: the panel passes its post function and
 * feeds `receive` from `onDidReceiveMessage`.
 */
import { PROTOCOL_REVISION, Ready, type ReadyParams } from './common';
import { Endpoint, type EndpointOptions, type NotificationType, type ProtocolProblem, type RequestType, type WireMessage } from './ipc';

export interface HostChannelOptions {
  /** `webview.postMessage` (its Thenable's result is ignored: a post after ready is not lost). */
  post: (message: WireMessage) => unknown;
  onProblem?: (problem: ProtocolProblem) => void;
  /** Called on each ready message (again after the webview reloads). */
  onReady?: (params: ReadyParams) => void;
  requestTimeoutMs?: number;
}

export class HostChannel {
  private readonly endpoint: Endpoint;
  private queue: WireMessage[] | undefined = [];
  private readonly options: HostChannelOptions;

  constructor(options: HostChannelOptions) {
    this.options = options;
    const endpointOptions: EndpointOptions = {
      side: 'host',
      post: (m) => this.post(m),
      onProblem: options.onProblem,
      requestTimeoutMs: options.requestTimeoutMs,
    };
    this.endpoint = new Endpoint(endpointOptions);
    this.endpoint.onNotification(Ready, (params) => {
      if (params.revision !== PROTOCOL_REVISION) {
        options.onProblem?.({ method: Ready.method, message: `the webview speaks protocol revision ${params.revision}, the host ${PROTOCOL_REVISION}` });
        return;
      }
      const queued = this.queue ?? [];
      this.queue = undefined;
      for (const m of queued) void options.post(m);
      options.onReady?.(params);
    });
  }

  /** True once the webview said it is ready (and until `webviewReloaded`). */
  get ready(): boolean {
    return this.queue === undefined;
  }

  notify<P>(type: NotificationType<string, P>, params: P): void {
    this.endpoint.notify(type, params);
  }

  request<P, R>(type: RequestType<string, P, R>, params: P): Promise<R> {
    return this.endpoint.request(type, params);
  }

  onNotification<P>(type: NotificationType<string, P>, handler: (params: P) => void): void {
    this.endpoint.onNotification(type, handler);
  }

  onRequest<P, R>(type: RequestType<string, P, R>, handler: (params: P) => R | Promise<R>): void {
    this.endpoint.onRequest(type, handler);
  }

  /** Feed every message from `webview.onDidReceiveMessage`. */
  receive(raw: unknown): boolean {
    return this.endpoint.receive(raw);
  }

  /** The webview's document is being replaced (`webview.html` set again): queue until it is ready again. */
  webviewReloaded(): void {
    this.queue ??= [];
  }

  dispose(): void {
    this.queue = [];
    this.endpoint.dispose();
  }

  private post(message: WireMessage): void {
    // Replies go out at once: a request can only have come from a webview that runs.
    if (this.queue !== undefined && message.kind !== 'response') this.queue.push(message);
    else void this.options.post(message);
  }
}
