/**
 * The Runs view: each run with its verdict icon, then its files, join coverage, each owner's p95
 * against its budget (pass/fail icon; the tooltip has n, population and window) and its other gates.
 * Files dropped onto the view (from the Explorer or the OS) open as a run. The tree only renders the
 * catalog's summaries: nothing here queries a database.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import type { RunCatalog, RunEntry } from '../runs/runCatalog';
import type { GateRow, OwnerRow } from '../runs/workerProtocol';
import * as F from './format';

export type RunNode =
  | { type: 'run'; runId: string }
  | { type: 'files'; runId: string }
  | { type: 'file'; runId: string; path: string; detail: string; contract: boolean }
  | { type: 'join'; runId: string }
  | { type: 'owner'; runId: string; row: OwnerRow }
  | { type: 'gates'; runId: string }
  | { type: 'gate'; runId: string; gate: GateRow }
  | { type: 'note'; runId: string; text: string; icon: string; tooltip?: string };

const VERDICT_ICON: Readonly<Record<string, [string, string]>> = {
  pass: ['pass', 'testing.iconPassed'],
  fail: ['error', 'testing.iconFailed'],
  inconclusive: ['warning', 'list.warningForeground'],
  instrumentation_failure: ['bug', 'list.errorForeground'],
  not_evaluated: ['circle-large-outline', 'descriptionForeground'],
};

function icon(id: string, color?: string): vscode.ThemeIcon {
  return new vscode.ThemeIcon(id, color !== undefined ? new vscode.ThemeColor(color) : undefined);
}

function gateIcon(status: string): vscode.ThemeIcon {
  return status === 'pass' ? icon('pass', 'testing.iconPassed') : status === 'fail' ? icon('error', 'testing.iconFailed') : icon('question', 'descriptionForeground');
}

/** `≤ 1.50 s` */
function limitText(g: GateRow): string {
  const op = { '<=': '≤', '<': '<', '>=': '≥', '>': '>' }[g.op] ?? g.op;
  return `${op} ${F.gateValue(g.metric, g.stat, g.limit)}`;
}

function runDescription(r: RunEntry): string {
  switch (r.activity.kind) {
    case 'loading':
      return r.activity.message || 'loading…';
    case 'error':
      return 'failed';
    case 'live':
      return `live on ${r.activity.address} · ${F.count(r.activity.spans)} spans`;
    default:
      break;
  }
  const s = r.summary;
  if (s === null) return 'not analysed yet';
  const verdict = `${F.verdict(s.verdict.status)}${s.verdict.broken_phase !== null ? ` · ${F.owner(s.verdict.broken_phase)}` : ''}`;
  const stale = r.activity.kind === 'stale' ? ' · files changed' : '';
  const kind = r.kind === 'probe' ? 'probe · ' : r.kind === 'live' ? 'received · ' : '';
  return `${kind}${verdict}${stale}`;
}

