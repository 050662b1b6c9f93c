/**
 * `Phasewise: Start Trace Receiver` / `Stop Trace Receiver`: the embedded OTLP/HTTP receiver on the
 * configured address, run by the run worker (decoding bodies of up to 20 MiB is kept off the host's
 * event loop). What it accepts is stored in a JSONL file of the extension's storage (probes read their
 * traces from it) and in a live run of the Runs view, analysed again as spans arrive. A status bar
 * item shows it while it listens; clicking it stops it.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import type { ReceiverSummary } from '../../core/probe/receiver/events';
import { commandId } from '../commandIds';
import type { ReceiverEventMessage } from '../runs/runClient';
import type { RunManager } from '../runs/runManager';
import { readRunSettings } from '../runs/settings';
import { showRunError } from '../runs/showError';
import * as P from '../runs/workerProtocol';
import { API_TOKEN_SECRET, refuseUntrusted } from './tokenAndTraceparent';

/** The live run is analysed again at most this often while spans arrive. */
const REANALYSE_MS = 1500;

export class ReceiverController implements vscode.Disposable {
  private live: { runId: string; address: string; file: string } | undefined;
  private readonly item = vscode.window.createStatusBarItem('phasewise.receiver', vscode.StatusBarAlignment.Left, 50);
  private timer: NodeJS.Timeout | undefined;
  private analysing: Promise<unknown> | undefined;
  private accepted = 0;

  constructor(
    private readonly storage: vscode.Uri,
    private readonly runs: RunManager,
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.item.name = 'Phasewise trace receiver';
    this.item.command = commandId('stopTraceReceiver');
  }

  /** The JSONL file the running receiver writes, for probes to read their traces from. */
  get spansFile(): string | undefined {
    return this.live?.file;
  }

  /** The live run's id while the receiver listens. */
  get liveRunId(): string | undefined {
    return this.live?.runId;
  }

  start = async (): Promise<string | undefined> => {
    if (refuseUntrusted('the trace receiver')) return undefined;
    if (this.live !== undefined) {
      void vscode.window.showInformationMessage(`Phasewise: the trace receiver already listens on ${this.live.address}`);
      return this.live.address;
    }
    const listen = vscode.workspace.getConfiguration('phasewise').get<string>('receiver.listen', '127.0.0.1:4318');
    const stamp = new Date().toISOString().replace(/[-:.]/g, '');
    const file = path.join(this.storage.fsPath, `received-${stamp}.otlp.jsonl`);
    const key = `live-${stamp.toLowerCase()}`;
    const entry = this.runs.catalog.add({ kind: 'live', label: `Trace receiver ${listen}`, inputs: { run: [], spans: [file], contract: null }, key, fingerprints: [], summary: null });
    const token = await this.secrets.get(API_TOKEN_SECRET);
    try {
      const { address } = await this.runs.client.call(P.StartReceiver, { listen, key, dir: this.runs.cacheDir, jsonl: file, redact: token !== undefined ? [token] : [], settings: readRunSettings() });
      this.live = { runId: entry.id, address, file };
      this.accepted = 0;
      this.runs.catalog.update(entry.id, { label: `Received on ${address}`, activity: { kind: 'live', address, spans: 0 } });
      this.runs.catalog.select(entry.id);
      this.log.info(`receiver: listening on http://${address}/v1/traces, storing to ${file} and the live run`);
      this.show();
      return address;
    } catch (err) {
      this.runs.catalog.remove(entry.id);
      showRunError(new Error(`the trace receiver cannot listen on ${listen}: ${err instanceof Error ? err.message : String(err)}`), 'receiver', this.log);
      return undefined;
    }
  };

  stop = async (): Promise<ReceiverSummary | undefined> => {
    const live = this.live;
    if (live === undefined) return undefined;
    this.live = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.item.hide();
    const answer = (await this.runs.client.call(P.StopReceiver, {})) as { summary: ReceiverSummary } | null;
    const summary = answer?.summary;
    this.runs.catalog.update(live.runId, { activity: { kind: 'idle' } });
    await this.analyse(live.runId);
    if (summary !== undefined) {
      const refused = Object.entries(summary.refused).map(([s, n]) => `${n} × HTTP ${s}`).join(', ') || 'none';
      this.log.info(`receiver: stopped; ${summary.accepted_spans} spans in ${summary.exports_accepted} exports, ${summary.rejected_spans} refused spans, refused requests: ${refused}; stored in ${live.file}`);
      void vscode.window.showInformationMessage(`Phasewise: trace receiver stopped: ${summary.accepted_spans} spans received (the run "${this.runs.catalog.get(live.runId)?.label ?? 'received'}" keeps them)`);
    }
    return summary;
  };

  /** Relayed from the run worker (runClient's onReceiverEvent). */
  onEvent(e: ReceiverEventMessage): void {
    const live = this.live;
    if (live === undefined) return;
    this.accepted = e.accepted_spans;
    if (e.kind === 'refused') this.log.warn(`receiver: ${e.message}`);
    else if (e.kind === 'error') this.log.error(`receiver: ${e.message}`);
    else this.log.debug(`receiver: ${e.kind}: ${e.message}`);
    if (e.kind === 'stored') {
      this.runs.catalog.update(live.runId, { activity: { kind: 'live', address: live.address, spans: e.stored_spans } });
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        void this.analyse(live.runId);
      }, REANALYSE_MS);
    }
    this.show();
  }

  /** One analysis of the live run at a time; spans that arrive meanwhile get the next one. */
  private async analyse(runId: string): Promise<void> {
    await this.analysing;
    const p = this.runs.analyzeLive(runId).catch((err: unknown) => showRunError(err, 'live run', this.log));
    this.analysing = p;
    await p;
  }

  private show(): void {
    const l = this.live;
    if (l === undefined) return;
    this.item.text = `$(radio-tower) OTLP ${l.address} · ${this.accepted} spans`;
    this.item.tooltip = `Phasewise trace receiver: POST http://${l.address}/v1/traces (protobuf or JSON). Click to stop.`;
    this.item.show();
  }

  dispose(): void {
    void this.stop();
    this.item.dispose();
  }
}
