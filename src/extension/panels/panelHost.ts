/**
 * What the report and waterfall panels share: the webview's HTML (strict CSP, a nonce from
 * crypto.randomBytes, scripts and styles only from dist/webview), one HostChannel that queues until the
 * webview's ready message, the common messages (copy, problems, theme), and a bounded log of every
 * message the panel received and posted (the integration suite reads it through the extension API).
 */
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { HostChannel } from '../../protocol/channel';
import { Copy, ReportProblem, ShowError, ThemeChanged, type ShowErrorParams, type ThemeKind } from '../../protocol/common';
import type { WireMessage } from '../../protocol/ipc';

export type ViewName = 'report' | 'waterfall' | 'compare' | 'query';

/** One logged message: `in` came from the webview, `out` was posted to it. */
export interface LoggedMessage {
  dir: 'in' | 'out';
  kind: string;
  method: string;
  /** Requests and their responses. */
  id?: number;
  /** The params (JSON text fields as they crossed); a response's result or error. */
  params: unknown;
  at: number;
}

const LOG_LIMIT = 200;

export function themeKind(kind: vscode.ColorThemeKind): ThemeKind {
  switch (kind) {
    case vscode.ColorThemeKind.Light:
      return 'light';
    case vscode.ColorThemeKind.HighContrast:
      return 'high-contrast';
    case vscode.ColorThemeKind.HighContrastLight:
      return 'high-contrast-light';
    default:
      return 'dark';
  }
}

/** The webview's options: scripts on, resources only from the built webview folder. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    enableFindWidget: true,
    retainContextWhenHidden: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
}

function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, view: ViewName, title: string): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${view}.js`));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data: blob:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const safeTitle = title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${safeTitle}</title>
</head><body><div id="phasewise-${view}"></div><script nonce="${nonce}" src="${script}"></script></body></html>`;
}

export abstract class PanelHost implements vscode.Disposable {
  readonly channel: HostChannel;
  readonly log: LoggedMessage[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** The last state the webview saved (restored with the next load). */
  protected savedState: unknown = null;
  /** Ids of requests fed by `deliver`: their replies are logged, not posted (the webview never asked). */
  private readonly injected = new Set<number>();

  private readies = 0;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly view: ViewName,
    extensionUri: vscode.Uri,
    protected readonly output: vscode.LogOutputChannel,
    /** Called once the panel is gone (closed by the user or disposed). */
    private readonly onGone: () => void,
  ) {
    this.channel = new HostChannel({
      post: (m) => {
        this.record('out', m);
        if (m.kind === 'response' && typeof m.id === 'number' && this.injected.delete(m.id)) return true;
        return panel.webview.postMessage(m);
      },
      onProblem: (p) => output.warn(`${view} panel: ${p.method}: ${p.message}`),
      onReady: () => this.onReady(),
    });
    this.channel.onNotification(Copy, (p) => void vscode.env.clipboard.writeText(p.text).then(() => vscode.window.setStatusBarMessage(`Phasewise: copied the ${p.what}`, 3000)));
    this.channel.onNotification(ReportProblem, (p) => output.error(`${view} webview: ${p.message}`));
    panel.webview.options = webviewOptions(extensionUri);
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => {
        this.record('in', m as WireMessage);
        this.channel.receive(m);
      }),
      vscode.window.onDidChangeActiveColorTheme((t) => this.channel.notify(ThemeChanged, { kind: themeKind(t.kind) })),
      panel.onDidDispose(() => this.dispose()),
      // The panel in front makes its run the active one (the status bar, the Slow Traces view).
      panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.active) this.onActive?.();
      }),
    );
    panel.webview.html = webviewHtml(panel.webview, extensionUri, view, panel.title);
  }

  /** Called when the panel comes to the front. */
  onActive: (() => void) | undefined;

  /** Posts the panel's model (queued by the channel until the webview is ready). */
  protected abstract send(): void;

  /**
   * The first ready flushed what was queued; a later one means VS Code recreated the webview (it was
   * hidden, or reloaded), which starts from nothing: it gets the model again.
   */
  private onReady(): void {
    if (this.readies++ > 0) this.send();
  }

  showError(p: ShowErrorParams): void {
    this.channel.notify(ShowError, p);
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  private record(dir: 'in' | 'out', m: WireMessage | undefined): void {
    if (m === undefined || m === null || typeof m !== 'object') return;
    this.log.push({ dir, kind: String(m.kind), method: String(m.method ?? ''), id: typeof m.id === 'number' ? m.id : undefined, params: m.kind === 'response' ? (m.error !== undefined ? { error: m.error } : m.result) : m.params, at: Date.now() });
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT);
  }

  /** Feeds a message as if the webview had sent it (the integration suite drives the host's handlers). */
  deliver(message: unknown): boolean {
    const m = message as WireMessage;
    if (m !== null && typeof m === 'object' && m.kind === 'request' && typeof m.id === 'number') this.injected.add(m.id);
    this.record('in', m);
    return this.channel.receive(message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.channel.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
    this.onGone();
  }
}
