/**
 * `Phasewise: Send Probe Request` and `Phasewise: Run Probe Series`: the request from the settings
 * (`phasewise.probe.*`), the token from SecretStorage, the trace from the running receiver's file or
 * the configured backend. The work runs on a worker thread (probeClient.ts); the result opens as a
 * probe run in the Runs view with its trace's waterfall (the propagation check on top), its text goes
 * to the "Phasewise Probe" output channel, and it is returned to `executeCommand` callers. A series is
 * opened as a run with `phasewise.analyzeRun`.
 */
import * as vscode from 'vscode';
import type { BackendSpec } from '../../core/probe/backends/backendSpec';
import { commandId } from '../commandIds';
import type { ProbeResult } from '../../core/probe/result';
import type { ProbeJob } from './probeProtocol';
import { runProbeJob } from './probeClient';
import type { ReceiverController } from './receiverCommands';
import { API_TOKEN_SECRET, refuseUntrusted } from './tokenAndTraceparent';

/** Arguments for programmatic callers (tests): override the settings. */
export interface ProbeCommandArgs {
  url?: string;
  model?: string;
  stream?: boolean;
  backend?: BackendSpec;
  traceTimeoutMs?: number;
  count?: number;
  rate?: number;
}

interface Deps {
  secrets: vscode.SecretStorage;
  receiver: ReceiverController;
  storage: vscode.Uri;
  log: vscode.LogOutputChannel;
  output: vscode.OutputChannel;
  /** Opens the probe's files as a run and its trace's waterfall, the propagation check on top. */
  openProbe: (result: ProbeResult, files: { records: string; spans: string[] }, contract: string | undefined) => Promise<void>;
}

async function buildJob(kind: ProbeJob['kind'], args: ProbeCommandArgs, deps: Deps): Promise<ProbeJob | undefined> {
  const cfg = vscode.workspace.getConfiguration('phasewise.probe');
  const url = args.url ?? cfg.get<string>('url', '');
  if (!url) {
    const pick = await vscode.window.showErrorMessage('Phasewise: set phasewise.probe.url to the endpoint to probe (e.g. http://127.0.0.1:8080)', 'Open Settings');
    if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'phasewise.probe');
    return undefined;
  }
  const token = await deps.secrets.get(API_TOKEN_SECRET);
  const receiverFile = deps.receiver.spansFile;
  const configured = cfg.get<string>('backend', 'receiver');
  const backendUrl = cfg.get<string>('backendUrl', '');
  const backend: BackendSpec =
    args.backend ??
    (receiverFile
      ? { kind: 'file', path: receiverFile }
      : configured === 'jaeger' || configured === 'tempo'
        ? { kind: configured, url: backendUrl }
        : configured === 'file'
          ? { kind: 'file', path: backendUrl }
          : configured === 'none'
            ? { kind: 'none' }
            : { kind: 'receiver', listen: vscode.workspace.getConfiguration('phasewise').get<string>('receiver.listen', '127.0.0.1:4318') });
  const contract = vscode.window.activeTextEditor?.document.fileName;
  return {
    kind,
    request: {
      baseUrl: url,
      route: cfg.get<string>('route') || undefined,
      model: args.model ?? cfg.get<string>('model', 'default'),
      stream: args.stream ?? cfg.get<boolean>('stream', true),
      timeoutMs: cfg.get<number>('requestTimeoutSeconds', 60) * 1000,
      apiToken: token,
    },
    backend,
    traceTimeoutMs: args.traceTimeoutMs ?? cfg.get<number>('traceTimeoutSeconds', 30) * 1000,
    quietMs: 1500,
    contract: contract && /\.loadcontract\.(ya?ml|json)$/.test(contract) ? contract : undefined,
    count: args.count,
    ratePerSecond: args.rate,
  };
}

function withProgress<T>(title: string, job: ProbeJob, deps: Deps, then: (answer: Awaited<ReturnType<typeof runProbeJob>>) => T): Promise<T | undefined> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      try {
        const answer = await runProbeJob(job, (text) => progress.report({ message: text }), { onCancel: (l) => token.onCancellationRequested(l) });
        return then(answer);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        deps.log.error(`probe: ${message}`);
        void vscode.window.showErrorMessage(`Phasewise: ${message}`);
        return undefined;
      }
    }),
  );
}

export function sendProbeCommand(deps: Deps): (args?: ProbeCommandArgs) => Promise<ProbeResult | undefined> {
  return async (given) => {
    if (refuseUntrusted('Send Probe Request')) return undefined;
    const interactive = given === undefined;
    const args = given ?? {};
    const job = await buildJob('probe', args, deps);
    if (!job) return undefined;
    deps.log.info(`probe: ${job.request.baseUrl} (trace from ${job.backend.kind})`);
    const dir = vscode.Uri.joinPath(deps.storage, `probe-${new Date().toISOString().replace(/[-:.]/g, '')}`);
    job.outDir = dir.fsPath;
    const answer = await withProgress('Phasewise: probe request', job, deps, (a) => (a.type === 'probe' ? a : undefined));
    if (answer === undefined) return undefined;
    deps.output.clear();
    deps.output.appendLine(answer.text);
    // The text is shown when the user ran the command; a programmatic caller (a task, a test) gets the result.
    if (interactive) deps.output.show(true);
    deps.log.info(`probe: ${answer.result.outcome}, trace ${answer.result.trace?.status ?? 'not fetched'}, propagation ${answer.result.propagation?.ok ?? 'n/a'}`);
    if (answer.files !== null) await deps.openProbe(answer.result, answer.files, job.contract);
    return answer.result;
  };
}

export function runProbeSeriesCommand(deps: Deps): (args?: ProbeCommandArgs) => Promise<{ records: string; spans: string | null } | undefined> {
  return async (args = {}) => {
    if (refuseUntrusted('Run Probe Series')) return undefined;
    const count = args.count ?? Number(await vscode.window.showInputBox({ title: 'Phasewise: probe series', prompt: 'How many requests?', value: '10', validateInput: (v) => (/^[1-9]\d{0,3}$/.test(v) ? undefined : 'a whole number from 1 to 9999') }));
    if (!(count > 0)) return undefined;
    const rate = args.rate ?? Number(await vscode.window.showInputBox({ title: 'Phasewise: probe series', prompt: 'Requests per second (open arrivals, at most 50)', value: '1', validateInput: (v) => (Number(v) > 0 && Number(v) <= 50 ? undefined : 'a rate above 0 and at most 50') }));
    if (!(rate > 0)) return undefined;
    const job = await buildJob('series', { ...args, count, rate }, deps);
    if (!job) return undefined;
    const dir = vscode.Uri.joinPath(deps.storage, `series-${new Date().toISOString().replace(/[-:.]/g, '')}`);
    await vscode.workspace.fs.createDirectory(dir);
    job.outDir = dir.fsPath;
    const files = await withProgress(`Phasewise: ${count} probe requests at ${rate}/s`, job, deps, (answer) => {
      if (answer.type !== 'series') return undefined;
      deps.log.info(`probe series: ${answer.succeeded}/${answer.sent} succeeded; records ${answer.records}${answer.spans ? `, spans ${answer.spans}` : ''}`);
      return { records: answer.records, spans: answer.spans };
    });
    if (!files) return undefined;
    await vscode.commands.executeCommand(commandId('analyzeRun'), { run: [files.records], spans: files.spans ? [files.spans] : [] });
    return files;
  };
}

export function probeStorage(context: vscode.ExtensionContext): vscode.Uri {
  return vscode.Uri.joinPath(context.globalStorageUri, 'probe');
}
