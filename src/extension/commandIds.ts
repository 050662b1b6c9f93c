/**
 * The commands Phasewise contributes, by name: the one list the Registry (registry.ts) prefixes and
 * registers, the CodeLenses and executeCommand calls name, and package.json contributes (a test checks
 * the manifest against it). No vscode import, so plain-Node tests can read it.
 */
export const COMMAND_NAMES = [
  'analyzeRun',
  'openRun',
  'openAsRun',
  'addSpanExport',
  'addRunArtifact',
  'addToRun',
  'showReport',
  'reanalyzeWithContract',
  'reanalyzeWithThisContract',
  'exportReport',
  'reloadRun',
  'removeRun',
  'clearRunCache',
  'showTrace',
  'openTrace',
  'orderSlowTraces',
  'copyTraceId',
  'compareRuns',
  'queryRun',
  'exportPairs',
  'newLoadContract',
  'generateK6Script',
  'evaluateContract',
  'openContractForm',
  'openContractText',
  'setApiToken',
  'validateTraceparent',
  'startTraceReceiver',
  'stopTraceReceiver',
  'sendProbeRequest',
  'runProbeSeries',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

/** The prefix of every Phasewise command id. */
export const COMMAND_PREFIX = 'phasewise';

/** `phasewise.<name>`: the id VS Code knows the command by. */
export function commandId(name: CommandName): string {
  return `${COMMAND_PREFIX}.${name}`;
}
