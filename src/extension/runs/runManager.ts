/**
 * What the editor does with runs: open files as a run (a cancellable notification with file, bytes and
 * rate), re-analyse it with another contract, add files to it, reopen it from its cache database after
 * a reload, remove it, clear the cache. Every DuckDB step is a request to the run worker; this class
 * only keeps the catalog in step with the answers. It is also the service other features use to reach
 * a run's database (RunService, documented in src/extension/README.md).
 */
import { existsSync } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { CancelledError } from '../../core/errors';
import type { RequestType } from '../../protocol/ipc';
import { changedInputs, normalizeInputs } from './cacheKey';
import { LoadProgressText } from './progressText';
import type { RunCatalog, RunEntry, RunKind } from './runCatalog';
import type { CancelSignal, RunClient } from './runClient';
import { readRunSettings } from './settings';
import { showRunError } from './showError';
import * as P from './workerProtocol';

/** What a caller of analyze() watches besides the notification (the contract form's Evaluate). */
export interface AnalyzeWatch {
  /** A cancel of the caller's own (the form's Cancel button), besides the notification's. */
  cancel?: CancelSignal;
  onProgress?: (message: string) => void;
  /** The analysis failed: the text of the error notification shown (undefined: it was cancelled). */
  onFailed?: (shown: string | undefined) => void;
}

/** Cancelled when either is. */
function eitherCancel(a: CancelSignal, b: CancelSignal | undefined): CancelSignal {
  if (b === undefined) return a;
  return {
    get isCancellationRequested() {
      return a.isCancellationRequested || b.isCancellationRequested;
    },
    onCancellationRequested: (listener) => {
      const x = a.onCancellationRequested(listener);
      const y = b.onCancellationRequested(listener);
      return { dispose: () => (x.dispose(), y.dispose()) };
    },
  };
}

export interface OpenOptions {
  kind?: RunKind;
  label?: string;
  /** Extend this run (Add Span Export… / Add Run Artifact…) instead of adding a new one. */
  extend?: string;
  /** Progress notification title. */
  title?: string;
}

/**
 * The selected run and its database, for other features (the contract form's phase preview and
 * Evaluate): a small typed surface over the run worker.
 */
export interface RunService {
  /** The run selected in the Runs view (undefined: none). */
  readonly selected: RunEntry | undefined;
  readonly onDidChangeSelection: vscode.Event<RunEntry | undefined>;
  /** The database file of a run (under the extension's global storage), once it has been loaded. */
  databasePath(runId: string): string | undefined;
  /**
   * A read-only question to the run's database on the worker thread (the run is reopened first if
   * needed): one SELECT/WITH statement written by the caller's code, values only through `params`.
   */
  query<T extends Record<string, unknown>>(runId: string, sql: string, params?: readonly (string | number | boolean | null)[]): Promise<T[]>;
  /** Re-analyses the run with a contract file (null: none) and returns what the views show. */
  analyze(runId: string, contract: string | null): Promise<P.RunSummary | undefined>;
}

export class RunManager implements RunService {
  /** Per run: the key and worker generation in which its analysis is current. */
  private readonly opened = new Map<string, { generation: number; key: string }>();
  private readonly pendingOpen = new Map<string, Promise<string>>();

