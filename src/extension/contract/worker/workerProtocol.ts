/**
 * Messages between the extension host and the contract worker (contractWorker.ts), the thread that
 * parses and validates contracts, builds the form's model and the k6 preview, turns form edits into
 * text edits, and answers hovers and completions.
 * Both ends are built from this repository together, so the types are the contract; the worker still
 * answers a malformed request with an error rather than crashing. No vscode import.
 */
import type { ContractDiagnostic, TextEdit } from '../../../core/contract';
import type { ContractFormModel, FormEdit } from '../../../core/contract/form/types';
import type { CompletionData, KeyDoc } from './assist';

/** What a document's views need besides diagnostics: the form's model, the k6 preview beside it. */
export interface WantedViews {
  form: boolean;
  k6: boolean;
}

/** The k6 preview: the script, or why there is none (the contract has errors, an executor k6 cannot drive). */
export type K6Preview = { script: string } | { error: string };

/** Host → worker requests, by type, with the worker's result for each. */
export interface Requests {
  /** The document's text at `version`: validate it (and build what `views` ask for). */
  sync: {
    params: { key: string; version: number; text: string; fileName: string; views: WantedViews };
    result: { key: string; version: number; diagnostics: ContractDiagnostic[]; validateMs: number; form?: ContractFormModel; k6?: K6Preview };
  };
  /** A form edit as text edits on `text` (the document's current text); refused with the reason when it cannot apply. */
  edit: {
    params: { text: string; fileName: string; edit: FormEdit };
    result: { edits: TextEdit[] } | { error: string };
  };
  hover: {
    params: { text: string; fileName: string; offset: number };
    result: { hover: KeyDoc | null };
  };
  /** `lines`: the whole document (sibling keys below the cursor count too). */
  complete: {
    params: { lines: string[]; line: number; character: number };
    result: { items: CompletionData[] };
  };
  /** The New Load Contract template. */
  template: {
    params: Record<string, never>;
    result: { text: string };
  };
  k6: {
    params: { text: string; fileName: string; contractPath: string };
    result: K6Preview;
  };
}

export type RequestName = keyof Requests;

export type HostToWorker = { [K in RequestName]: { type: K; id: number; params: Requests[K]['params'] } }[RequestName];

export type WorkerToHost =
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; message: string };

export function isWorkerToHost(m: unknown): m is WorkerToHost {
  if (typeof m !== 'object' || m === null) return false;
  const r = m as { type?: unknown; id?: unknown };
  return (r.type === 'result' || r.type === 'error') && typeof r.id === 'number';
}
