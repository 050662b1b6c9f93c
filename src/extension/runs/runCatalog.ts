/**
 * The runs of this workspace as the Runs view lists them: what each is made of, its cache key and its
 * last summary (kept in the workspace state, so a reloaded window shows its runs, verdicts and slow
 * traces before any worker or database starts), plus what is happening to it now (loading, failed,
 * its files changed, live). The selected run drives the Slow Traces view and the status bar.
 */
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { InputFingerprint } from './cacheKey';
import type { ProbeBanner } from '../../protocol/waterfall';
import type { RunInputs, RunSummary } from './workerProtocol';

export type RunKind = 'files' | 'live' | 'probe';

/** What is kept of a run across reloads. */
export interface RunRecord {
  id: string;
  kind: RunKind;
  label: string;
  inputs: RunInputs;
  /** The cache key of its database (null until first loaded). */
  key: string | null;
  fingerprints: InputFingerprint[];
  summary: RunSummary | null;
  addedAt: number;
  /** Probe runs: the probe's banner per trace ID (the propagation check shown above the waterfall). */
  probes?: Record<string, ProbeBanner>;
}

export type RunActivity =
  | { kind: 'idle' }
  | { kind: 'loading'; message: string }
  | { kind: 'error'; message: string }
  /** Files changed on disk since the run was loaded: the figures are of the old content. */
  | { kind: 'stale'; changed: string[] }
  | { kind: 'live'; address: string; spans: number };

export interface RunEntry extends RunRecord {
  activity: RunActivity;
}

const STATE_KEY = 'phasewise.runs.v1';

export class RunCatalog implements vscode.Disposable {
  private readonly runs = new Map<string, RunEntry>();
  private selectedId: string | undefined;
  private readonly changed = new vscode.EventEmitter<RunEntry | undefined>();
  private readonly selection = new vscode.EventEmitter<RunEntry | undefined>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** Fires with the entry that changed, or undefined when the list itself changed. */
  readonly onDidChange = this.changed.event;
  readonly onDidChangeSelection = this.selection.event;

  constructor(private readonly memento: vscode.Memento) {
    const stored: unknown = memento.get(STATE_KEY, []);
    for (const r of Array.isArray(stored) ? (stored as RunRecord[]) : []) {
      if (typeof r?.id !== 'string') continue;
      // A live run that was listening when the window closed is a finished received run now.
      this.runs.set(r.id, { ...r, activity: { kind: 'idle' } });
    }
    this.selectedId = this.list()[0]?.id;
  }

  list(): RunEntry[] {
    return [...this.runs.values()].sort((a, b) => b.addedAt - a.addedAt);
  }

  get(id: string): RunEntry | undefined {
    return this.runs.get(id);
  }

  /** The run whose inputs are exactly these (the same files opened again), if any. */
  findByInputs(inputs: RunInputs): RunEntry | undefined {
    const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
    return this.list().find((r) => r.kind === 'files' && same(r.inputs.run, inputs.run) && same(r.inputs.spans, inputs.spans));
  }

  add(r: Omit<RunRecord, 'id' | 'addedAt'>): RunEntry {
    const entry: RunEntry = { ...r, id: crypto.randomUUID(), addedAt: Date.now(), activity: { kind: 'idle' } };
    this.runs.set(entry.id, entry);
    this.fire(undefined);
    return entry;
  }

  update(id: string, patch: Partial<Omit<RunEntry, 'id'>>): RunEntry | undefined {
    const entry = this.runs.get(id);
    if (entry === undefined) return undefined;
    Object.assign(entry, patch);
    this.fire(entry);
    if (id === this.selectedId) this.selection.fire(entry);
    return entry;
  }

  remove(id: string): void {
    if (!this.runs.delete(id)) return;
    this.fire(undefined);
    if (this.selectedId === id) this.select(this.list()[0]?.id);
  }

  get selected(): RunEntry | undefined {
    return this.selectedId !== undefined ? this.runs.get(this.selectedId) : undefined;
  }

  select(id: string | undefined): void {
    if (id === this.selectedId) return;
    this.selectedId = id;
    this.selection.fire(this.selected);
  }

  private fire(entry: RunEntry | undefined): void {
    this.changed.fire(entry);
    this.saveSoon();
  }

  /** The workspace state is written at most every 500 ms (a live run updates often). */
  private saveSoon(): void {
    if (this.saveTimer !== undefined) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.save();
    }, 500);
  }

  save(): Thenable<void> {
    const records: RunRecord[] = this.list().map(({ activity: _activity, ...r }) => r);
    return this.memento.update(STATE_KEY, records);
  }

  dispose(): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    void this.save();
    this.changed.dispose();
    this.selection.dispose();
  }
}
