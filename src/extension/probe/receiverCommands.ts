/**
 * `Phasewise: Start Trace Receiver` / `Stop Trace Receiver`: the embedded OTLP/HTTP receiver on the
 * configured loopback address, storing every export as a line of a JSONL file in the extension's
 * storage, with a status bar item while it listens. A probe sent while it runs reads its trace from
 * that file (the probe runs on a worker thread). The receiver does no DuckDB work on this thread.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import type { ReceiverSummary } from '../../core/probe/receiver/events';
import type { OtlpReceiver } from '../../core/probe/receiver/receiver';
import { commandId } from '../commandIds';
import { loadCore } from '../lazyCore';

export class ReceiverController implements vscode.Disposable {
  private receiver: OtlpReceiver | undefined;
  private file: string | undefined;
  private readonly item = vscode.window.createStatusBarItem('phasewise.receiver', vscode.StatusBarAlignment.Left, 50);

  constructor(
    private readonly storage: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.item.name = 'Phasewise trace receiver';
    this.item.command = commandId('stopTraceReceiver');
  }

  /** The JSONL file the running receiver writes, for probes to read their traces from. */
  get spansFile(): string | undefined {
    return this.receiver ? this.file : undefined;
  }

  start = async (): Promise<string | undefined> => {
    if (this.receiver) {
      void vscode.window.showInformationMessage(`Phasewise: the trace receiver already listens on ${this.receiver.address}`);
      return this.receiver.address;
    }
    // The receiver (http, zlib, protobufjs) lives in the core bundle, loaded on first use, not at activation.
    const { OtlpReceiver, JsonlFileSink, isLoopbackHost, parseListenAddress } = loadCore().probe;
    const setting = vscode.workspace.getConfiguration('phasewise').get<string>('receiver.listen', '127.0.0.1:4318');
    const listen = parseListenAddress(setting);
    if (!listen) {
      void vscode.window.showErrorMessage(`Phasewise: phasewise.receiver.listen: expected HOST:PORT such as 127.0.0.1:4318, got '${setting}'`);
      return undefined;
    }
    if (!isLoopbackHost(listen.host)) this.log.warn(`receiver: ${listen.host} is reachable from other machines; spans are accepted without authentication`);
    await vscode.workspace.fs.createDirectory(this.storage);
    this.file = path.join(this.storage.fsPath, `received-${new Date().toISOString().replace(/[-:.]/g, '')}.otlp.jsonl`);
    const receiver = new OtlpReceiver({ ...listen, sinks: [new JsonlFileSink(this.file)] });
    receiver.on('event', (e) => {
      if (e.type === 'export') this.show();
      else if (e.type === 'refused') this.log.warn(`receiver: refused an export: HTTP ${e.status}: ${e.reason}`);
      else if (e.type === 'error') this.log.error(`receiver: ${e.message}`);
    });
    try {
      await receiver.listen();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      void vscode.window.showErrorMessage(`Phasewise: the trace receiver cannot listen on ${setting}: ${message}`);
      return undefined;
    }
    this.receiver = receiver;
    this.log.info(`receiver: listening on http://${receiver.address}/v1/traces, storing to ${this.file}`);
    this.show();
    return receiver.address;
  };

  stop = async (): Promise<ReceiverSummary | undefined> => {
    const receiver = this.receiver;
    if (!receiver) return undefined;
    this.receiver = undefined;
    const summary = await receiver.stop();
    this.item.hide();
    const refused = Object.entries(summary.refused).map(([s, n]) => `${n} × HTTP ${s}`).join(', ') || 'none';
    this.log.info(`receiver: stopped; ${summary.accepted_spans} spans in ${summary.exports_accepted} exports, ${summary.rejected_spans} refused spans, refused requests: ${refused}; stored in ${this.file}`);
    void vscode.window.showInformationMessage(`Phasewise: trace receiver stopped: ${summary.accepted_spans} spans received (saved in the extension's storage; see the Phasewise log)`);
    return summary;
  };

  private show(): void {
    const r = this.receiver;
    if (!r) return;
    const s = r.snapshot();
    this.item.text = `$(radio-tower) OTLP ${r.address} · ${s.accepted_spans} spans`;
    this.item.tooltip = `Phasewise trace receiver: POST http://${r.address}/v1/traces (protobuf or JSON). Click to stop.`;
    this.item.show();
  }

  dispose(): void {
    void this.stop();
    this.item.dispose();
  }
}
