/**
 * The stand-in host of an exported HTML file: the page holds the data as JSON in
 * `<script type="application/json" id="phasewise-data">` and one or both bundles. Each view's messages
 * go to a host-side Endpoint here (the same protocol declarations and checks as in VS Code), which
 * answers from that data: the report, trace lists per window and bucket, the waterfalls of the listed
 * slow traces. Switching between the report and a waterfall follows the URL hash (#trace=<id>), so the
 * browser's back button returns to the report.
 *
 * Both bundles contain this module; the first to run creates the bus on `window`, the second joins it.
 */
import { Copy, Ready, ReportProblem, ShowError, ThemeChanged, type ThemeKind } from '../../src/protocol/common';
import { Endpoint, type WireMessage } from '../../src/protocol/ipc';
import { encodeJson } from '../../src/protocol/schema';
import * as R from '../../src/protocol/report';
import * as W from '../../src/protocol/waterfall';
import type { EmbeddedPage } from '../../src/core/report/view/types';
import type { TraceComparison, TraceModel } from '../../src/core/analysis/trace/types';
import { applyThemeKind } from './theme';

type ViewName = 'report' | 'waterfall';

interface Bus {
  toHost(view: ViewName, message: WireMessage): void;
  attach(view: ViewName, deliver: (message: WireMessage) => void): void;
}

declare global {
  interface Window {
    __phasewiseBus?: Bus;
  }
}

/** True on a page that embeds its data (an exported file or the tests' standalone page). */
export function isStandalonePage(): boolean {
  return document.getElementById('phasewise-data') !== null;
}

function readEmbedded(): EmbeddedPage | undefined {
  const el = document.getElementById('phasewise-data');
  if (el === null || el.textContent === null) return undefined;
  return JSON.parse(el.textContent) as EmbeddedPage;
}

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // file:// pages may lack clipboard permission: select the text in a hidden textarea instead.
    const area = document.createElement('textarea');
    area.value = text;
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function themeFromSystem(): ThemeKind {
  if (matchMedia('(forced-colors: active)').matches) return 'high-contrast';
  return matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}

