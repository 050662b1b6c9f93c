/**
 * The probe's editor commands, built once at activation (cheap: a status bar item and an output
 * channel; the receiver and the probe code load on first use, on worker threads). extension.ts
 * registers each handler.
 */
import * as vscode from 'vscode';
import type { RunManager } from '../runs/runManager';
import { probeStorage, runProbeSeriesCommand, sendProbeCommand } from './probeCommands';
import { ReceiverController } from './receiverCommands';
import { setApiTokenCommand, validateTraceparentCommand } from './tokenAndTraceparent';

export interface ProbeFeatures {
  receiver: ReceiverController;
  setApiToken: ReturnType<typeof setApiTokenCommand>;
  validateTraceparent: ReturnType<typeof validateTraceparentCommand>;
  startReceiver: ReceiverController['start'];
  stopReceiver: ReceiverController['stop'];
  sendProbe: ReturnType<typeof sendProbeCommand>;
  runSeries: ReturnType<typeof runProbeSeriesCommand>;
}

export function createProbeFeatures(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  runs: RunManager,
  openProbe: Parameters<typeof sendProbeCommand>[0]['openProbe'],
): ProbeFeatures {
  const storage = probeStorage(context);
  const receiver = new ReceiverController(storage, runs, context.secrets, log);
  const output = vscode.window.createOutputChannel('Phasewise Probe');
  context.subscriptions.push(receiver, output);
  const deps = { secrets: context.secrets, receiver, storage, log, output, openProbe };
  return {
    receiver,
    setApiToken: setApiTokenCommand(context.secrets, log),
    validateTraceparent: validateTraceparentCommand(),
    startReceiver: receiver.start,
    stopReceiver: receiver.stop,
    sendProbe: sendProbeCommand(deps),
    runSeries: runProbeSeriesCommand(deps),
  };
}