  constructor(
    readonly catalog: RunCatalog,
    readonly client: RunClient,
    private readonly storage: () => string,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** `<global storage>/runs`: one `<key>.duckdb` and `<key>.json` per loaded run (read when first needed). */
  get cacheDir(): string {
    return path.join(this.storage(), 'runs');
  }

  get selected(): RunEntry | undefined {
    return this.catalog.selected;
  }

  get onDidChangeSelection(): vscode.Event<RunEntry | undefined> {
    return this.catalog.onDidChangeSelection;
  }

  databasePath(runId: string): string | undefined {
    const key = this.catalog.get(runId)?.key;
    return key ? path.join(this.cacheDir, `${key}.duckdb`) : undefined;
  }

  /**
   * Opens files as a run (or the same files' run again, re-analysed with this contract): loads them
   * unless their database is cached, analyses, selects it. Undefined when it failed (the error was
   * shown, naming file and line) or was cancelled (the previous state stays).
   */
  async open(inputs: P.RunInputs, options: OpenOptions = {}): Promise<RunEntry | undefined> {
    const norm = { ...normalizeInputs(inputs), contract: inputs.contract };
    const extend = options.extend !== undefined ? this.catalog.get(options.extend) : undefined;
    const existing = extend ?? (options.kind === undefined || options.kind === 'files' ? this.catalog.findByInputs(norm) : undefined);
    const entry =
      existing ??
      this.catalog.add({ kind: options.kind ?? 'files', label: options.label ?? labelOf(norm), inputs: norm, key: null, fingerprints: [], summary: null });
    const previous = { inputs: entry.inputs, label: entry.label, addedAt: entry.addedAt };
    // The same files opened again come to the top of the Runs view (most recently opened first).
    if (existing !== undefined && extend === undefined) this.catalog.update(entry.id, { addedAt: Date.now() });
    if (existing !== undefined && options.label === undefined && extend !== undefined) entry.label = labelOf(norm);
    try {
      const result = await this.load(entry, norm, extend?.key ?? null, options.title ?? `Phasewise: opening ${entry.label}`, vscode.ProgressLocation.Notification);
      this.catalog.select(entry.id);
      return result;
    } catch (err) {
      if (existing === undefined) this.catalog.remove(entry.id);
      else this.catalog.update(entry.id, { ...previous, activity: { kind: 'idle' } });
      showRunError(err, `opening ${entry.label}`, this.log);
      return undefined;
    }
  }

  /**
   * Re-analyses a run with another contract (null: none); undefined when it failed or was cancelled.
   * `watch` (the contract form's Evaluate) adds a cancel of its own to the notification's, receives
   * the progress lines, and is told what the error notification said (undefined: a cancel).
   */
  async analyze(runId: string, contract: string | null, watch: AnalyzeWatch = {}): Promise<P.RunSummary | undefined> {
    const entry = this.catalog.get(runId);
    if (entry === undefined) return undefined;
    if (entry.kind === 'live') {
      this.catalog.update(entry.id, { inputs: { ...entry.inputs, contract } });
      return this.analyzeLive(entry.id).catch((err: unknown) => {
        watch.onFailed?.(showRunError(err, `analysing ${entry.label}`, this.log));
        return undefined;
      });
    }
    const previous = entry.inputs;
    try {
      const done = await this.load(entry, { ...entry.inputs, contract }, null, `Phasewise: analysing ${entry.label}`, vscode.ProgressLocation.Notification, watch);
      return done.summary ?? undefined;
    } catch (err) {
      this.catalog.update(entry.id, { inputs: previous, activity: { kind: 'idle' } });
      watch.onFailed?.(showRunError(err, `analysing ${entry.label}`, this.log));
      return undefined;
    }
  }

  /** What each phase's selectors pick in the run (the contract form's preview), on the run worker. */
  async phasePreview(runId: string, phases: P.PhaseDefinitionParams[]): Promise<Record<string, P.PhasePickParams>> {
    return (await this.ask(runId, P.PhasePreview, { phases })).picks;
  }

  /** Every gate and the verdict of the run's last analysis, as the Report has them. */
  gates(runId: string): Promise<P.GatesResult> {
    return this.ask(runId, P.Gates, {});
  }

  /** The run's cache key, with its analysis current in the worker (reopened from its database if needed). */
  ensure(runId: string): Promise<string> {
    const entry = this.catalog.get(runId);
    if (entry === undefined) return Promise.reject(new Error('this run was removed from the Runs view'));
    const o = this.opened.get(runId);
    if (o !== undefined && o.generation === this.client.generation) return Promise.resolve(o.key);
    let pending = this.pendingOpen.get(runId);
    if (pending === undefined) {
      pending = (async () => {
        if (entry.kind === 'live') {
          await this.analyzeLive(runId);
          return entry.key as string;
        }
        const cached = entry.key !== null && existsSync(path.join(this.cacheDir, `${entry.key}.json`));
        // From the cache this takes a fraction of a second (the status bar says so); a load after Clear
        // Run Cache is shown like any load, cancellable.
        const location = cached ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification;
        const done = await this.load(entry, entry.inputs, null, `Phasewise: reopening ${entry.label}`, location);
        return done.key as string;
      })().finally(() => this.pendingOpen.delete(runId));
      this.pendingOpen.set(runId, pending);
    }
    return pending;
  }

  /** A request about one run, sent once its analysis is current in the worker. */
  async ask<Q extends { key: string }, T>(runId: string, type: RequestType<string, Q, P.Answer<T>>, params: Omit<Q, 'key'>): Promise<T> {
    const key = await this.ensure(runId);
    return this.client.call(type, { ...params, key } as Q);
  }

  async query<T extends Record<string, unknown>>(runId: string, sql: string, params: readonly (string | number | boolean | null)[] = []): Promise<T[]> {
    const { rows } = await this.ask(runId, P.Query, { sql, params: [...params] });
    return JSON.parse(rows) as T[];
  }

  /** Forgets a run: its worker state, and its database unless another run of the list has the same key. */
  async remove(runId: string): Promise<void> {
    const entry = this.catalog.get(runId);
    if (entry === undefined) return;
    this.catalog.remove(runId);
    this.opened.delete(runId);
    const shared = entry.key !== null && this.catalog.list().some((r) => r.key === entry.key);
    if (entry.key !== null) await this.client.call(P.Forget, { keys: [entry.key], dir: this.cacheDir, delete: !shared });
  }

  /** Deletes every cached database (not the live run's); the runs stay listed and reload from their files on use. */
  async clearCache(): Promise<number> {
    const { deleted } = await this.client.call(P.Forget, { keys: [], dir: this.cacheDir, delete: true });
    for (const id of [...this.opened.keys()]) if (this.catalog.get(id)?.activity.kind !== 'live') this.opened.delete(id);
    return deleted;
  }

  /** Re-analyses the live run (or a received run after a reload): the receiver's database, no files. */
  async analyzeLive(runId: string): Promise<P.RunSummary> {
    const entry = this.catalog.get(runId);
    if (entry === undefined || entry.key === null) throw new Error('no such live run');
    const { summary } = await this.client.job(P.Analyze, { key: entry.key, dir: this.cacheDir, contract: entry.inputs.contract, settings: readRunSettings() });
    this.opened.set(runId, { generation: this.client.generation, key: entry.key });
    this.catalog.update(runId, { summary: { ...summary, title: entry.label } });
    return summary;
  }

  /** Marks a run live (the receiver writes it) or opened by the caller (the probe's worker-side run). */
  markOpened(runId: string, key: string): void {
    this.opened.set(runId, { generation: this.client.generation, key });
  }

  /** Flags runs whose files changed on disk since they were loaded (run after activation, off its path). */
  async checkStale(): Promise<void> {
    for (const r of this.catalog.list()) {
      if (r.kind === 'live' || r.fingerprints.length === 0) continue;
      const changed = await changedInputs(r.fingerprints);
      if (changed.length > 0) this.catalog.update(r.id, { activity: { kind: 'stale', changed } });
    }
  }

  /** Settings an analysis reads changed: the runs open in this window are analysed again. */
  async settingsChanged(): Promise<void> {
    for (const id of [...this.opened.keys()]) {
      const entry = this.catalog.get(id);
      if (entry === undefined) continue;
      this.opened.delete(id);
      await this.ensure(id).catch((err: unknown) => showRunError(err, `analysing ${entry.label}`, this.log));
    }
  }

  private async load(entry: RunEntry, inputs: P.RunInputs, base: string | null, title: string, location: vscode.ProgressLocation, watch: AnalyzeWatch = {}): Promise<RunEntry> {
    this.catalog.update(entry.id, { activity: { kind: 'loading', message: 'starting' } });
    const text = new LoadProgressText();
    try {
      const result = await vscode.window.withProgress({ location, title, cancellable: location === vscode.ProgressLocation.Notification }, (progress, token) => {
        let shown = 0;
        return this.client.job(
          P.OpenRun,
          { dir: this.cacheDir, inputs, settings: readRunSettings(), base },
          (e) => {
            text.update(e);
            const message = text.describe();
            const pct = text.percent;
            progress.report({ message, increment: pct !== undefined && pct > shown ? pct - shown : undefined });
            if (pct !== undefined) shown = Math.max(shown, pct);
            this.catalog.update(entry.id, { activity: { kind: 'loading', message } });
            watch.onProgress?.(message);
          },
          eitherCancel(token, watch.cancel),
        );
      });
      this.opened.set(entry.id, { generation: this.client.generation, key: result.key });
      this.log.info(`${entry.label}: ${result.reused ? 'reused its cache database' : `loaded in ${(result.load_ms / 1000).toFixed(2)} s`}, analysed in ${(result.analyze_ms / 1000).toFixed(2)} s; verdict ${result.summary.verdict.status}`);
      const updated = this.catalog.update(entry.id, {
        inputs,
        key: result.key,
        fingerprints: result.fingerprints,
        summary: { ...result.summary, title: entry.label },
        activity: { kind: 'idle' },
      });
      if (updated === undefined) throw new Error('the run was removed from the Runs view while it was analysed');
      return updated;
    } catch (err) {
      if (!(err instanceof CancelledError)) this.log.debug(`${entry.label}: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  }
}

/** A run's name: its files' names (the Runs view shows where they are). */
export function labelOf(inputs: { run: readonly string[]; spans: readonly string[] }): string {
  const names = [...inputs.run, ...inputs.spans].map((f) => path.basename(f));
  return names.length > 3 ? `${names.slice(0, 2).join(' + ')} + ${names.length - 2} more` : names.join(' + ') || 'empty run';
}
