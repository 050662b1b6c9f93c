/**
 * Same experiment? Two runs are comparable when they ran the same workload, sent the same requests and
 * were traced the same way: the contracts' workload, request and trace sections are diffed field by
 * field, along with the provenance the runs themselves record (input formats per side, the analysis
 * settings that shape the figures). Every difference is one sentence naming the field and both values.
 */
import type { LoadContract } from '../contract/types';

/** What a run says about how it was produced. */
export interface ExperimentFacts {
  /** The contract it was analysed with, if one was given. */
  contract?: Pick<LoadContract, 'workload' | 'request' | 'trace'>;
  /** Input files as `side:format`, with their counts (e.g. `client:k6-json` → 1). */
  inputs: Record<string, number>;
  /** Window size and phase mapping the figures were computed with. */
  analysis: { windowSizeMs: number; phases: string[] };
}

export interface ExperimentCheck {
  same_experiment: boolean;
  differences: string[];
}

export function compareExperiments(base: ExperimentFacts, head: ExperimentFacts): ExperimentCheck {
  const differences: string[] = [];
  if ((base.contract === undefined) !== (head.contract === undefined)) {
    differences.push(`contract: ${base.contract ? 'given' : 'none'} for BASE, ${head.contract ? 'given' : 'none'} for HEAD`);
  } else if (base.contract && head.contract) {
    for (const section of ['workload', 'request', 'trace'] as const) diffValues(section, base.contract[section], head.contract[section], differences);
  }
  diffValues('inputs', base.inputs, head.inputs, differences);
  diffValues('analysis', base.analysis, head.analysis, differences);
  return { same_experiment: differences.length === 0, differences };
}

/** Appends `path: BASE → HEAD` for every leaf that differs (objects by key, arrays by position). */
function diffValues(at: string, a: unknown, b: unknown, out: string[]): void {
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) diffValues(`${at}.${k}`, a[k], b[k], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diffValues(`${at}[${i}]`, a[i], b[i], out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${at}: ${show(a)} in BASE, ${show(b)} in HEAD`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}
