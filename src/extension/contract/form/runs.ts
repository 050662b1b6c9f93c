/**
 * What the contract form needs from the Runs view: the runs it holds open, the one selected, what a
 * phase mapping picks in a run and a contract's gates on it. runSelection.ts builds it from the run
 * manager. No vscode import beyond types.
 */
import type * as vscode from 'vscode';
import type { PhasePick } from '../../../core/analysis/breakdown/phasePreview';
import type { PhaseDefinition } from '../../../core/analysis/options';
import type { GatesResult } from '../../runs/workerProtocol';

export type { PhasePick };

/** A run open in the Runs view. */
export interface OpenRun {
  readonly id: string;
  /** How the form lists it, e.g. `k6.ndjson + spans.otlp.jsonl · pass`. */
  readonly label: string;
  /** Changes whenever the run's database or last analysis does (a preview of an older revision is stale). */
  readonly revision: string;
}

/** What an Evaluate watches: its own cancel, the progress lines. */
export interface EvaluateWatch {
  cancel?: vscode.CancellationToken;
  onProgress?: (message: string) => void;
}

/** An Evaluate's outcome: the gates and verdict of the run re-analysed with the contract, or why there are none. */
export type EvaluateOutcome = { kind: 'done'; result: GatesResult } | { kind: 'cancelled' } | { kind: 'failed'; message: string };

export interface RunSelection {
  runs(): readonly OpenRun[];
  selected(): OpenRun | undefined;
  /** Selects the run (the Runs view, the status bar and Slow Traces follow). */
  select(id: string): void;
  /** The list, a run's revision or the selection changed. */
  readonly onDidChange: vscode.Event<void>;
  /** Why there is no run to use, as the form shows it. */
  readonly emptyReason: string;
  /** What each phase's selectors pick in `run`, queried in its database on the run worker. */
  pickSpans(run: OpenRun, phases: readonly PhaseDefinition[]): Promise<Record<string, PhasePick>>;
  /** Re-analyses `run` with the contract file (the run then shows that contract in the Runs view) and returns its gates. */
  evaluate(run: OpenRun, contract: string, watch?: EvaluateWatch): Promise<EvaluateOutcome>;
}
