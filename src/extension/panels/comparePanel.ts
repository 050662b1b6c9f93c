/**
 * The comparison of two runs (Compare Runs…): one panel per BASE and HEAD pair, shown again when the
 * same pair is compared again. The comparison comes from the run worker as JSON text and goes to the
 * webview untouched; the panel answers nothing else (copy goes through the common message).
 */
import * as vscode from 'vscode';
import * as C from '../../protocol/compare';
import type { JsonText } from '../../protocol/schema';
import type { Comparison } from '../../core/compare/compareRuns';
import { PanelHost } from './panelHost';

export const COMPARE_VIEW_TYPE = 'phasewise.compare';

class ComparePanel extends PanelHost {
  constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    private comparison: JsonText<Comparison>,
    onGone: () => void,
  ) {
    super(panel, 'compare', extensionUri, log, onGone);
    this.send();
  }

  update(comparison: JsonText<Comparison>): void {
    this.comparison = comparison;
    this.send();
  }

  protected send(): void {
    this.channel.notify(C.DidLoad, { comparison: this.comparison });
  }
}

export class ComparePanels implements vscode.Disposable {
  private readonly panels = new Map<string, ComparePanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Shows the comparison of `pair` (BASE and HEAD ids, as the caller names them) in its panel. */
  show(pair: { base: string; head: string }, title: string, comparison: JsonText<Comparison>): void {
    const id = JSON.stringify([pair.base, pair.head]);
    const existing = this.panels.get(id);
    if (existing !== undefined) {
      existing.update(comparison);
      existing.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, title, vscode.ViewColumn.Active, { enableScripts: true, enableFindWidget: true });
    const p = new ComparePanel(panel, this.extensionUri, this.log, comparison, () => {
      if (this.panels.get(id) === p) this.panels.delete(id);
    });
    this.panels.set(id, p);
  }

  /** Open panels with their BASE and HEAD (the integration suite reads their message logs). */
  all(): { base: string; head: string; host: PanelHost }[] {
    return [...this.panels].map(([id, host]) => {
      const [base, head] = JSON.parse(id) as [string, string];
      return { base, head, host };
    });
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.dispose();
  }
}
