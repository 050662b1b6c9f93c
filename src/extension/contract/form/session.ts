import * as vscode from 'vscode';
import type { ContractFormModel, FormEdit } from '../../../core/contract/form/types';
import type { TextEdit } from '../../../core/contract';
import { HostChannel } from '../../../protocol/channel';
import { Copy, ReportProblem, ThemeChanged } from '../../../protocol/common';
import * as F from '../../../protocol/contractForm';
import { encodeJson } from '../../../protocol/schema';
import { themeKind } from '../../panels/panelHost';
import { toRange } from '../documents';
import type { Registry } from '../../registry';
import type { ContractResult, ContractService } from '../service';
import type { K6Preview } from '../worker/workerProtocol';
import type { OpenRun, RunSelection } from './runs';

/** The phases as the preview queries them (the analysis's matchers of the form's model). */
type PreviewPhases = { name: string; anyOf: ContractFormModel['phases'][number]['anyOf'] }[];

/** Phases typed into the text change on every keystroke: the preview waits for a pause. */
const PREVIEW_DEBOUNCE_MS = 300;

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
  /** The preview of the selected run for the current phases (`key`: run, its revision, the phases). */
  private preview: { key: string; state: NonNullable<F.RunsStateParams['preview']> } | undefined;
  private previewTimer: ReturnType<typeof setTimeout> | undefined;
  private evaluation: F.EvaluationParams = null;
  private evaluating: vscode.CancellationTokenSource | undefined;
  private disposed = false;
  /** What the form was last sent of runs, preview and evaluation. */
  private postedRuns: { runs: F.RunsStateParams; evaluation: F.EvaluationParams } | null = null;

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
      runs.onDidChange(() => this.pushRuns()),
    );
  }

  get uri(): string {
    return this.document.uri.toString();
  }

  /** What the form was last sent. */
  lastUpdate(): { version: number; dirty: boolean; model: ContractFormModel } | null {
    return this.posted;
  }

  /** What the form was last sent of runs (the phase preview) and of its Evaluate. */
  lastRuns(): { runs: F.RunsStateParams; evaluation: F.EvaluationParams } | null {
    return this.postedRuns;
  }

  dispose(): void {
    // An Evaluate under way goes on (it re-analyses the run for the Runs view too); its result has no form to go to.
    this.disposed = true;
    if (this.previewTimer !== undefined) clearTimeout(this.previewTimer);
    this.interest.dispose();
    this.channel.dispose();
    for (const d of this.disposables) d.dispose();
  }

  private register(): void {
    const c = this.channel;
    c.onRequest(F.Edit, (p) => this.edit(p.edit as FormEdit));
    c.onRequest(F.ApplyFix, (p) => this.applyFix(p.version, p.index));
    c.onRequest(F.Evaluate, () => this.evaluate());
    c.onNotification(F.CancelEvaluate, () => this.cancelEvaluate());
    c.onNotification(F.RevealInText, (p) => void this.reveal(p.line));
    c.onNotification(F.SetK6Preview, (p) => this.setK6(p.open));
    c.onNotification(F.OpenK6Script, () => void vscode.commands.executeCommand(this.registry.commandId('generateK6Script'), this.document.uri));
    c.onNotification(F.SelectRun, (p) => this.selectRun(p.id));
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
    if (!this.last || this.disposed) return;
    this.posted = { version: this.last.version, dirty: this.document.isDirty, model: this.last.form };
    const runs = this.runsState();
    this.postedRuns = { runs, evaluation: this.evaluation };
    this.channel.notify(F.Update, {
      version: this.last.version,
      dirty: this.posted.dirty,
      model: encodeJson(this.last.form),
      k6: k6Params(this.last.k6, this.k6Open),
      runs,
      evaluation: this.evaluation,
    });
  }

  /** Sends the runs, the preview and the evaluation alone (the model did not change). */
  private pushRuns(): void {
    if (!this.last || this.disposed) return;
    const runs = this.runsState();
    this.postedRuns = { runs, evaluation: this.evaluation };
    this.channel.notify(F.RunsChanged, this.postedRuns);
  }

  /** The runs as the form shows them, starting the preview when the run, its analysis or the phases changed. */
  private runsState(): F.RunsStateParams {
    const selected = this.runs.selected();
    const runs = this.runs.runs().map((r) => ({ id: r.id, label: r.label }));
    if (!selected || !this.last) {
      this.preview = undefined;
      return { runs, selected: null, reason: this.runs.emptyReason, preview: null };
    }
    const phases: PreviewPhases = this.last.form.phases.map((p) => ({ name: p.name, anyOf: p.anyOf }));
    const key = JSON.stringify([selected.id, selected.revision, phases]);
    if (this.preview?.key !== key) this.startPreview(key, selected, phases);
    return { runs, selected: selected.id, reason: null, preview: this.preview?.state ?? null };
  }

  private startPreview(key: string, run: OpenRun, phases: PreviewPhases): void {
    this.preview = { key, state: { kind: 'pending' } };
    if (this.previewTimer !== undefined) clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => {
      this.previewTimer = undefined;
      const settle = (state: NonNullable<F.RunsStateParams['preview']>): void => {
        // A newer run, analysis or mapping replaced this one meanwhile: its own preview is on its way.
        if (this.preview?.key !== key) return;
        this.preview.state = state;
        this.pushRuns();
      };
      this.runs.pickSpans(run, phases).then(
        (picks) => settle({ kind: 'ready', picks }),
        (err: unknown) => settle({ kind: 'error', message: describe(err) }),
      );
    }, PREVIEW_DEBOUNCE_MS);
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

  /**
   * Evaluate: the selected run re-analysed with this contract (saved first, as Re-analyse with
   * Contract does: the analysis reads the file), its gates shown in the form. Refused with a reason
   * when it cannot start; the outcome arrives as `evaluation` (RunsChanged).
   */
  async evaluate(): Promise<{ started: boolean; reason: string | null }> {
    if (this.evaluating) return { started: false, reason: 'An Evaluate is under way: cancel it first.' };
    const run = this.runs.selected();
    if (!run) return { started: false, reason: this.runs.emptyReason };
    if (this.document.isUntitled) return { started: false, reason: 'Save the contract first: the analysis reads it from its file.' };
    const checked = await this.checked();
    if (!checked) return { started: false, reason: 'The contract is still being checked: try again in a moment.' };
    const errors = checked.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      const first = errors[0];
      return { started: false, reason: `Evaluate needs a valid contract: ${errors.length} error${errors.length === 1 ? '' : 's'} (line ${first.line}: ${first.message.replace(/\.$/, '')}).` };
    }
    if (this.document.isDirty && !(await this.document.save())) return { started: false, reason: 'The contract could not be saved: the analysis reads it from its file.' };
    const version = this.document.version;
    const source = new vscode.CancellationTokenSource();
    this.evaluating = source;
    this.evaluation = { kind: 'running', run: run.label, message: 'starting' };
    this.pushRuns();
    const onProgress = (message: string): void => {
      if (this.evaluation?.kind !== 'running') return;
      this.evaluation = { ...this.evaluation, message };
      this.pushRuns();
    };
    void this.runs
      .evaluate(run, this.document.uri.fsPath, { cancel: source.token, onProgress })
      .then(
        (o): F.EvaluationParams =>
          o.kind === 'done'
            ? { kind: 'done', run: run.label, version, verdict: o.result.verdict, gates: o.result.gates }
            : o.kind === 'cancelled'
              ? { kind: 'cancelled', run: run.label }
              : { kind: 'failed', run: run.label, message: o.message },
        (err: unknown): F.EvaluationParams => ({ kind: 'failed', run: run.label, message: describe(err) }),
      )
      .then((e) => {
        this.evaluation = e;
        this.evaluating = undefined;
        source.dispose();
        this.pushRuns();
      });
    return { started: true, reason: null };
  }

  /** The model of the document's current text, once its validation (debounced after a change) has run; undefined after 5 s. */
  private checked(): Promise<ContractFormModel | undefined> {
    if (this.last?.version === this.document.version) return Promise.resolve(this.last.form);
    return new Promise((resolve) => {
      const done = (m: ContractFormModel | undefined): void => {
        clearTimeout(timer);
        sub.dispose();
        resolve(m);
      };
      const timer = setTimeout(() => done(undefined), 5000);
      const sub = this.service.onDidValidate((r) => {
        if (r.uri === this.document.uri.toString() && r.version === this.document.version && r.form) done(r.form);
      });
    });
  }

  cancelEvaluate(): void {
    this.evaluating?.cancel();
  }

  /** The form's own pick list: the run is selected in the Runs view too. */
  selectRun(id: string): void {
    this.runs.select(id);
  }
}
