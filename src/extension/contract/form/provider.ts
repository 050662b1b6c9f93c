import * as vscode from 'vscode';
import type { ContractFormModel, FormEdit } from '../../../core/contract/form/types';
import type { EvaluationParams, RunsStateParams } from '../../../protocol/contractForm';
import type { Registry } from '../../registry';
import type { ContractService } from '../service';
import { formHtml, webviewRoot } from './html';
import type { RunSelection } from './runs';
import { FormSession } from './session';

/** The custom editor's id (package.json `customEditors`, priority "option": the text editor stays the default). */
export const CONTRACT_FORM_VIEW_TYPE = 'phasewise.contractForm';

/**
 * "Open as Form" for *.loadcontract.yaml|yml|json: a custom text editor, so the TextDocument stays the
 * data model and VS Code keeps undo/redo, dirty state, save, revert and hot exit as for any text
 * editor, with the text editor open beside it or not.
 */
export class ContractFormProvider implements vscode.CustomTextEditorProvider {
  private readonly sessions = new Set<FormSession>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly service: ContractService,
    private readonly runs: RunSelection,
    private readonly registry: Registry,
  ) {}

  resolveCustomTextEditor(document: vscode.TextDocument, panel: vscode.WebviewPanel): void {
    panel.webview.options = { enableScripts: true, localResourceRoots: [webviewRoot(this.extensionUri)] };
    const session = new FormSession(document, panel, this.service, this.runs, this.registry);
    this.sessions.add(session);
    panel.onDidDispose(() => {
      this.sessions.delete(session);
      session.dispose();
    });
    panel.webview.html = formHtml(panel.webview, this.extensionUri);
    this.registry.log.info(`contract form: opened ${document.fileName}`);
  }

  /**
   * What other extensions and the integration suite can do with an open form: what it last showed,
   * and the edits and quick fixes its webview asks for, through the same code.
   */
  api(): ContractFormsApi {
    const find = (uri: string): FormSession | undefined => [...this.sessions].find((s) => s.uri === uri);
    return {
      open: (uri) => find(uri) !== undefined,
      lastUpdate: (uri) => find(uri)?.lastUpdate() ?? null,
      edit: (uri, edit) => find(uri)?.edit(edit) ?? Promise.resolve({ applied: false, reason: 'no form is open on this document' }),
      applyFix: (uri, version, index) => find(uri)?.applyFix(version, index) ?? Promise.resolve({ applied: false, reason: 'no form is open on this document' }),
      lastRuns: (uri) => find(uri)?.lastRuns() ?? null,
      selectRun: (uri, id) => find(uri)?.selectRun(id),
      evaluate: (uri) => find(uri)?.evaluate() ?? Promise.resolve({ started: false, reason: 'no form is open on this document' }),
      cancelEvaluate: (uri) => find(uri)?.cancelEvaluate(),
    };
  }
}

/** The contract form as the extension's API exposes it (`extension.exports.contractForms`). */
export interface ContractFormsApi {
  /** Whether a form shows the document with this uri (`uri.toString()`). */
  open(uri: string): boolean;
  /** The last update posted to the form: the document version it shows, its dirty state and its model. */
  lastUpdate(uri: string): { version: number; dirty: boolean; model: ContractFormModel } | null;
  /** An edit as the form's webview asks for it. */
  edit(uri: string, edit: FormEdit): Promise<{ applied: boolean; reason: string | null }>;
  /** A quick fix as the form's webview asks for it. */
  applyFix(uri: string, version: number, index: number): Promise<{ applied: boolean; reason: string | null }>;
  /** What the form was last sent of runs: the list, the selected run, the phase preview, the last Evaluate. */
  lastRuns(uri: string): { runs: RunsStateParams; evaluation: EvaluationParams } | null;
  /** A run picked in the form's list (selected in the Runs view too). */
  selectRun(uri: string, id: string): void;
  /** Evaluate as the form's button asks for it; the outcome arrives in lastRuns().evaluation. */
  evaluate(uri: string): Promise<{ started: boolean; reason: string | null }>;
  cancelEvaluate(uri: string): void;
}

/** The file a command was given (explorer, editor title) or the active editor's, text or form. */
function targetUri(given?: vscode.Uri): vscode.Uri | undefined {
  if (given instanceof vscode.Uri) return given;
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (tab instanceof vscode.TabInputCustom || tab instanceof vscode.TabInputText) return tab.uri;
  return vscode.window.activeTextEditor?.document.uri;
}

/** "Open as Form": the contract in the form (the same document; its text editor may stay open beside). */
export function openAsFormCommand(): (uri?: vscode.Uri) => Promise<boolean> {
  return async (uri) => {
    const target = targetUri(uri);
    if (!target) {
      void vscode.window.showErrorMessage('Phasewise: open a load contract (*.loadcontract.yaml) first');
      return false;
    }
    await vscode.commands.executeCommand('vscode.openWith', target, CONTRACT_FORM_VIEW_TYPE);
    return true;
  };
}

/** "Open as Text": the same contract in VS Code's text editor. */
export function openAsTextCommand(): (uri?: vscode.Uri) => Promise<boolean> {
  return async (uri) => {
    const target = targetUri(uri);
    if (!target) return false;
    await vscode.commands.executeCommand('vscode.openWith', target, 'default');
    return true;
  };
}
