/**
 * What the contract form needs from the Runs view (built later, by its own issue): the runs it holds
 * open and the one selected. Until a Runs view provides it, NO_RUN_SELECTION stands in and the form
 * says there is no run: the phase preview and Evaluate wait for one. No vscode import beyond types.
 */
import type * as vscode from 'vscode';

/** What one phase's selectors pick in a run. */
export interface PhasePick {
  spans: number;
  traces: number;
  /** The commonest span names picked, most first. */
  names: { name: string; count: number }[];
}

/** A run open in the Runs view. */
export interface OpenRun {
  readonly id: string;
  /** How the form lists it, e.g. `k6.ndjson + spans.otlp.jsonl (10:42)`. */
  readonly label: string;
  /** The DuckDB database the run was loaded into (`phasewise analyze --db`), if it has one. */
  readonly database?: string;
  /** The files it was loaded from: Evaluate analyses them with the form's contract. */
  readonly files: { readonly run: readonly string[]; readonly spans: readonly string[] };
}

export interface RunSelection {
  runs(): readonly OpenRun[];
  selected(): OpenRun | undefined;
  select(id: string): void;
  readonly onDidChange: vscode.Event<void>;
  /** Why there is no run to use, as the form shows it. */
  readonly emptyReason: string;
  /** What each phase's selectors (the analysis's PhaseDefinitions) pick in `run`, queried in its database off the host's thread. */
  pickSpans(run: OpenRun, phases: readonly { name: string; anyOf: readonly unknown[] }[]): Promise<Record<string, PhasePick>>;
}

const never: vscode.Event<void> = () => ({ dispose: () => undefined });

/** No Runs view yet: no runs, and the form says so. */
export const NO_RUN_SELECTION: RunSelection = {
  runs: () => [],
  selected: () => undefined,
  select: () => undefined,
  onDidChange: never,
  emptyReason: 'No run is open in the Runs view.',
  pickSpans: () => Promise.reject(new Error('No run is open in the Runs view.')),
};
