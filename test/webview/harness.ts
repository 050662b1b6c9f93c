/**
 * A static host page for the webview bundles in headless Chromium (playwright-core): it stands in for
 * VS Code's webview (a strict CSP with a nonce, `acquireVsCodeApi`, the body theme class and the
 * --vscode-* variables), and the test plays the extension host with the real HostChannel, so every
 * message crosses the same declarations and checks as in the editor.
 */
import * as fs from 'fs';
import * as path from 'path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { HostChannel } from '../../src/protocol/channel';
import type { ThemeKind } from '../../src/protocol/common';
import type { WireMessage } from '../../src/protocol/ipc';
import { repoRoot } from '../helpers/paths';

/** What page.evaluate callbacks see (they run in the page; this tsconfig has no DOM lib). */
interface PageWindow {
  postMessage(message: unknown, target: string): void;
  __problems: string[];
}
declare const window: PageWindow;
declare const document: { body: { className: string } };

export const ARTIFACTS = path.join(repoRoot, 'test', 'webview', '.artifacts');
const ORIGIN = 'http://phasewise.test';
const NONCE = 'dGVzdC1ub25jZS0xMjM0NQ';

let shared: Promise<Browser> | undefined;

/** One Chromium for the whole mocha run (closed by closeBrowser in a root after hook). */
export function browser(): Promise<Browser> {
  shared ??= chromium.launch({
    executablePath: process.env.PHASEWISE_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-gpu'],
  });
  return shared;
}

export async function closeBrowser(): Promise<void> {
  if (shared) await (await shared).close();
  shared = undefined;
}

function bundle(name: string): string {
  return fs.readFileSync(path.join(repoRoot, 'dist', 'webview', `${name}.js`), 'utf8');
}

function bodyClass(kind: ThemeKind): string {
  return kind === 'high-contrast-light' ? 'vscode-high-contrast vscode-high-contrast-light' : `vscode-${kind}`;
}

/** The page VS Code would give a webview: CSP as a panel sets it, the fake API, one nonce'd bundle. */
/** The bundles a page can host: dist/webview/<view>.js mounted on #phasewise-<view>. */
export type HostedView = 'report' | 'waterfall' | 'contract-form' | 'compare' | 'query';

function hostHtml(view: HostedView, theme: ThemeKind): string {
  const csp = `default-src 'none'; img-src ${ORIGIN} data:; style-src ${ORIGIN} 'nonce-${NONCE}'; font-src ${ORIGIN}; script-src 'nonce-${NONCE}';`;
  return `<!DOCTYPE html>
<html lang="en" data-phasewise-standalone>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${view}</title>
</head>
<body class="${bodyClass(theme)}" data-vscode-theme-kind="vscode-${theme}">
<div id="phasewise-${view}"></div>
<script nonce="${NONCE}" src="${ORIGIN}/fake-api.js"></script>
<script nonce="${NONCE}" src="${ORIGIN}/${view}.js"></script>
</body>
</html>`;
}

const FAKE_API = `
window.__state = undefined;
window.__problems = [];
window.acquireVsCodeApi = function () {
  return {
    postMessage: function (m) { window.__toHost(m); },
    getState: function () { return window.__state; },
    setState: function (s) { window.__state = s; },
  };
};
document.addEventListener('securitypolicyviolation', function (e) { window.__problems.push('CSP: ' + e.violatedDirective + ' ' + e.blockedURI); });
`;

export interface HostPageOptions {
  theme?: ThemeKind;
  width?: number;
  height?: number;
}

/** A webview page and the host's side of its channel. */
export class HostPage {
  readonly received: WireMessage[] = [];
  readonly problems: string[] = [];

  private constructor(
    readonly page: Page,
    readonly channel: HostChannel,
  ) {}

  static async open(view: HostedView, options: HostPageOptions = {}): Promise<HostPage> {
    const b = await browser();
    const page = await b.newPage({ viewport: { width: options.width ?? 1400, height: options.height ?? 900 } });
    let hostPage: HostPage | undefined;
    const channel = new HostChannel({
      // As text: Playwright serialises a string far faster than a 10k-span object graph.
      post: (m) => page.evaluate((text) => window.postMessage(JSON.parse(text), '*'), JSON.stringify(m)).catch(() => undefined),
      onProblem: (p) => hostPage?.problems.push(`${p.method}: ${p.message}`),
    });
    hostPage = new HostPage(page, channel);
    const hp = hostPage;
    page.on('pageerror', (e) => hp.problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') hp.problems.push(`console: ${m.text()}`);
    });
    await page.exposeFunction('__toHost', (m: WireMessage) => {
      hp.received.push(m);
      channel.receive(m);
    });
    await page.route(`${ORIGIN}/**`, async (route) => {
      const url = new URL(route.request().url());
      const name = url.pathname.slice(1);
      if (name === `${view}.html`) return route.fulfill({ contentType: 'text/html', body: hostHtml(view, options.theme ?? 'dark') });
      if (name === 'fake-api.js') return route.fulfill({ contentType: 'text/javascript', body: FAKE_API });
      if (/^[a-z-]+\.js$/.test(name)) return route.fulfill({ contentType: 'text/javascript', body: bundle(name.slice(0, -3)) });
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto(`${ORIGIN}/${view}.html`);
    return hp;
  }

  /** Messages the webview sent with this method. */
  sent(method: string): WireMessage[] {
    return this.received.filter((m) => m.method === method);
  }

  async setTheme(kind: ThemeKind): Promise<void> {
    await this.page.evaluate((cls) => {
      document.body.className = cls;
    }, bodyClass(kind));
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** Problems the page reported (CSP violations, page errors, console errors, protocol problems). */
  async allProblems(): Promise<string[]> {
    const inPage = await this.page.evaluate(() => window.__problems);
    return [...this.problems, ...inPage];
  }

  async close(): Promise<void> {
    this.channel.dispose();
    await this.page.close();
  }
}
