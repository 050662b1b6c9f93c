/**
 * The comparison of two runs (Compare Runs…): one panel per BASE and HEAD pair, shown again when the
 * same pair is compared again. The comparison comes from the run worker as JSON text and goes to the
 * webview untouched; the panel answers nothing else (copy goes through the common message). After a
 * window reload the serializer recomputes it from the saved state (which runs, the bootstrap's
 * settings) on the runs' caches; a run removed meanwhile gets a "no longer open" message with Reopen
 * (Open Run… on its saved files), never a blank panel.
 */
import { existsSync } from 'fs';
import * as vscode from 'vscode';
import * as C from '../../protocol/compare';
import type { JsonText } from '../../protocol/schema';
import type { Comparison, CompareSettings } from '../../core/compare/compareRuns';
import { CancelledError } from '../../core/errors';
import type { RunManager } from '../runs/runManager';
import { PanelHost } from './panelHost';

export const COMPARE_VIEW_TYPE = 'phasewise.compare';

/** A side to compare: a run of the Runs view, or a database file. */
export type CompareTarget = { run: string } | { file: string };

/** Computes a comparison with the editor's progress and cancel (compareCommands.ts); throws CancelledError when cancelled. */
export type ComputeComparison = (base: CompareTarget, head: CompareTarget, names: [string, string], settings: CompareSettings) => Promise<JsonText<Comparison>>;

export function pairId(state: C.CompareViewState): string {
  const id = (s: C.CompareSideState): string => s.run ?? s.file ?? s.label;
  return JSON.stringify([id(state.base), id(state.head)]);
}

