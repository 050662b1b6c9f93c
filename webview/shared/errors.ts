/** Errors shown in a view (the host's webview/showError, or a failed render), as text. */
import type { ShowErrorParams } from '../../src/protocol/common';
import { h } from './dom';

export function errorBanner(p: ShowErrorParams): HTMLElement {
  const where = p.file ? `${p.file}${p.line !== null && p.line !== undefined ? `:${p.line}` : ''}: ` : '';
  return h('div', { class: 'pw-error-banner', role: 'alert' }, where, p.message);
}