function runTooltip(r: RunEntry): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${escape(r.label)}**\n\n`);
  const s = r.summary;
  if (s !== null) {
    md.appendMarkdown(`Verdict: **${F.verdict(s.verdict.status)}**${s.verdict.broken_phase !== null ? ` (budget broken: ${escape(s.verdict.broken_phase)})` : ''}\n\n`);
    for (const reason of s.verdict.reasons) md.appendMarkdown(`- ${escape(reason)}\n`);
    md.appendMarkdown(`\nContract: ${s.contract !== null ? escape(s.contract) : 'none (no gates: not evaluated)'}\n\n`);
    md.appendMarkdown(`Analysed ${new Date(s.analyzed_at).toLocaleString()} · window ${F.duration(s.window_size_ms)}\n\n`);
  }
  if (r.activity.kind === 'stale') md.appendMarkdown(`$(warning) Changed on disk since loading: ${r.activity.changed.map((f) => escape(path.basename(f))).join(', ')}. Reload the run to analyse the new content.\n\n`);
  if (r.activity.kind === 'error') md.appendMarkdown(`$(error) ${escape(r.activity.message)}\n\n`);
  return md;
}

/** Markdown-escaped text from files (names, reasons): nothing in it is rendered as markup. */
function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}

export class RunsTree implements vscode.TreeDataProvider<RunNode>, vscode.TreeDragAndDropController<RunNode> {
  readonly dropMimeTypes = ['text/uri-list', 'files'];
  readonly dragMimeTypes: string[] = [];
  private readonly changed = new vscode.EventEmitter<RunNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly nodes = new Map<string, RunNode>();

  constructor(
    private readonly catalog: RunCatalog,
    /** Opens dropped files (and folders) as a run. */
    private readonly onDrop: (uris: vscode.Uri[]) => Promise<unknown>,
  ) {
    catalog.onDidChange(() => this.changed.fire(undefined));
  }

  /** The run node of a run (for TreeView.reveal). */
  runNode(runId: string): RunNode {
    const key = `run:${runId}`;
    let n = this.nodes.get(key);
    if (n === undefined) {
      n = { type: 'run', runId };
      this.nodes.set(key, n);
    }
    return n;
  }

  getParent(node: RunNode): RunNode | undefined {
    if (node.type === 'run') return undefined;
    if (node.type === 'file') return { type: 'files', runId: node.runId };
    if (node.type === 'gate') return { type: 'gates', runId: node.runId };
    return this.runNode(node.runId);
  }

  getChildren(node?: RunNode): RunNode[] {
    if (node === undefined) return this.catalog.list().map((r) => this.runNode(r.id));
    const r = this.catalog.get(node.runId);
    if (r === undefined) return [];
    const s = r.summary;
    switch (node.type) {
      case 'run': {
        const out: RunNode[] = [];
        if (r.activity.kind === 'error') out.push({ type: 'note', runId: r.id, text: r.activity.message, icon: 'error' });
        if (r.activity.kind === 'stale') out.push({ type: 'note', runId: r.id, text: 'files changed on disk since loading: reload to see their new content', icon: 'warning', tooltip: r.activity.changed.join('\n') });
        out.push({ type: 'files', runId: r.id });
        if (s === null) return out;
        if (s.join.client_requests > 0 || s.join.server_traces > 0) out.push({ type: 'join', runId: r.id });
        out.push(...s.owners.map((row): RunNode => ({ type: 'owner', runId: r.id, row })));
        if (s.gates.length > 0) out.push({ type: 'gates', runId: r.id });
        if (s.load_issues > 0) out.push({ type: 'note', runId: r.id, text: `${F.count(s.load_issues)} load issue${s.load_issues === 1 ? '' : 's'} (lines skipped or doubtful: see the report)`, icon: 'info' });
        return out;
      }
      case 'files': {
        const loaded = new Map((s?.inputs ?? []).map((i) => [i.path, i] as const));
        const files = [...r.inputs.run, ...r.inputs.spans].map((p): RunNode => {
          const i = loaded.get(p);
          const detail = i !== undefined ? `${i.format} · ${F.bytes(i.bytes)} · ${F.count(i.records)} ${i.side === 'server' ? 'spans' : 'records'}${i.skipped > 0 ? ` · ${F.count(i.skipped)} skipped` : ''}` : 'not loaded yet';
          return { type: 'file', runId: r.id, path: p, detail, contract: false };
        });
        if (r.inputs.contract !== null) files.push({ type: 'file', runId: r.id, path: r.inputs.contract, detail: 'load contract', contract: true });
        return files;
      }
      case 'gates':
        return (s?.gates ?? []).map((gate): RunNode => ({ type: 'gate', runId: r.id, gate }));
      default:
        return [];
    }
  }

  getTreeItem(node: RunNode): vscode.TreeItem {
    const r = this.catalog.get(node.runId);
    switch (node.type) {
      case 'run':
        return r === undefined ? new vscode.TreeItem('(removed)') : this.runItem(r);
      case 'files': {
        const n = r === undefined ? 0 : r.inputs.run.length + r.inputs.spans.length + (r.inputs.contract !== null ? 1 : 0);
        const item = new vscode.TreeItem(`Files (${n})`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${node.runId}/files`;
        item.iconPath = icon('files');
        return item;
      }
      case 'file': {
        const item = new vscode.TreeItem(path.basename(node.path));
        item.id = `${node.runId}/file/${node.path}`;
        item.description = node.detail;
        item.tooltip = node.path;
        item.resourceUri = vscode.Uri.file(node.path);
        item.iconPath = node.contract ? icon('law') : vscode.ThemeIcon.File;
        item.contextValue = node.contract ? 'phasewise.contractFile' : 'phasewise.dataFile';
        // A contract opens on click; a data file may be gigabytes: it opens only from its context menu.
        if (node.contract) item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(node.path)] };
        return item;
      }
      case 'join':
        return this.joinItem(node.runId, r);
      case 'owner':
        return this.ownerItem(node.runId, node.row);
      case 'gates': {
        const gates = r?.summary?.gates ?? [];
        const failed = gates.filter((g) => g.status === 'fail').length;
        const item = new vscode.TreeItem('Gates', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${node.runId}/gates`;
        item.description = `${gates.length}${failed > 0 ? ` · ${failed} failed` : ' · all passed'}`;
        item.iconPath = failed > 0 ? icon('error', 'testing.iconFailed') : icon('checklist');
        return item;
      }
      case 'gate': {
        const g = node.gate;
        const item = new vscode.TreeItem(g.id.replace(/^gates\./, ''));
        item.id = `${node.runId}/gate/${g.id}`;
        item.description = `${F.gateValue(g.metric, g.stat, g.observed)} ${limitText(g)}`;
        item.iconPath = gateIcon(g.status);
        item.tooltip = `${g.id}: ${g.metric} ${g.stat} = ${F.gateValue(g.metric, g.stat, g.observed)} (limit ${limitText(g)})${g.n !== null ? `, n = ${F.count(g.n)}` : ''}\n${g.window}${g.origin !== null ? `\ndeclared at ${g.origin}` : ''}\n${g.status === 'no_data' ? 'no data: the gate could not be evaluated' : g.status}`;
        return item;
      }
      case 'note': {
        const item = new vscode.TreeItem(node.text);
        item.iconPath = icon(node.icon, node.icon === 'error' ? 'list.errorForeground' : node.icon === 'warning' ? 'list.warningForeground' : undefined);
        item.tooltip = node.tooltip ?? node.text;
        return item;
      }
    }
  }

  private runItem(r: RunEntry): vscode.TreeItem {
    const item = new vscode.TreeItem(r.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = r.id;
    item.description = runDescription(r);
    item.tooltip = runTooltip(r);
    const live = r.activity.kind === 'live';
    item.contextValue = `phasewise.run.${r.kind}${live ? '.live' : ''}`;
    if (r.activity.kind === 'loading') item.iconPath = icon('loading~spin');
    else if (r.activity.kind === 'error') item.iconPath = icon('error', 'list.errorForeground');
    else if (live) item.iconPath = icon('radio-tower', 'charts.green');
    else {
      const [id, color] = VERDICT_ICON[r.summary?.verdict.status ?? ''] ?? ['circle-large-outline', 'descriptionForeground'];
      item.iconPath = icon(id, color);
    }
    item.accessibilityInformation = { label: `${r.label}: ${runDescription(r)}` };
    return item;
  }

  private joinItem(runId: string, r: RunEntry | undefined): vscode.TreeItem {
    const j = r?.summary?.join;
    const gate = r?.summary?.gates.find((g) => g.metric === 'join_coverage');
    const item = new vscode.TreeItem(j !== undefined && j.client_requests > 0 ? `join coverage ${F.percent(j.coverage)}` : 'server only (no client file)');
    item.id = `${runId}/join`;
    if (j === undefined) return item;
    item.description = j.client_requests > 0 ? `${F.count(j.matched)} of ${F.count(j.client_requests)} requests` : `${F.count(j.server_traces)} traces`;
    item.iconPath = gate !== undefined ? gateIcon(gate.status) : icon('link');
    item.tooltip = [
      'Client → server',
      `  matched: ${F.count(j.matched)} of ${F.count(j.client_requests)} client requests (${F.percent(j.coverage)}); of those with a valid trace ID ${F.percent(j.coverage_of_valid)}`,
      `  not matched: ${F.count(j.unmatched_client)} (trace lost its root: ${F.count(j.lost_roots)}; invalid trace IDs: ${F.count(j.invalid_trace_ids)})`,
      `  duplicate trace IDs or several roots: ${F.count(j.duplicate_trace_ids)}`,
      'Server → client',
      `  ${F.count(j.server_traces)} traces, ${F.count(j.server_spans)} spans; roots no client request carries: ${F.count(j.orphan_server_roots)}`,
      ...(gate !== undefined ? [`Gate ${gate.id}: ${limitText(gate)} → ${gate.status}`] : []),
    ].join('\n');
    return item;
  }

  private ownerItem(runId: string, o: OwnerRow): vscode.TreeItem {
    const b = o.budget;
    const shown = b !== null ? b.observed : o.p95;
    const item = new vscode.TreeItem(`${F.owner(o.owner)} p95 ${F.duration(shown)}`);
    item.id = `${runId}/owner/${o.owner}`;
    item.description = b !== null ? `budget ${limitText(b)}` : 'no budget';
    item.iconPath = b !== null ? gateIcon(b.status) : icon('dash', 'descriptionForeground');
    const lines = [
      `${o.metric} over ${o.population}: p50 ${F.duration(o.p50)} · p95 ${F.duration(o.p95)} · p99 ${F.duration(o.p99)} (n = ${F.count(o.n)})`,
    ];
    if (b !== null) {
      lines.unshift(`${b.id}: p95 ${F.duration(b.observed)} ${limitText(b)} → ${b.status === 'no_data' ? 'no data' : b.status}`, `  n = ${b.n !== null ? F.count(b.n) : F.MISSING} · ${b.window}${b.origin !== null ? ` · declared at ${b.origin}` : ''}`);
    }
    item.tooltip = lines.join('\n');
    item.accessibilityInformation = { label: `${F.owner(o.owner)} p95 ${F.duration(shown)}, ${item.description}${b !== null ? `, ${b.status}` : ''}` };
    return item;
  }

  async handleDrop(_target: RunNode | undefined, data: vscode.DataTransfer): Promise<void> {
    const list = data.get('text/uri-list');
    const uris: vscode.Uri[] = [];
    if (list !== undefined) {
      for (const line of (await list.asString()).split(/\r?\n/)) {
        const t = line.trim();
        if (t !== '' && !t.startsWith('#')) uris.push(vscode.Uri.parse(t));
      }
    }
    for (const [, item] of data) {
      const f = item.asFile();
      if (f?.uri !== undefined && !uris.some((u) => u.toString() === f.uri?.toString())) uris.push(f.uri);
    }
    // The Explorer of a remote window hands over vscode-remote URIs of the extension host's own files.
    const local = uris.filter((u) => u.scheme === 'file' || u.scheme === 'vscode-remote').map((u) => vscode.Uri.file(u.fsPath));
    if (local.length > 0) await this.onDrop(local);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }
}
