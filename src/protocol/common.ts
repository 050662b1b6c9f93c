/**
 * Messages every Phasewise webview speaks, whatever it shows: the ready handshake, the theme, copying,
 * errors. Each view's own protocol (report.ts, waterfall.ts) adds its messages to these.
 */
import { notification } from './ipc';
import { array, literal, nullable, number, object, optional, string, type Infer } from './schema';

/** The protocol revision a bundle was built with; the host refuses to talk to a bundle of another one. */
export const PROTOCOL_REVISION = 1;

/**
 * Webview → host, once its script has loaded and its handlers are registered. The host queues every
 * message until this arrives (HostChannel): a post before it is lost by VS Code.
 * `restored` is true when the webview found saved state (`getState()`) and already shows it.
 */
export const Ready = notification(
  'webview/ready',
  'toHost',
  object({ view: literal('report', 'waterfall', 'contract-form', 'compare', 'query'), revision: number, restored: optional(literal(true, false)) }),
);
export type ReadyParams = Infer<typeof Ready.params>;

/** VS Code's colour theme kinds (the body class VS Code sets: vscode-light, vscode-dark, …). */
export const themeKind = literal('light', 'dark', 'high-contrast', 'high-contrast-light');
export type ThemeKind = Infer<typeof themeKind>;

/**
 * Host → webview when the colour theme changes. The webview also watches the body class, which VS Code
 * changes first; this message makes the redraw explicit (charts read `--vscode-*` colours at draw time).
 */
export const ThemeChanged = notification('webview/themeChanged', 'toWebview', object({ kind: themeKind }));

/** Webview → host: put this text on the clipboard (VS Code's `env.clipboard`; webviews may not have clipboard permission). */
export const Copy = notification('webview/copy', 'toHost', object({ text: string, what: string }));

/**
 * Host → webview: something failed (the trace is gone from the run cache, a query failed). Shown in
 * the view in place of or above the data; `file`/`line` when the error names an input.
 */
export const ShowError = notification(
  'webview/showError',
  'toWebview',
  object({ message: string, file: optional(nullable(string)), line: optional(nullable(number)) }),
);
export type ShowErrorParams = Infer<typeof ShowError.params>;

/** Webview → host: an error inside the webview (a failed render), for the host's log channel. */
export const ReportProblem = notification('webview/problem', 'toHost', object({ message: string }));

/** A gate's result as the views show it (Report GateResult; observed null unless finite): the Runs view, the contract form's Evaluate. */
export const gateRow = object({
  id: string,
  category: string,
  metric: string,
  stat: string,
  op: string,
  limit: number,
  observed: nullable(number),
  n: nullable(number),
  window: string,
  status: literal('pass', 'fail', 'no_data'),
  origin: nullable(string),
});

/** A run's files as the editor opens them (Open Run…): what a restored panel reopens when its run is gone. */
export const runInputs = object({ run: array(string), spans: array(string), contract: nullable(string) });
