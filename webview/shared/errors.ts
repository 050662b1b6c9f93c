/** Errors shown in a view (the host's webview/showError, or a failed render), as text. */
import { ReportProblem, type ShowErrorParams } from '../../src/protocol/common';
import type { Endpoint } from '../../src/protocol/ipc';
import { h } from './dom';

export function errorBanner(p: ShowErrorParams): HTMLElement {
  const where = p.file ? `${p.file}${p.line !== null && p.line !== undefined ? `:${p.line}` : ''}: ` : '';
  return h('div', { class: 'pw-error-banner', role: 'alert' }, where, p.message);
}

/**
 * Runs a render step; a failure is shown in the view (what could not be drawn, and why) and sent to
 * the host's log, instead of leaving a blank panel.
 */
export function guarded(endpoint: Endpoint, view: string, show: (p: ShowErrorParams) => void, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    endpoint.notify(ReportProblem, { message: `${view}: ${message}` });
    show({ message: `The ${view} could not be drawn: ${message}` });
  }
}
