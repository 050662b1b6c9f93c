/** Opening the waterfall bundle on the host page with a trace, the host's handlers recording what the view asks. */
import type { TraceComparison, TraceModel } from '../../src/core/analysis/trace/types';
import { Copy, ReportProblem } from '../../src/protocol/common';
import * as W from '../../src/protocol/waterfall';
import { encodeJson } from '../../src/protocol/schema';
import { HostPage, type HostPageOptions } from './harness';

export interface WaterfallPage {
  hp: HostPage;
  copies: string[];
  opened: string[];
  selected: (string | null)[];
  states: W.WaterfallViewState[];
  problems: string[];
}

export async function openWaterfall(
  trace: TraceModel,
  options: HostPageOptions & { comparison?: TraceComparison | null; state?: W.WaterfallViewState | null } = {},
): Promise<WaterfallPage> {
  const hp = await HostPage.open('waterfall', options);
  const wp: WaterfallPage = { hp, copies: [], opened: [], selected: [], states: [], problems: [] };
  hp.channel.onNotification(Copy, (p) => wp.copies.push(p.text));
  hp.channel.onNotification(W.OpenTrace, (p) => wp.opened.push(p.trace_id));
  hp.channel.onNotification(W.Select, (p) => wp.selected.push(p.span_id));
  hp.channel.onNotification(W.SaveState, (p) => wp.states.push(p.state));
  hp.channel.onNotification(W.ExportTrace, () => undefined);
  hp.channel.onNotification(ReportProblem, (p) => wp.problems.push(p.message));
  hp.channel.onRequest(W.Compare, () => ({ comparison: options.comparison ? encodeJson(options.comparison) : null, reason: options.comparison ? null : 'no other matched success of this route' }));
  // Posted before the webview is ready: the channel holds it until webview/ready.
  hp.channel.notify(W.DidLoad, { run: 'test-run', trace: encodeJson(trace), state: options.state ?? null });
  await hp.page.waitForSelector(`[data-loaded-trace="${trace.trace_id}"]`, { timeout: 30_000 });
  return wp;
}

/** Row elements in the DOM: [span index, name] in screen order. */
export async function domRows(wp: WaterfallPage): Promise<{ row: number; name: string; cls: string }[]> {
  const rows = await wp.hp.page.locator('.wf-row').evaluateAll((els) =>
    els.map((e) => ({ row: Number((e as unknown as { dataset: { row: string } }).dataset.row), name: e.querySelector('.name')?.textContent ?? '', cls: e.className, top: parseFloat((e as unknown as { style: { top: string } }).style.top) })),
  );
  return rows.sort((a, b) => a.top - b.top).map(({ row, name, cls }) => ({ row, name, cls }));
}

/** How many rows the tree holds (the spacer's height over the row height). */
export async function visibleRowCount(wp: WaterfallPage): Promise<number> {
  const h = await wp.hp.page.locator('.wf-spacer-rows').evaluate((e) => parseFloat((e as unknown as { style: { height: string } }).style.height));
  return Math.round(h / 22);
}
