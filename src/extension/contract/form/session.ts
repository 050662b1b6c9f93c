import * as vscode from 'vscode';
import type { ContractFormModel, FormEdit } from '../../../core/contract/form/types';
import type { TextEdit } from '../../../core/contract';
import type { Report } from '../../../core/report/model';
import { HostChannel } from '../../../protocol/channel';
import { Copy, ReportProblem, ThemeChanged } from '../../../protocol/common';
import * as F from '../../../protocol/contractForm';
import { encodeJson } from '../../../protocol/schema';
import { themeKind } from '../../panels/panelHost';
import { toRange } from '../documents';
import type { Registry } from '../../registry';
import type { ContractResult, ContractService } from '../service';
import type { K6Preview } from '../worker/workerProtocol';
import type { RunSelection } from './runs';

function k6Params(k6: K6Preview | undefined, open: boolean): F.K6PreviewParams {
  return open && k6 ? k6 : null;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * One form over one document: the webview's channel, the service's validations of the document sent
 * to it as updates, its edit requests applied as WorkspaceEdits. Holds no contract state of its own:
 * every update is built from the document's current text.
 */
export class FormSession implements vscode.Disposable {
  private readonly channel: HostChannel;
  private readonly disposables: vscode.Disposable[] = [];
  private interest: vscode.Disposable;
  private k6Open = false;
  private last: { version: number; form: ContractFormModel; k6?: K6Preview } | undefined;
  private posted: { version: number; dirty: boolean; model: ContractFormModel } | null = null;

  constructor(
    private readonly document: vscode.TextDocument,
    panel: vscode.WebviewPanel,
    private readonly service: ContractService,
    private readonly runs: RunSelection,
    private readonly registry: Registry,
  ) {
    const log = registry.log;
    this.channel = new HostChannel({
      post: (m) => panel.webview.postMessage(m),
      onProblem: (p) => log.warn(`contract form: ${p.method}: ${p.message}`),
      onReady: () => this.push(),
    });
    this.interest = service.want(document, { form: true, k6: false });
    this.register();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => this.channel.receive(m)),
      service.onDidValidate((r) => {
        if (r.uri === document.uri.toString()) this.accept(r);
      }),
      // Saving or reverting to the saved text changes the dirty state without a new model.
      vscode.workspace.onDidSaveTextDocument((d) => {
        if (d === document) this.push();
      }),
      vscode.window.onDidChangeActiveColorTheme((t) => this.channel.notify(ThemeChanged, { kind: themeKind(t.kind) })),
      runs.onDidChange(() => this.push()),
    );
  }

  get uri(): string {
    return this.document.uri.toString();
  }

  /** What the form was last sent. */
  lastUpdate(): { version: number; dirty: boolean; model: ContractFormModel } | null {
    return this.posted;
  }

  dispose(): void {
    this.interest.dispose();
    this.channel.dispose();
    for (const d of this.disposables) d.dispose();
  }

  private register(): void {
    const c = this.channel;
    c.onRequest(F.Edit, (p) => this.edit(p.edit as FormEdit));
    c.onRequest(F.ApplyFix, (p) => this.applyFix(p.version, p.index));
    c.onRequest(F.Evaluate, () => this.evaluate());
    c.onNotification(F.RevealInText, (p) => void this.reveal(p.line));
    c.onNotification(F.SetK6Preview, (p) => this.setK6(p.open));
    c.onNotification(F.OpenK6Script, () => void vscode.commands.executeCommand(this.registry.commandId('generateK6Script'), this.document.uri));
    c.onNotification(F.SelectRun, (p) => this.runs.select(p.id));
    c.onNotification(Copy, (p) => void vscode.env.clipboard.writeText(p.text).then(() => vscode.window.setStatusBarMessage(`Phasewise: copied the ${p.what}`, 2000)));
    c.onNotification(ReportProblem, (p) => this.registry.log.error(`contract form: ${p.message}`));
  }

  private accept(r: ContractResult): void {
    if (!r.form) return;
    this.last = { version: r.version, form: r.form, ...(r.k6 ? { k6: r.k6 } : {}) };
    this.push();
  }

  /** Sends the last model with the document's dirty state and the runs (the channel queues until ready). */
  private push(): void {
    if (!this.last) return;
    const selected = this.runs.selected();
    this.posted = { version: this.last.version, dirty: this.document.isDirty, model: this.last.form };
    this.channel.notify(F.Update, {
      version: this.last.version,
      dirty: this.posted.dirty,
      model: encodeJson(this.last.form),
      k6: k6Params(this.last.k6, this.k6Open),
      runs: { runs: this.runs.runs().map((r) => ({ id: r.id, label: r.label })), selected: selected?.id ?? null, reason: selected ? null : this.runs.emptyReason, preview: null },
    });
  }

  private setK6(open: boolean): void {
    if (open === this.k6Open) return;
    this.k6Open = open;
    this.interest.dispose();
    this.interest = this.service.want(this.document, { form: true, k6: open });
  }

  /** Applies text edits computed for exactly the document version `version`, as one undo step. */
  private async applyAt(version: number, edits: readonly TextEdit[]): Promise<boolean> {
    if (this.document.version !== version) return false;
    const we = new vscode.WorkspaceEdit();
    for (const e of edits) we.replace(this.document.uri, toRange(this.document, e), e.newText);
    return vscode.workspace.applyEdit(we);
  }

  /** An edit the webview asked for: text edits on the document's current text, applied as one WorkspaceEdit. */
  async edit(e: FormEdit): Promise<{ applied: boolean; reason: string | null }> {
    // The edit is computed on the text as it is now (by pointer), and retried if it changed meanwhile.
    for (let attempt = 0; attempt < 3; attempt++) {
      const version = this.document.version;
      const r = await this.service.request('edit', { text: this.document.getText(), fileName: this.document.fileName, edit: e });
      if (r.kind === 'refused') return { applied: false, reason: r.reason };
      if (r.edits.length === 0) return { applied: true, reason: null };
      if (this.document.version !== version) continue;
      const ok = await this.applyAt(version, r.edits);
      return ok ? { applied: true, reason: null } : { applied: false, reason: 'VS Code refused the edit (is the file read-only?)' };
    }
    return { applied: false, reason: 'the text kept changing; try again' };
  }

  /** The quick fix of diagnostic `index` of the validation of `version`. */
  async applyFix(version: number, index: number): Promise<{ applied: boolean; reason: string | null }> {
    const r = this.service.last(this.document.uri);
    const fix = r?.version === version ? r.diagnostics[index]?.fix : undefined;
    if (!fix || this.document.version !== version) return { applied: false, reason: 'the text changed since this finding; the form shows the current ones' };
    return (await this.applyAt(version, fix.edits)) ? { applied: true, reason: null } : { applied: false, reason: 'VS Code refused the edit' };
  }

  private async reveal(line: number): Promise<void> {
    const at = new vscode.Position(Math.max(0, line - 1), 0);
    await vscode.window.showTextDocument(this.document, { viewColumn: vscode.ViewColumn.Beside, selection: new vscode.Range(at, at) });
  }

  private async evaluate(): Promise<{ gates: { id: string; status: string; detail: string }[]; verdict: string | null; reason: string | null }> {
    const run = this.runs.selected();
    if (!run) return { gates: [], verdict: null, reason: this.runs.emptyReason };
    if (this.document.isUntitled) return { gates: [], verdict: null, reason: 'Save the contract first: the analysis reads it from its file.' };
    // The analysis reads the contract from disk, as Evaluate against a Run does.
    if (this.document.isDirty) await this.document.save();
    try {
      const report = await vscode.commands.executeCommand<Report | undefined>(this.registry.commandId('analyzeRun'), { run: [...run.files.run], spans: [...run.files.spans], contract: this.document.uri.fsPath });
      if (!report) return { gates: [], verdict: null, reason: 'The analysis did not finish (see its notification).' };
      return {
        verdict: report.verdict.status,
        reason: null,
        gates: report.gates.map((g) => ({ id: g.id, status: g.status, detail: `${g.observed === null ? 'no data' : `observed ${g.observed}`} ${g.op} ${g.limit}` })),
      };
    } catch (err) {
      return { gates: [], verdict: null, reason: describe(err) };
    }
  }
}
