/**
 * The settings an analysis reads, gathered for the worker: DuckDB's memory limit and threads
 * (`phasewise.duckdb.*`), the window size and default phase mapping (`phasewise.analysis.*`, used
 * when the run's contract does not declare them), and the slow-trace list (`phasewise.slowTraces.*`).
 * Values are checked by the settings' JSON schema in the UI and again by the worker.
 */
import * as vscode from 'vscode';
import { normalizeMemoryLimit, normalizeThreads } from '../../core/memorySettings';
import type { RunSettings } from './workerProtocol';

export const SLOW_TRACE_ORDERS = ['client_total', 'network_envelope', 'gpu_queue', 'generation', 'unattributed_server'] as const;
export type SlowTraceOrderSetting = (typeof SLOW_TRACE_ORDERS)[number];

/** Labels for the orderings, as the Slow Traces view and its picker say them. */
export const ORDER_LABELS: Readonly<Record<string, string>> = {
  client_total: 'client total',
  network_envelope: 'network envelope',
  gpu_queue: 'GPU queue',
  generation: 'generation',
  unattributed_server: 'unattributed server time',
};

interface PhaseSetting {
  name?: unknown;
  names?: unknown;
  attributes?: unknown;
  attributePresent?: unknown;
  service?: unknown;
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);

/**
 * `phasewise.analysis.phases`: `[{ name, names?, attributes?, attributePresent?, service? }]`, one
 * selector per entry; several entries with one name are one phase with several selectors.
 */
function phaseMapping(raw: unknown): RunSettings['phases'] {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const byName = new Map<string, NonNullable<RunSettings['phases']>[number]>();
  for (const item of raw as PhaseSetting[]) {
    if (item === null || typeof item !== 'object' || typeof item.name !== 'string' || item.name.trim() === '') continue;
    const attributes = item.attributes !== null && typeof item.attributes === 'object' && !Array.isArray(item.attributes) ? Object.fromEntries(Object.entries(item.attributes).filter(([, v]) => typeof v === 'string')) : undefined;
    const matcher = {
      ...(strings(item.names) ? { names: strings(item.names) } : {}),
      ...(attributes && Object.keys(attributes).length > 0 ? { attributes: attributes as Record<string, string> } : {}),
      ...(strings(item.attributePresent) ? { attributePresent: strings(item.attributePresent) } : {}),
      ...(typeof item.service === 'string' ? { service: item.service } : {}),
    };
    const phase = byName.get(item.name) ?? { name: item.name, anyOf: [] };
    phase.anyOf.push(matcher);
    byName.set(item.name, phase);
  }
  return byName.size > 0 ? [...byName.values()] : undefined;
}

/** A setting's value checked as the CLI checks its flag; a bad one throws an Error naming the setting. */
function checked<T>(setting: string, value: unknown, normalize: (v: never) => T): T {
  try {
    return normalize(value as never);
  } catch (err) {
    throw new Error(`the setting ${setting} ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The settings of the next load or analysis. `phasewise.duckdb.memoryLimit` and `.threads` are checked
 * as the CLI's --memory-limit and --threads are (core/memorySettings.ts); a bad value throws, so the
 * load does not start and the error names the setting.
 */
export function readRunSettings(): RunSettings {
  const c = vscode.workspace.getConfiguration('phasewise');
  const memoryLimit = c.get<string>('duckdb.memoryLimit');
  const threads = c.get<number | null>('duckdb.threads');
  const windowSize = c.get<string>('analysis.windowSize');
  const count = c.get<number>('slowTraces.count', 10);
  return {
    ...(memoryLimit !== undefined && memoryLimit.trim() !== '' ? { memoryLimit: checked('phasewise.duckdb.memoryLimit', memoryLimit, normalizeMemoryLimit) } : {}),
    ...(threads !== undefined && threads !== null ? { threads: checked('phasewise.duckdb.threads', threads, normalizeThreads) } : {}),
    ...(windowSize !== undefined && windowSize.trim() !== '' ? { windowSize: windowSize.trim() } : {}),
    slowTraceCount: Number.isInteger(count) && count > 0 ? Math.min(count, 500) : 10,
    phases: phaseMapping(c.get('analysis.phases')),
  };
}

export function slowTraceOrder(): SlowTraceOrderSetting {
  const v = vscode.workspace.getConfiguration('phasewise').get<string>('slowTraces.orderBy', 'client_total');
  return (SLOW_TRACE_ORDERS as readonly string[]).includes(v) ? (v as SlowTraceOrderSetting) : 'client_total';
}

/** True when a change touches what an analysis reads (the open runs are then re-analysed). */
export function affectsAnalysis(e: vscode.ConfigurationChangeEvent): boolean {
  return ['phasewise.duckdb', 'phasewise.analysis', 'phasewise.slowTraces.count'].some((s) => e.affectsConfiguration(s));
}
