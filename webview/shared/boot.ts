/**
 * Start-up shared by both bundles: styles, the controls, the bridge, theme and error handling, then
 * the ready message (the host queues everything until it arrives).
 */
import './quietRegistry';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { PROTOCOL_REVISION, Ready, ReportProblem, ShowError, ThemeChanged, type ShowErrorParams } from '../../src/protocol/common';
import { adoptStyles } from './dom';
import { connect, mountPoint, type Bridge, type ViewName } from './host';
import { applyThemeKind, onThemeChange } from './theme';
import baseCss from './base.css';
import themeCss from './standalone-theme.css';

export interface ViewApp {
  showError(p: ShowErrorParams): void;
  redraw(): void;
}

export function boot(view: ViewName, css: string, create: (root: HTMLElement, bridge: Bridge) => ViewApp): void {
  adoptStyles(themeCss, baseCss, css);
  if (document.getElementById('phasewise-data') !== null || typeof (window as { acquireVsCodeApi?: unknown }).acquireVsCodeApi !== 'function') {
    document.documentElement.dataset.phasewiseStandalone = '';
  }
  let app: ViewApp | undefined;
  const bridge = connect(view, (p) => {
    // A message that failed its declaration: say so in the view and to the host's log.
    app?.showError({ message: `Protocol problem in ${p.method}: ${p.message}` });
  });
  app = create(mountPoint(view), bridge);
  const redraw = onThemeChange(() => app?.redraw());
  bridge.endpoint.onNotification(ThemeChanged, (p) => {
    if (bridge.standalone) applyThemeKind(p.kind);
    redraw();
  });
  bridge.endpoint.onNotification(ShowError, (p) => app?.showError(p));
  window.addEventListener('error', (e) => bridge.endpoint.notify(ReportProblem, { message: `${view}: ${e.message}` }));
  bridge.endpoint.notify(Ready, { view, revision: PROTOCOL_REVISION, restored: bridge.getState() !== undefined && bridge.getState() !== null });
}
