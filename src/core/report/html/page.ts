/**
 * One self-contained HTML file for a report or a trace: the webview bundles inlined, the data embedded
 * as JSON in a `<script type="application/json">` block (data, never executed), and a CSP that lets
 * only those inlined scripts run (their SHA-256 hashes) and nothing load: no network request, no other
 * script, no style element (the bundles adopt constructable stylesheets).
 */
import { createHash } from 'crypto';
import { existsSync, readFileSync } from 'fs';
import * as path from 'path';
import { escapeLine } from '../../escape';
import type { EmbeddedPage } from '../view/types';

export type BundleName = 'report' | 'waterfall';

/**
 * Where the built bundles are: beside the running bundle (dist/cli.js → dist/webview/), or, for code
 * run from the compiled tests (out/src/…), in the project's dist/webview/.
 */
export function webviewBundleDir(from: string = __dirname): string {
  const beside = path.join(from, 'webview');
  if (existsSync(path.join(beside, 'report.js'))) return beside;
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'dist', 'webview');
    if (existsSync(path.join(candidate, 'report.js'))) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error(`the webview bundles are not built (no dist/webview/report.js above ${from}): run npm run build`);
}

/**
 * JSON safe inside a <script> block: no `</script>` or `<!--` can end or bend it, and no control, bidi
 * or separator character from an input file stands raw in the file (the page is also read with `cat`
 * and `less`); escapeLine's escapes are JSON escapes, so the block parses to the same value.
 */
export function jsonForScript(value: unknown): string {
  return escapeLine(JSON.stringify(value))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** A bundle's code as it can stand inside <script>…</script> (a `</script` in a string literal is written `<\/script`). */
function inlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

export interface PageOptions {
  title: string;
  data: EmbeddedPage;
  bundles: readonly BundleName[];
  /** Defaults to webviewBundleDir(). */
  bundleDir?: string;
}

export function renderHtmlPage(options: PageOptions): string {
  const dir = options.bundleDir ?? webviewBundleDir();
  const scripts = options.bundles.map((b) => inlineScript(readFileSync(path.join(dir, `${b}.js`), 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n')));
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map((s) => `'sha256-${sha256(s)}'`).join(' ')}`,
    "style-src 'none'",
    'img-src data: blob:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  // Built from constants and base64 hashes only: nothing in it needs escaping inside the attribute.
  const containers = options.bundles.map((b, i) => `<div id="phasewise-${b}"${i > 0 ? ' hidden' : ''}></div>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en" data-phasewise-standalone>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="phasewise">
<title>${escapeHtml(escapeLine(options.title))}</title>
</head>
<body>
${containers}
<script type="application/json" id="phasewise-data">${jsonForScript(options.data)}</script>
${scripts.map((s) => `<script>${s}</script>`).join('\n')}
</body>
</html>
`;
}
