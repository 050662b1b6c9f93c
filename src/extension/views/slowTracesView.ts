/**
 * The Slow Traces view of the selected run: its slowest N matched successes ordered by client total,
 * network envelope, GPU queue, generation or unattributed time (phasewise.slowTraces.orderBy, or the
 * view's Order By action), each with its figure, its total and its dominant owner; selecting one opens
 * its waterfall. Client-total order comes from the run's summary (no worker needed after a reload);
 * the other orders are one query in the worker.
 */
import * as vscode from 'vscode';
import { commandId } from '../commandIds';
import type { RunCatalog, RunEntry } from '../runs/runCatalog';
import type { RunManager } from '../runs/runManager';
import { ORDER_LABELS, readRunSettings, slowTraceOrder } from '../runs/settings';
import * as P from '../runs/workerProtocol';
import * as F from './format';

export interface SlowTraceNode {
  runId: string;
  rank: number;
  row: P.SlowTraceRow;
}

/** The figure a row is ordered by. */
function figure(t: P.SlowTraceRow['trace'], order: string): number | null {
  if (order === 'client_total') return t.client_total_ms;
  if (order === 'network_envelope') return t.network_envelope_ms;
  if (order === 'unattributed_server') return t.unattributed_server_ms;
  return t.phases[`${order}_ms`] ?? null;
}

export class SlowTracesTree implements vscode.TreeDataProvider<SlowTraceNode> {
  private readonly changed = new vscode.EventEmitter<SlowTraceNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private rows: SlowTraceNode[] = [];
  private total: number | null = null;
  private shownFor: { runId: string; order: string; analyzedAt: number; count: number } | undefined;
  private seq = 0;
  /** Set by extension.ts once the TreeView exists: its description and message say what is listed. */
  view: vscode.TreeView<SlowTraceNode> | undefined;

  constructor(
    private readonly catalog: RunCatalog,
    private readonly runs: RunManager,
    private readonly log: vscode.LogOutputChannel,
  ) {
    catalog.onDidChangeSelection(() => void this.reload());
    catalog.onDidChange((e) => {
      if (e === undefined || e.id === catalog.selected?.id) void this.reload();
    });
  }

  /** What the view lists now (tests read it). */
  get listed(): { runId: string | null; order: string; traces: SlowTraceNode[]; total: number | null } {
    return { runId: this.shownFor?.runId ?? null, order: this.shownFor?.order ?? slowTraceOrder(), traces: this.rows, total: this.total };
  }

  /** Re-reads the list when the run, its analysis, the order or the count changed. */
  async reload(force = false): Promise<void> {
    const run = this.catalog.selected;
    const order = slowTraceOrder();
    const count = readRunSettings().slowTraceCount;
    const seq = ++this.seq;
    if (run === undefined || run.summary === null) {
      this.set(undefined, [], null, order, run === undefined ? 'Open a run (Phasewise: Open Run…) and select it in the Runs view.' : run.activity.kind === 'loading' ? 'Loading the run…' : 'The run is not analysed yet.');
      return;
    }
    const want = { runId: run.id, order, analyzedAt: run.summary.analyzed_at, count };
    const s = this.shownFor;
    if (!force && s !== undefined && s.runId === want.runId && s.order === want.order && s.analyzedAt === want.analyzedAt && s.count === want.count) return;
    const phases = run.summary.phases;
    const known = ['client_total', 'network_envelope', 'unattributed_server', ...phases];
    const effective = known.includes(order) ? order : 'client_total';
    try {
      let rows: P.SlowTraceRow[];
      let total: number | null;
      if (effective === 'client_total' && run.summary.slow_traces.length >= Math.min(count, run.summary.join.matched)) {
        rows = run.summary.slow_traces.slice(0, count);
        total = run.summary.join.matched;
      } else {
        const answer = await this.runs.ask(run.id, P.SlowTraces, { order: effective, limit: count });
        rows = answer.traces;
        total = answer.total;
      }
      if (seq !== this.seq) return;
      this.shownFor = want;
      const note = effective !== order ? `This run has no ${F.owner(order)} phase: ordered by client total.` : rows.length === 0 ? 'No matched successful request in this run.' : undefined;
      this.set(run, rows.map((row, i) => ({ runId: run.id, rank: i + 1, row })), total, effective, note);
    } catch (err) {
      if (seq !== this.seq) return;
      const message = err instanceof Error ? err.message : String(err);
      this.log.error(`slow traces: ${message}`);
      this.set(run, [], null, effective, `The slow traces could not be listed: ${message}`);
    }
  }

  private set(run: RunEntry | undefined, rows: SlowTraceNode[], total: number | null, order: string, message: string | undefined): void {
    this.rows = rows;
    this.total = total;
    if (run === undefined) this.shownFor = undefined;
    if (this.view !== undefined) {
      this.view.message = message;
      this.view.description = run !== undefined ? `by ${ORDER_LABELS[order] ?? F.owner(order)}${total !== null ? ` · top ${rows.length} of ${F.count(total)}` : ''}` : undefined;
    }
    this.changed.fire(undefined);
  }

  getChildren(node?: SlowTraceNode): SlowTraceNode[] {
    return node === undefined ? this.rows : [];
  }

  getTreeItem(node: SlowTraceNode): vscode.TreeItem {
    const t = node.row.trace;
    const order = this.shownFor?.order ?? 'client_total';
    const d = node.row.dominant;
    const total = F.duration(t.client_total_ms);
    const label = order === 'client_total' ? `${total} total` : `${F.duration(figure(t, order))} ${ORDER_LABELS[order] ?? F.owner(order)} · ${total} total`;
    const item = new vscode.TreeItem(label);
    item.id = `${node.runId}/${t.trace_id}`;
    item.description = `${d !== null ? `${F.owner(d.owner)} ${F.percent(d.share, 0)}` : 'no owner'} · ${t.trace_id.slice(0, 8)}`;
    item.iconPath = new vscode.ThemeIcon('debug-stackframe-dot');
    item.contextValue = 'phasewise.slowTrace';
    item.command = { command: commandId('openTrace'), title: 'Open Waterfall', arguments: [node.runId, t.trace_id] };
    const owners = [
      ['network envelope', t.network_envelope_ms],
      ...Object.entries(t.phases).map(([k, v]) => [F.owner(k), v] as const),
      ['unattributed server', t.unattributed_server_ms],
    ] as const;
    item.tooltip = [
      `#${node.rank} trace ${t.trace_id}`,
      `client total ${F.duration(t.client_total_ms)} · server root ${F.duration(t.server_root_ms)}`,
      ...owners.map(([name, v]) => `  ${name}: ${F.duration(v)}`),
      d !== null ? `dominant owner: ${F.owner(d.owner)} (${F.duration(d.ms)}, ${F.percent(d.share)} of the client total)` : 'no owner has a positive share',
    ].join('\n');
    item.accessibilityInformation = { label: `${label}, ${item.description as string}` };
    return item;
  }
}