export function standaloneBus(): Bus {
  if (window.__phasewiseBus) return window.__phasewiseBus;
  const data = readEmbedded();
  const deliver = new Map<ViewName, (m: WireMessage) => void>();
  const hosts = new Map<ViewName, Endpoint>();
  const hostFor = (view: ViewName): Endpoint => {
    let ep = hosts.get(view);
    if (ep === undefined) {
      // Replies and notifications reach the view asynchronously, as postMessage does.
      ep = new Endpoint({ side: 'host', post: (m) => queueMicrotask(() => deliver.get(view)?.(m)), requestTimeoutMs: 0 });
      hosts.set(view, ep);
      wire(view, ep);
    }
    return ep;
  };

  const reportModel = data?.kind === 'report' ? data.model : undefined;
  const waterfallOf = (id: string): { trace: TraceModel; comparison: TraceComparison | null } | undefined => {
    if (data?.kind === 'trace') return data.trace.trace_id === id ? { trace: data.trace, comparison: data.comparison } : undefined;
    const e = reportModel?.embedded;
    const trace = e?.waterfalls[id];
    if (trace) return { trace, comparison: e?.comparisons[id] ?? null };
    // A typical trace the file holds as part of a comparison opens too (without a comparison of its own).
    const typical = Object.values(e?.comparisons ?? {}).find((c) => c?.typical.trace_id === id)?.typical;
    return typical ? { trace: typical, comparison: null } : undefined;
  };

  const showView = (view: ViewName): void => {
    for (const v of ['report', 'waterfall'] as const) {
      const el = document.getElementById(`phasewise-${v}`);
      if (el) el.hidden = v !== view;
    }
  };

  const openTraceFromHash = (): void => {
    const m = /^#trace=([0-9a-f]{32})$/.exec(location.hash);
    if (m === null) {
      if (reportModel) showView('report');
      return;
    }
    const wf = hostFor('waterfall');
    const found = waterfallOf(m[1]);
    showView('waterfall');
    if (found) wf.notify(W.DidLoad, { run: null, trace: encodeJson(found.trace), state: null });
    else
      wf.notify(ShowError, {
        message: `The waterfall of trace ${m[1]} is not in this file: it holds those of the listed slow traces. Run \`phasewise reconcile --trace ${m[1]} … --format html --out trace.html\` on the run for this one.`,
      });
  };

  function wire(view: ViewName, ep: Endpoint): void {
    ep.onNotification(Copy, (p) => void copyText(p.text));
    if (view === 'report') {
      ep.onNotification(R.OpenTrace, (p) => {
        location.hash = `#trace=${p.trace_id}`;
      });
      ep.onNotification(R.OpenContract, (p) => {
        ep.notify(ShowError, { message: `The contract is not in this file: ${p.path}${p.line !== null ? `, line ${p.line}` : ''} (gate ${p.gate}).` });
      });
      ep.onNotification(R.ExportReport, (p) => {
        if (p.format === 'json' && reportModel) download('phasewise-report.json', JSON.stringify(reportModel.report, null, 2), 'application/json');
        else ep.notify(ShowError, { message: `Export as ${p.format} needs the editor or the CLI (phasewise analyze --format ${p.format === 'markdown' ? 'md' : p.format}).` });
      });
      ep.onNotification(R.SaveState, () => undefined);
      ep.onRequest(R.ListTraces, (p) => {
        const e = reportModel?.embedded;
        const key = p.selection.kind === 'window' ? `window:${p.selection.index}` : `envelope:${p.selection.from_ms}:${p.selection.to_ms}`;
        const hit = e?.trace_lists.find((l) => l.key === key);
        return { traces: hit ? hit.traces.slice(0, p.limit) : [], total: hit?.total ?? 0 };
      });
    } else {
      ep.onNotification(W.Select, () => undefined);
      ep.onNotification(W.SaveState, () => undefined);
      ep.onNotification(W.OpenTrace, (p) => {
        location.hash = `#trace=${p.trace_id}`;
      });
      ep.onNotification(W.ExportTrace, (p) => {
        const m = /^#trace=([0-9a-f]{32})$/.exec(location.hash);
        const id = m?.[1] ?? (data?.kind === 'trace' ? data.trace.trace_id : undefined);
        const found = id !== undefined ? waterfallOf(id) : undefined;
        if (p.format === 'json' && found) download(`trace-${found.trace.trace_id}.json`, JSON.stringify(found.trace, null, 2), 'application/json');
        else ep.notify(ShowError, { message: 'This file is already the HTML export.' });
      });
      ep.onRequest(W.Compare, (p) => {
        const found = waterfallOf(p.trace_id);
        if (found?.comparison) return { comparison: encodeJson(found.comparison), reason: null };
        const reason = data?.kind === 'trace' ? data.reason : null;
        return { comparison: null, reason: reason ?? 'no other matched success of this route in the run (or the file was written without the comparison)' };
      });
    }
    ep.onNotification(Ready, () => {
      ep.notify(ThemeChanged, { kind: currentKind });
      if (view === 'report' && reportModel) ep.notify(R.DidLoad, { run: null, model: encodeJson(reportModel), state: null });
      if (view === 'waterfall') {
        if (data?.kind === 'trace') ep.notify(W.DidLoad, { run: data.run, trace: encodeJson(data.trace), state: null });
        else openTraceFromHash();
      }
    });
    ep.onNotification(ReportProblem, (p) => console.error(`phasewise: ${p.message}`));
  }

  let currentKind: ThemeKind = themeFromSystem();
  if (!document.body.className.includes('vscode-')) applyThemeKind(currentKind);
  else currentKind = document.body.classList.contains('vscode-light') ? 'light' : document.body.classList.contains('vscode-high-contrast') ? 'high-contrast' : 'dark';

  if (reportModel) {
    showView(/^#trace=/.test(location.hash) ? 'waterfall' : 'report');
    window.addEventListener('hashchange', openTraceFromHash);
  }

  const bus: Bus = {
    toHost: (view, m) => hostFor(view).receive(m),
    attach: (view, fn) => {
      deliver.set(view, fn);
      hostFor(view);
    },
  };
  window.__phasewiseBus = bus;
  return bus;
}
