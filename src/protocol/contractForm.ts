/**
 * The contract form's protocol (webview/contractForm.ts ⇄ the custom editor, ContractFormProvider).
 * Declared once here with schemas; the common messages (ready, theme, copy, errors) are in common.ts.
 *
 * The document is the one source of truth. Order: `webview/ready` → host `contractForm/update` with
 * the model of the document's current text (again after every change, from the text editor or the
 * form, once the shared validation has run). The form never edits its own model: it asks the host
 * (`contractForm/edit`), the host applies a WorkspaceEdit to the document, and the next update shows
 * the result. Quick fixes are the validation's own, named by version and index.
 */
import type { BudgetBreakdown, ContractFormModel, FormDiagnostic, FormField, GateRow, PhaseRow, PromptShapeRow, SloRow } from '../core/contract/form/types';
import { gateRow } from './common';
import { notification, request } from './ipc';
import { array, boolean, jsonText, literal, model, nullable, number, object, optional, record, string, tagged, unknown, type Infer, type Schema } from './schema';

const field: Schema<FormField> = model<FormField>()({
  pointer: string,
  kind: literal('duration', 'number', 'integer', 'string', 'boolean', 'enum'),
  present: boolean,
  display: string,
});

const diagnostic: Schema<FormDiagnostic> = model<FormDiagnostic>()({
  index: number,
  code: string,
  severity: literal('error', 'warning', 'information', 'hint'),
  message: string,
  line: number,
  column: number,
  pointer: string,
  fix: optional(string),
});

/** The fields the form cannot render without (the rest is read as the core declares it). */
export const contractFormModel: Schema<ContractFormModel> = model<ContractFormModel>()({
  fileName: string,
  json: boolean,
  name: nullable(string),
  fields: record(field),
  diagnostics: array(diagnostic),
  slo: array(object({ metric: string, stat: string, pointer: string, ms: nullable(number), budgets: array(number) })) as unknown as Schema<SloRow[]>,
  budgets: array(object({ index: number, pointer: string, sloMs: nullable(number), phases: array(object({ name: string, pointer: string, ms: nullable(number) })), status: string })) as unknown as Schema<BudgetBreakdown[]>,
  timeline: object({ segments: array(object({ kind: string, startMs: number, endMs: number, fromRate: number, toRate: number })), totalMs: number }) as unknown as Schema<ContractFormModel['timeline']>,
  promptShapes: array(object({ index: number, pointer: string })) as unknown as Schema<PromptShapeRow[]>,
  gates: array(object({ key: string, pointer: string, declared: boolean })) as unknown as Schema<GateRow[]>,
  phases: array(object({ name: string, selectors: array(unknown) })) as unknown as Schema<PhaseRow[]>,
  phasesDeclared: boolean,
});

/** The model as JSON text on the wire (a 500-line contract's model is ≈ 40 KB). */
export const contractFormModelJson = jsonText(contractFormModel);

/** The generated k6 script, or why there is none; null while the preview is closed. */
export const k6Preview = nullable(tagged('kind', {
  script: object({ kind: literal('script'), text: string }),
  error: object({ kind: literal('error'), message: string }),
}));
export type K6PreviewParams = Infer<typeof k6Preview>;

/** A run open in the Runs view, as the form lists it. */
export const openRun = object({ id: string, label: string });

/** What one phase's selectors pick in the selected run: spans, traces with at least one, the commonest span names. */
export const phasePick = object({ spans: number, traces: number, names: array(object({ name: string, count: number })) });

/** The phase preview of the selected run: being counted, counted (phase name → pick), or why not. */
export const phasePreview = tagged('kind', {
  pending: object({ kind: literal('pending') }),
  ready: object({ kind: literal('ready'), picks: record(phasePick) }),
  error: object({ kind: literal('error'), message: string }),
});

/** What the form knows of runs: those open in the Runs view and the selected one. */
export const runsState = object({
  runs: array(openRun),
  selected: nullable(string),
  /** Why there is no run to use, shown in place of the phase preview and Evaluate. */
  reason: nullable(string),
  /** What the contract's phases pick in the selected run; null when there is no run. */
  preview: nullable(phasePreview),
});
export type RunsStateParams = Infer<typeof runsState>;

