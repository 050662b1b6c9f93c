// Access to Phasewise's test hooks (extension exports) and small waiting helpers for the suite.
import * as vscode from 'vscode';
import type { PhasewiseApi } from '../../../src/extension/extension';
import { ensureActive, phasewise } from './context';

export type Hooks = PhasewiseApi['testHooks'];
export type LoggedMessage = ReturnType<Hooks['panels']>[number]['messages'][number];

export async function api(): Promise<PhasewiseApi> {
  await ensureActive();
  return phasewise().exports as PhasewiseApi;
}

export async function hooks(): Promise<Hooks> {
  return (await api()).testHooks;
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The panel of a view for a run (and trace), once it exists. */
export function panelOf(h: Hooks, view: 'report' | 'waterfall', runId: string, traceId: string | null = null): ReturnType<Hooks['panels']>[number] | undefined {
  return h.panels().find((p) => p.view === view && p.runId === runId && (traceId === null || p.traceId === traceId));
}

/** The first message of `method` the panel posted (`out`) or received (`in`) after index `from`. */
export function message(p: ReturnType<Hooks['panels']>[number] | undefined, dir: 'in' | 'out', method: string, from = 0): LoggedMessage | undefined {
  return p?.messages.slice(from).find((m) => m.dir === dir && m.method === method);
}

/** A request as the webview would send it; the reply is read from the panel's log by id. */
export function webviewRequest(id: number, method: string, params: unknown): unknown {
  return { phasewise: 1, kind: 'request', id, method, params };
}

export function webviewNotification(method: string, params: unknown): unknown {
  return { phasewise: 1, kind: 'notification', method, params };
}

/** The reply the host posted to the webview's request `id`. */
export function reply(p: ReturnType<Hooks['panels']>[number] | undefined, id: number): LoggedMessage | undefined {
  return p?.messages.find((m) => m.dir === 'out' && m.kind === 'response' && m.id === id);
}

export function themeIconId(item: vscode.TreeItem): string | undefined {
  return item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined;
}

export function tooltipText(item: vscode.TreeItem): string {
  const t = item.tooltip;
  return t === undefined ? '' : typeof t === 'string' ? t : t.value;
}
