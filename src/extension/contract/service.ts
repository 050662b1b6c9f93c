import * as vscode from 'vscode';
import type { ContractDiagnostic } from '../../core/contract';
import type { ContractFormModel } from '../../core/contract/form/types';
import { ContractWorkerClient } from './worker/contractClient';
import { ValidationScheduler } from './scheduler';
import { isContractDocument } from './documents';
import type { K6Preview, RequestName, Requests, WantedViews } from './worker/workerProtocol';

/** One validation of one document version, as every view of that document sees it. */
export interface ContractResult {
  uri: string;
  version: number;
  diagnostics: ContractDiagnostic[];
  /** Present while a form shows the document. */
  form?: ContractFormModel;
  /** Present while a view wants the k6 preview. */
  k6?: K6Preview;
}

/**
 * The one validation of each open contract, shared by the text editor (diagnostics, quick fixes) and
 * the form: after a pause in typing (scheduler.ts), done by the contract worker off the host's thread,
 * published only for the document version it was computed from.
 */
export class ContractService implements vscode.Disposable {
  private readonly client: ContractWorkerClient;
  private readonly scheduler = new ValidationScheduler((key) => this.run(key));
  private readonly latest = new Map<string, ContractResult>();
  private readonly views = new Map<string, Set<WantedViews>>();
  private readonly emitter = new vscode.EventEmitter<ContractResult>();
  private readonly closed = new vscode.EventEmitter<string>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Fires for each result that matches its document's current version. */
  readonly onDidValidate = this.emitter.event;
  /** Fires with the uri of a contract document that was closed. */
  readonly onDidClose = this.closed.event;

  constructor(private readonly log: vscode.LogOutputChannel, workerFile?: string) {
    this.client = new ContractWorkerClient(workerFile, (m) => log.warn(m));
    this.subscriptions.push(
      this.emitter,
      this.closed,
      vscode.workspace.onDidOpenTextDocument((doc) => this.validateNow(doc)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && isContractDocument(e.document)) this.scheduler.schedule(e.document.uri.toString());
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => this.forget(doc.uri.toString())),
    );
    // Contracts open before activation: validated once activation has returned (the worker starts then).
    const initial = setTimeout(() => vscode.workspace.textDocuments.forEach((d) => this.validateNow(d)), 0);
    this.subscriptions.push({ dispose: () => clearTimeout(initial) });
  }

  /** The result for the document's current text: the last one if it is current, else a validation now. */
  async current(doc: vscode.TextDocument): Promise<ContractResult | undefined> {
    const key = doc.uri.toString();
    const last = this.latest.get(key);
    if (last?.version === doc.version) return last;
    return this.scheduler.now(key);
  }

  /** The last published result (possibly of an older version), without validating. */
  last(uri: vscode.Uri): ContractResult | undefined {
    return this.latest.get(uri.toString());
  }

  /** A view of `uri` wants more than diagnostics; the next validation (started now) includes it. */
  want(doc: vscode.TextDocument, views: WantedViews): vscode.Disposable {
    const key = doc.uri.toString();
    let set = this.views.get(key);
    if (!set) this.views.set(key, (set = new Set()));
    set.add(views);
    this.latest.delete(key);
    this.validateNow(doc);
    return new vscode.Disposable(() => {
      set.delete(views);
      if (set.size === 0) this.views.delete(key);
    });
  }

  /** Any other question for the worker (hover, k6 for a command). */
  request<K extends RequestName>(type: K, params: Requests[K]['params']): Promise<Requests[K]['result']> {
    return this.client.request(type, params);
  }

  dispose(): void {
    this.scheduler.dispose();
    for (const s of this.subscriptions) s.dispose();
    this.client.dispose();
  }

  private validateNow(doc: vscode.TextDocument): void {
    if (isContractDocument(doc)) void this.scheduler.now(doc.uri.toString());
  }

  private forget(key: string): void {
    this.scheduler.forget(key);
    this.latest.delete(key);
    this.closed.fire(key);
  }

  private wanted(key: string): WantedViews {
    const views = [...(this.views.get(key) ?? [])];
    return { form: views.some((v) => v.form), k6: views.some((v) => v.k6) };
  }

  /** One validation of the document's text as it is now (the scheduler keeps one in flight per document). */
  private async run(key: string): Promise<ContractResult | undefined> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (!doc || !isContractDocument(doc)) return undefined;
    const version = doc.version;
    return this.client
      .request('sync', { key, version, text: doc.getText(), fileName: doc.fileName, views: this.wanted(key) })
      .then((r): ContractResult | undefined => {
        const result: ContractResult = { uri: key, version: r.version, diagnostics: r.diagnostics, ...(r.form ? { form: r.form } : {}), ...(r.k6 ? { k6: r.k6 } : {}) };
        this.log.trace(`contract: validated ${doc.fileName} v${version} in ${r.validateMs.toFixed(1)} ms on the worker (${r.diagnostics.length} findings)`);
        // Offsets of an older text would land on the wrong characters; a change since then has
        // scheduled the next validation already.
        if (doc.isClosed || doc.version !== version) return result;
        this.latest.set(key, result);
        this.emitter.fire(result);
        return result;
      })
      .catch((err: unknown) => {
        this.log.error(`contract: validating ${doc.fileName} failed: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      });
  }
}