/** A gate of the evaluated run, as the Report (`phasewise analyze --contract --format json`) has it. */
export const evaluatedGate = gateRow;
export type EvaluatedGate = Infer<typeof evaluatedGate>;

/** The last Evaluate of this form: under way (with the progress line), done, cancelled or failed. */
export const evaluation = nullable(
  tagged('kind', {
    running: object({ kind: literal('running'), run: string, message: string }),
    done: object({
      kind: literal('done'),
      run: string,
      /** The document version evaluated (the form says when the text moved on since). */
      version: number,
      verdict: object({ status: string, broken_phase: nullable(string), reasons: array(string) }),
      gates: array(evaluatedGate),
    }),
    cancelled: object({ kind: literal('cancelled'), run: string }),
    failed: object({ kind: literal('failed'), run: string, message: string }),
  }),
);
export type EvaluationParams = Infer<typeof evaluation>;

/** Host → webview: the runs, the preview or the evaluation changed (the model did not). */
export const RunsChanged = notification('contractForm/runs', 'toWebview', object({ runs: runsState, evaluation }));

/**
 * Host → webview: the document's text changed (or the form opened): the model of its current text,
 * with the version it was built from. `dirty` mirrors the document's state.
 */
export const Update = notification(
  'contractForm/update',
  'toWebview',
  object({ version: number, dirty: boolean, model: contractFormModelJson, k6: k6Preview, runs: runsState, evaluation }),
);

/** The edits the form asks for (core FormEdit). */
export const formEdit = tagged('op', {
  set: object({ op: literal('set'), pointer: string, input: string }),
  remove: object({ op: literal('remove'), pointer: string }),
  append: object({ op: literal('append'), pointer: string, item: record(unknown) }),
});

/**
 * Webview → host: change the document. The host turns the edit into text edits on the document's
 * current text (by pointer, so an edit typed while the text changed still lands on its field) and
 * applies them as one WorkspaceEdit (one undo step). `applied` false with `reason` when it could not.
 */
export const Edit = request('contractForm/edit', 'toHost', object({ edit: formEdit }), object({ applied: boolean, reason: nullable(string) }));

/** Webview → host: apply the quick fix of diagnostic `index` of the validation of `version` (refused if the text moved on). */
export const ApplyFix = request('contractForm/applyFix', 'toHost', object({ version: number, index: number }), object({ applied: boolean, reason: nullable(string) }));

/** Webview → host: show this line of the document in the text editor beside the form. */
export const RevealInText = notification('contractForm/revealInText', 'toHost', object({ line: number }));

/** Webview → host: open or close the k6 preview beside the form (the next update carries it). */
export const SetK6Preview = notification('contractForm/setK6Preview', 'toHost', object({ open: boolean }));

/** Webview → host: open the generated script as a JavaScript document beside the form. */
export const OpenK6Script = notification('contractForm/openK6Script', 'toHost', object({}));

/** Webview → host: use this open run for the phase preview and Evaluate. */
export const SelectRun = notification('contractForm/selectRun', 'toHost', object({ id: string }));

/**
 * Webview → host: evaluate the contract against the selected run: the run is re-analysed with the
 * contract (saved first) as Re-analyse with Contract does, and the gates come back in `evaluation`
 * (RunsChanged, and every Update after). `started` false with `reason` when it cannot start (no run,
 * a contract with errors, an untitled document, one already under way).
 */
export const Evaluate = request('contractForm/evaluate', 'toHost', object({}), object({ started: boolean, reason: nullable(string) }));

/** Webview → host: cancel the Evaluate under way. */
export const CancelEvaluate = notification('contractForm/cancelEvaluate', 'toHost', object({}));

/** What the webview saves with setState: which section it was in (the model always comes from the document). */
export const contractFormState = object({ scroll_y: optional(number), k6_open: optional(boolean) });
export type ContractFormState = Infer<typeof contractFormState>;
