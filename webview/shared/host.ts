/**
 * The webview's side of the protocol: one Endpoint per view, talking to VS Code through
 * `acquireVsCodeApi()` or, in an exported HTML file (no VS Code), to the in-page stand-in host of
 * standalone.ts that answers from the embedded data.
 */
import { Endpoint, type ProtocolProblem } from '../../src/protocol/ipc';
import { standaloneBus, isStandalonePage } from './standalone';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare const acquireVsCodeApi: (() => VsCodeApi) | undefined;

/** The views an exported HTML file can hold (standalone.ts), and the contract form, which lives only in VS Code. */
export type ViewName = 'report' | 'waterfall' | 'contract-form' | 'compare' | 'query';

export interface Bridge {
  endpoint: Endpoint;
  getState(): unknown;
  setState(state: unknown): void;
  /** True in an exported HTML file (no host: requests are answered from embedded data). */
  standalone: boolean;
}

export function connect(view: ViewName, onProblem: (p: ProtocolProblem) => void): Bridge {
  if (typeof acquireVsCodeApi === 'function' && !isStandalonePage()) {
    const api = acquireVsCodeApi();
    const endpoint = new Endpoint({ side: 'webview', post: (m) => api.postMessage(m), onProblem });
    window.addEventListener('message', (e: MessageEvent) => endpoint.receive(e.data));
    return { endpoint, getState: () => api.getState(), setState: (s) => api.setState(s), standalone: false };
  }
  if (view === 'contract-form' || view === 'compare' || view === 'query') throw new Error(`the ${view} view runs only inside VS Code (no acquireVsCodeApi)`);
  const bus = standaloneBus();
  let state: unknown = undefined;
  const endpoint = new Endpoint({ side: 'webview', post: (m) => bus.toHost(view, m), onProblem });
  bus.attach(view, (m) => endpoint.receive(m));
  return { endpoint, getState: () => state, setState: (s) => (state = s), standalone: true };
}

/** The element a view mounts into (`#phasewise-<view>`, else the body). */
export function mountPoint(view: ViewName): HTMLElement {
  return document.getElementById(`phasewise-${view}`) ?? document.body;
}
