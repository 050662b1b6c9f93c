import * as crypto from 'crypto';
import * as vscode from 'vscode';

/** Where the webview bundles are built; the only folder a form webview may load from. */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

/**
 * The form's page: one nonce'd script (a fresh nonce from crypto.randomBytes each time), nothing
 * inline, styles adopted by the bundle from its own code (style-src allows only the webview's origin).
 */
export function formHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(webviewRoot(extensionUri), 'contract-form.js'));
  const csp = `default-src 'none'; img-src ${webview.cspSource} data:; style-src ${webview.cspSource}; font-src ${webview.cspSource}; script-src 'nonce-${nonce}';`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
</head><body><div id="phasewise-contract-form"></div><script nonce="${nonce}" src="${script.toString()}"></script></body></html>`;
}
