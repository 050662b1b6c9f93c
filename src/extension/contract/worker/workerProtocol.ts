/**
 * Messages between the extension host and the contract worker (contractWorker.ts), the thread that
 * parses and validates contracts, builds the form's model and the k6 preview, turns form edits into
 * text edits, and answers hovers and completions. Each request is declared once with
 * src/protocol/schema.ts: its types come from the declaration, the worker checks the params it
 * receives and the client the result (a mismatch is an error with the path, never a crash).
 * No vscode import.
 */
import type { ContractDiagnostic } from '../../../core/contract';
import { contractFormModel, formEdit } from '../../../protocol/contractForm';
import { array, boolean, literal, model, nullable, number, object, optional, string, tagged, type Infer, type Schema } from '../../../protocol/schema';

const textEdit = object({ start: number, end: number, newText: string });

const diagnostic: Schema<ContractDiagnostic> = model<ContractDiagnostic>()({
  range: object({ start: number, end: number }),
  line: number,
  column: number,
  severity: literal('error', 'warning', 'information', 'hint'),
  code: string,
  message: string,
  fix: optional(object({ title: string, edits: array(textEdit) })),
});

const keyDoc = object({ name: string, description: string, enumValues: array(string), examples: array(string) });

/** The k6 preview: the script, or why there is none (the contract has errors, an executor k6 cannot drive). */
const k6Preview = tagged('kind', {
  script: object({ kind: literal('script'), text: string }),
  error: object({ kind: literal('error'), message: string }),
});

/** What a document's views need besides diagnostics: the form's model, the k6 preview beside it. */
const wantedViews = object({ form: boolean, k6: boolean });

/** Host → worker requests, by type, each with the schema of its params and of the worker's result. */
export const CONTRACT_REQUESTS = {
  /** The document's text at `version`: validate it (and build what `views` ask for). */
  sync: {
    params: object({ key: string, version: number, text: string, fileName: string, views: wantedViews }),
    result: object({ key: string, version: number, diagnostics: array(diagnostic), validateMs: number, form: optional(contractFormModel), k6: optional(k6Preview) }),
  },
  /** A form edit as text edits on `text` (the document's current text), or why it cannot apply. */
  edit: {
    params: object({ text: string, fileName: string, edit: formEdit }),
    result: tagged('kind', {
      edits: object({ kind: literal('edits'), edits: array(textEdit) }),
      refused: object({ kind: literal('refused'), reason: string }),
    }),
  },
  hover: {
    params: object({ text: string, fileName: string, offset: number }),
    result: object({ hover: nullable(keyDoc) }),
  },
  /** `lines`: the whole document (sibling keys below the cursor count too). */
  complete: {
    params: object({ lines: array(string), line: number, character: number }),
    result: object({ items: array(object({ label: string, kind: literal('property', 'enum'), insertText: optional(string), detail: optional(string), doc: optional(keyDoc) })) }),
  },
  /** The New Load Contract template. */
  template: {
    params: object({}),
    result: object({ text: string }),
  },
  k6: {
    params: object({ text: string, fileName: string, contractPath: string }),
    result: k6Preview,
  },
} as const;

export type RequestName = keyof typeof CONTRACT_REQUESTS;

export type Requests = { [K in RequestName]: { params: Infer<(typeof CONTRACT_REQUESTS)[K]['params']>; result: Infer<(typeof CONTRACT_REQUESTS)[K]['result']> } };

export type WantedViews = Infer<typeof wantedViews>;
export type K6Preview = Infer<typeof k6Preview>;

/** Host → worker: a request of one of the declared types (its params checked against their schema). */
export const HOST_TO_WORKER = object({ type: literal(...(Object.keys(CONTRACT_REQUESTS) as RequestName[])), id: number });
export type HostToWorker = { [K in RequestName]: { type: K; id: number; params: Requests[K]['params'] } }[RequestName];

/** Worker → host: the result of request `id`, or why it failed. */
export const WORKER_TO_HOST = tagged('type', {
  result: object({ type: literal('result'), id: number }),
  error: object({ type: literal('error'), id: number, message: string }),
});
export type WorkerToHost = { type: 'result'; id: number; result: unknown } | { type: 'error'; id: number; message: string };
