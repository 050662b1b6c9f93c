/**
 * The contract form's RunSelection over the run manager: the Runs view's runs and its selection (one
 * selection: a run picked in the form is selected in the Runs view too), the phase preview as a
 * question to the run worker, and Evaluate as the run's re-analysis with the contract.
 */
import * as vscode from 'vscode';
import type { PhaseDefinition } from '../../../core/analysis/options';
import type { RunEntry } from '../../runs/runCatalog';
import type { RunManager } from '../../runs/runManager';
import type { EvaluateOutcome, EvaluateWatch, OpenRun, PhasePick, RunSelection } from './runs';

/** A run the form can use: loaded at least once (a run whose first load failed or is under way is not). */
function usable(r: RunEntry): boolean {
  return r.key !== null && r.summary !== null;
}

function openRun(r: RunEntry): OpenRun {
  const verdict = r.summary?.verdict.status;
  const kind = r.kind === 'files' ? '' : ` (${r.activity.kind === 'live' ? 'live' : r.kind})`;
  return {
    id: r.id,
    label: `${r.label}${kind}${verdict !== undefined ? ` · ${verdict.replace(/_/g, ' ')}` : ''}`,
    revision: `${r.key ?? ''}@${r.summary?.analyzed_at ?? 0}`,
  };
}

export class RunManagerSelection implements RunSelection, vscode.Disposable {
  readonly emptyReason = 'No run is open in the Runs view: open one with Phasewise: Open Run… (or drop its files on the Runs view).';
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  /** What the form was last told about: the catalog fires on every progress line, the form hears only real changes. */
  private signature: string;

  constructor(private readonly manager: RunManager) {
    this.signature = this.describe();
    const check = (): void => {
      const now = this.describe();
      if (now === this.signature) return;
      this.signature = now;
      this.changed.fire();
    };
    this.subscriptions = [manager.catalog.onDidChange(check), manager.catalog.onDidChangeSelection(check), this.changed];
  }

  private describe(): string {
    return JSON.stringify([this.runs().map((r) => [r.id, r.label, r.revision]), this.selected()?.id ?? null]);
  }

  runs(): readonly OpenRun[] {
    return this.manager.catalog.list().filter(usable).map(openRun);
  }

  selected(): OpenRun | undefined {
    const r = this.manager.catalog.selected;
    return r !== undefined && usable(r) ? openRun(r) : undefined;
  }

  select(id: string): void {
    if (this.manager.catalog.get(id) !== undefined) this.manager.catalog.select(id);
  }

  pickSpans(run: OpenRun, phases: readonly PhaseDefinition[]): Promise<Record<string, PhasePick>> {
    return this.manager.phasePreview(
      run.id,
      phases.map((p) => ({ name: p.name, anyOf: p.anyOf.map((m) => ({ ...m })) })),
    );
  }

  async evaluate(run: OpenRun, contract: string, watch: EvaluateWatch = {}): Promise<EvaluateOutcome> {
    let failure: { shown: string | undefined } | undefined;
    const summary = await this.manager.analyze(run.id, contract, { cancel: watch.cancel, onProgress: watch.onProgress, onFailed: (shown) => (failure = { shown }) });
    if (summary === undefined) {
      if (this.manager.catalog.get(run.id) === undefined) return { kind: 'failed', message: 'the run was removed from the Runs view' };
      if (failure === undefined || failure.shown === undefined) return { kind: 'cancelled' };
      return { kind: 'failed', message: failure.shown };
    }
    return { kind: 'done', result: await this.manager.gates(run.id) };
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