class ComparePanel extends PanelHost {
  private comparison: JsonText<Comparison> | undefined;
  private status: C.StatusParams | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    public state: C.CompareViewState,
    comparison: JsonText<Comparison> | undefined,
    onGone: () => void,
    private readonly restorer?: { runs: RunManager; compute: ComputeComparison; rekey: (from: string, to: string) => void },
  ) {
    super(panel, 'compare', extensionUri, log, onGone);
    this.comparison = comparison;
    this.channel.onNotification(C.Reopen, () => void this.reopen());
    this.send();
  }

  update(comparison: JsonText<Comparison>, state: C.CompareViewState): void {
    this.comparison = comparison;
    this.state = state;
    this.status = undefined;
    this.send();
  }

  protected send(): void {
    if (this.comparison !== undefined) this.channel.notify(C.DidLoad, { comparison: this.comparison, state: this.state });
    else if (this.status !== undefined) this.channel.notify(C.Status, this.status);
  }

  private setStatus(kind: C.StatusParams['kind'], message: string, canReopen = false): void {
    this.comparison = undefined;
    this.status = { kind, message, can_reopen: canReopen, state: this.state };
    this.send();
  }

  /** The sides that are no longer there: a run not in the Runs view, a database file deleted. */
  private goneSides(): { role: 'BASE' | 'HEAD'; side: C.CompareSideState }[] {
    const runs = this.restorer?.runs;
    const gone = (s: C.CompareSideState): boolean => (s.run !== null ? runs?.catalog.get(s.run) === undefined : s.file === null || !existsSync(s.file));
    return (['BASE', 'HEAD'] as const).map((role) => ({ role, side: role === 'BASE' ? this.state.base : this.state.head })).filter((x) => gone(x.side));
  }

  /** Recomputes the saved comparison (after a reload), or says which run is no longer open. */
  async restore(): Promise<void> {
    if (this.restorer === undefined) return;
    const gone = this.goneSides();
    if (gone.length > 0) {
      const canReopen = gone.every((g) => g.side.run !== null && g.side.inputs !== null && g.side.inputs.run.length + g.side.inputs.spans.length > 0);
      const what = gone.map((g) => `the ${g.role} ${g.side.run !== null ? 'run' : 'database'} ${g.side.label}`).join(' and ');
      this.setStatus('gone', `This comparison cannot be recomputed: ${what} ${gone.length > 1 ? 'are' : 'is'} no longer open${gone.some((g) => g.side.run === null) ? ' (the file is not there)' : ' (removed from the Runs view)'}.`, canReopen);
      return;
    }
    const { base, head, resamples, seed, confidence } = this.state;
    this.setStatus('busy', `Recomputing the comparison ${base.label} → ${head.label} from the runs' caches (${resamples.toLocaleString('en-US')} resamples, seed ${seed})…`);
    const target = (s: C.CompareSideState): CompareTarget => (s.run !== null ? { run: s.run } : { file: s.file as string });
    try {
      const comparison = await this.restorer.compute(target(base), target(head), [base.label, head.label], { resamples, seed, confidence });
      if (!this.isDisposed) this.update(comparison, this.state);
    } catch (err) {
      if (this.isDisposed) return;
      const cancelled = err instanceof CancelledError;
      this.setStatus('failed', cancelled ? 'Recomputing the comparison was cancelled. Run Phasewise: Compare Runs… to compare again.' : `The comparison could not be recomputed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Open Run… on the saved files of each run that is gone, then recompute. */
  private async reopen(): Promise<void> {
    if (this.restorer === undefined) return;
    const from = pairId(this.state);
    try {
      const sides = { base: this.state.base, head: this.state.head };
      for (const role of ['base', 'head'] as const) {
        const s = sides[role];
        if (s.run === null || s.inputs === null || this.restorer.runs.catalog.get(s.run) !== undefined) continue;
        const entry = await this.restorer.runs.open(s.inputs);
        if (entry === undefined) return;
        sides[role] = { ...s, run: entry.id, label: entry.label };
      }
      this.state = { ...this.state, ...sides };
      this.restorer.rekey(from, pairId(this.state));
      await this.restore();
    } catch (err) {
      this.setStatus('failed', `The run could not be reopened: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

export class ComparePanels implements vscode.WebviewPanelSerializer<C.CompareViewState>, vscode.Disposable {
  private readonly panels = new Map<string, ComparePanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly runs: RunManager,
    /** Set once the commands exist (they compute with progress). */
    public compute: ComputeComparison | undefined = undefined,
  ) {}

  /** Shows the comparison of the state's BASE and HEAD in its panel. */
  show(state: C.CompareViewState, title: string, comparison: JsonText<Comparison>): void {
    const id = pairId(state);
    const existing = this.panels.get(id);
    if (existing !== undefined) {
      existing.update(comparison, state);
      existing.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, title, vscode.ViewColumn.Active, { enableScripts: true, enableFindWidget: true });
    this.adopt(panel, state, comparison);
  }

  /** After a window reload: the saved pair recomputed, or the "no longer open" message. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    if (C.compareViewState.check(state, 'state') !== undefined || this.panels.has(pairId(state as C.CompareViewState))) {
      panel.dispose();
      return;
    }
    await this.adopt(panel, state as C.CompareViewState, undefined).restore();
  }

  private adopt(panel: vscode.WebviewPanel, state: C.CompareViewState, comparison: JsonText<Comparison> | undefined): ComparePanel {
    const compute = this.compute;
    const p: ComparePanel = new ComparePanel(
      panel,
      this.extensionUri,
      this.log,
      state,
      comparison,
      () => {
        const id = pairId(p.state);
        if (this.panels.get(id) === p) this.panels.delete(id);
      },
      compute === undefined
        ? undefined
        : {
            runs: this.runs,
            compute,
            rekey: (from, to) => {
              if (this.panels.get(from) === p) this.panels.delete(from);
              this.panels.get(to)?.dispose();
              this.panels.set(to, p);
            },
          },
    );
    this.panels.set(pairId(state), p);
    return p;
  }

  /** Open panels with their BASE and HEAD (the integration suite reads their message logs). */
  all(): { base: string; head: string; host: PanelHost }[] {
    return [...this.panels].map(([id, host]) => {
      const [base, head] = JSON.parse(id) as [string, string];
      return { base, head, host };
    });
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.dispose();
  }
}
