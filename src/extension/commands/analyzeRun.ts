import * as path from 'path';
import * as vscode from 'vscode';
import type { Report } from '../../core/report/model';
import { CancelledError, ContractError, InputError, OutOfMemoryError, outOfMemoryMessage } from '../../core/errors';
import { isScanMessage, LoadProgress } from '../../core/loadProgress';
import { normalizeMemoryLimit, normalizeThreads } from '../../core/memorySettings';
import { startAnalysis, type AnalysisRequest } from '../analysisClient';

/** Arguments when the command is invoked programmatically (tests, other extensions, tasks). */
export interface AnalyzeRunArgs {
  run?: string[];
  spans?: string[];
  contract?: string;
}

/**
 * "Phasewise: Analyze Run…": asks for run and span files (or takes them as arguments), analyses them
 * on a worker thread (analysisClient.ts) with a cancellable progress notification, opens the report
 * as markdown and returns the Report to `executeCommand` callers. Errors are shown naming the file and
 * line; they resolve to undefined.
 */
export function analyzeRunCommand(log: vscode.LogOutputChannel): (args?: AnalyzeRunArgs) => Promise<Report | undefined> {
  return async (args) => {
    // Programmatic callers never get a dialog (a test waiting on one would hang): empty lists are an error.
    const request = isAnalyzeArgs(args) ? args : await askForFiles();
    if (!request) return undefined;
    if ((request.run?.length ?? 0) + (request.spans?.length ?? 0) === 0) {
      void vscode.window.showErrorMessage('Phasewise: give at least one run file or span file to analyse');
      return undefined;
    }
    const run = request.run ?? [];
    const spans = request.spans ?? [];
    const store = duckdbSettings();
    if (store === undefined) return undefined;
    log.info(`analyze: run=[${run.join(', ')}] spans=[${spans.join(', ')}]${request.contract ? ` contract=${request.contract}` : ''}`);
    try {
      const { report, markdown } = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Phasewise: analysing run', cancellable: true },
        (progress, token) => {
          // DuckDB and the core run on a worker thread (analysisClient.ts); this thread only relays.
          const load = new LoadProgress();
          let reported = 0;
          /** The bar follows the bytes read; the message says which file, how far, how fast and how long. */
          const report = (message: string): void => {
            const s = load.snapshot();
            const done = s.total !== undefined && s.total > 0 ? (s.read / s.total) * 100 : reported;
            progress.report({ message, increment: Math.max(0, done - reported) });
            reported = Math.max(reported, done);
          };
          const analysis = startAnalysis(
            { run, spans, contract: request.contract, ...store },
            {
              onFile: (file, bytes, _side, totalBytes) => {
                load.setTotal(totalBytes);
                load.file(file, bytes);
                report(`${path.basename(file)} (${(bytes / 1e6).toFixed(1)} MB)`);
              },
              // A reader's scan gives the share of its file read: bytes, rate and time left. Other phase
              // messages (the format, a second pass, the analysis) are shown as they are.
              onProgress: (message, fraction) => {
                log.debug(message);
                if (fraction !== null && isScanMessage(message)) {
                  load.fraction(fraction);
                  report(load.describe());
                } else {
                  report(message);
                }
              },
              onNotes: (notes) => notes.forEach((n) => log.warn(n)),
            },
          );
          const subscription = token.onCancellationRequested(() => {
            log.info('analyze: cancelling');
            analysis.cancel();
          });
          return analysis.result.finally(() => subscription.dispose());
        },
      );
      log.info(`analyze: verdict ${report.verdict.status}, ${report.join.matched}/${report.join.client_requests} matched`);
      const doc = await vscode.workspace.openTextDocument({ content: markdown, language: 'markdown' });
      await vscode.window.showTextDocument(doc, { preview: false });
      return report;
    } catch (err) {
      showAnalyzeError(err, log);
      return undefined;
    }
  };
}

/**
 * phasewise.duckdb.memoryLimit / .threads, checked like the CLI's flags; a bad value is shown (naming
 * the setting) and the analysis does not start.
 */
function duckdbSettings(): Pick<AnalysisRequest, 'memoryLimit' | 'threads'> | undefined {
  const config = vscode.workspace.getConfiguration('phasewise.duckdb');
  const memory = config.get<string>('memoryLimit');
  const threads = config.get<number | null>('threads');
  const out: Pick<AnalysisRequest, 'memoryLimit' | 'threads'> = {};
  const check = (setting: string, apply: () => void): boolean => {
    try {
      apply();
      return true;
    } catch (err) {
      void vscode.window.showErrorMessage(`Phasewise: the setting ${setting} ${(err as Error).message}`);
      return false;
    }
  };
  const ok =
    check('phasewise.duckdb.memoryLimit', () => {
      if (memory !== undefined && memory.trim() !== '') out.memoryLimit = normalizeMemoryLimit(memory);
    }) &&
    check('phasewise.duckdb.threads', () => {
      if (threads !== undefined && threads !== null) out.threads = normalizeThreads(threads);
    });
  return ok ? out : undefined;
}

function isAnalyzeArgs(value: unknown): value is AnalyzeRunArgs {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  const list = (x: unknown): boolean => x === undefined || (Array.isArray(x) && x.every((e) => typeof e === 'string'));
  return ('run' in v || 'spans' in v) && list(v.run) && list(v.spans) && (v.contract === undefined || typeof v.contract === 'string');
}

async function askForFiles(): Promise<AnalyzeRunArgs | undefined> {
  const run = await vscode.window.showOpenDialog({
    canSelectMany: true,
    openLabel: 'Use as run files',
    title: 'Phasewise: load-test run files (k6 JSON/CSV, summary, per-request records); cancel for server-only',
  });
  const spans = await vscode.window.showOpenDialog({
    canSelectMany: true,
    openLabel: 'Use as span files',
    title: 'Phasewise: span exports (OTLP, Jaeger or Zipkin JSON); cancel for client-only',
  });
  const files = { run: (run ?? []).map((u) => u.fsPath), spans: (spans ?? []).map((u) => u.fsPath) };
  return files.run.length + files.spans.length > 0 ? files : undefined;
}

/** Shown without awaiting: a notification waits for the user, and the command must return now. */
function showAnalyzeError(err: unknown, log: vscode.LogOutputChannel): void {
  // The classes of core/errors.ts bundled with the host (the client revives the worker's errors as them).
  if (err instanceof CancelledError) {
    log.info('analyze: cancelled by the user');
    return;
  }
  if (err instanceof InputError) {
    // The message already reads `file:line: expected …, found …`.
    log.error(`analyze: ${err.message}`);
    void vscode.window.showErrorMessage(`Phasewise: ${err.message}`);
    return;
  }
  if (err instanceof ContractError) {
    for (const line of err.lines) log.error(line);
    void vscode.window.showErrorMessage(`Phasewise: ${err.lines[0] ?? err.message}`);
    return;
  }
  if (err instanceof OutOfMemoryError) {
    // Names the settings to change (the CLI's message names its flags); a button opens them.
    const message = outOfMemoryMessage(err, 'editor');
    log.error(`analyze: ${message}`);
    void vscode.window.showErrorMessage(`Phasewise: ${message}`, 'Open Settings').then((choice) => {
      if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'phasewise.duckdb');
    });
    return;
  }
  const message = err instanceof Error ? err.message : String(err);
  log.error(`analyze failed: ${message}`);
  void vscode.window.showErrorMessage(`Phasewise: analysis failed: ${message}`);
}
