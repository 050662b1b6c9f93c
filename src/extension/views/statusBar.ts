/**
 * The status bar item of the active run (the one selected in the Runs view, or whose report is in
 * front): its verdict and, on a fail, the phase whose budget broke. Clicking it opens the report.
 */
import * as vscode from 'vscode';
import { commandId } from '../commandIds';
import type { RunCatalog, RunEntry } from '../runs/runCatalog';
import * as F from './format';

const ICON: Readonly<Record<string, string>> = { pass: '$(pass)', fail: '$(error)', inconclusive: '$(warning)', instrumentation_failure: '$(bug)', not_evaluated: '$(circle-large-outline)' };

export class VerdictStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('phasewise.verdict', vscode.StatusBarAlignment.Left, 49);

  constructor(catalog: RunCatalog) {
    this.item.name = 'Phasewise verdict';
    catalog.onDidChangeSelection((r) => this.show(r));
    catalog.onDidChange((r) => {
      if (r === undefined || r.id === catalog.selected?.id) this.show(catalog.selected);
    });
    this.show(catalog.selected);
  }

  /** What the item says now (tests read it). */
  get text(): string {
    return this.item.text;
  }

  private show(r: RunEntry | undefined): void {
    if (r === undefined) {
      this.item.hide();
      return;
    }
    const s = r.summary;
    if (r.activity.kind === 'loading') this.item.text = `$(loading~spin) Phasewise: ${r.label}`;
    else if (s === null) this.item.text = `$(circle-large-outline) Phasewise: not analysed`;
    else this.item.text = `${ICON[s.verdict.status] ?? ''} ${F.verdict(s.verdict.status)}${s.verdict.broken_phase !== null ? ` · ${F.owner(s.verdict.broken_phase)}` : ''}`.trim();
    const md = new vscode.MarkdownString(`**Phasewise: ${r.label.replace(/[\\`*_[\]<>]/g, (c) => `\\${c}`)}**\n\n`);
    for (const reason of s?.verdict.reasons ?? []) md.appendText(`• ${reason}\n`);
    md.appendMarkdown('\n\nClick to open the report.');
    this.item.tooltip = md;
    this.item.backgroundColor = s?.verdict.status === 'fail' || s?.verdict.status === 'instrumentation_failure' ? new vscode.ThemeColor('statusBarItem.errorBackground') : s?.verdict.status === 'inconclusive' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.command = { command: commandId('showReport'), title: 'Show Report', arguments: [r.id] };
    this.item.accessibilityInformation = { label: `Phasewise verdict of ${r.label}: ${s !== null ? F.verdict(s.verdict.status) : 'not analysed'}` };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
