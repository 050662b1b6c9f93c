/**
 * The form's inputs: one per contract field, each showing the value's text from the document and
 * sending an edit when the user commits (Enter or leaving the field; Escape puts the document's value
 * back; an emptied field removes its key). Diagnostics go into slots registered by pointer.
 */
import type { ContractFormModel, FormDiagnostic, FormEdit, FormField } from '../../src/core/contract/form/types';
import type { EvaluatedGate } from '../../src/protocol/contractForm';
import { h, vs } from '../shared/dom';

/** What the sections need from the app. */
export interface FormContext {
  readonly model: ContractFormModel;
  edit(e: FormEdit): void;
  reveal(line: number): void;
  applyFix(d: FormDiagnostic): void;
  /** Registers where the diagnostics of `pointer` (and of pointers below it without their own slot) are shown. */
  anchor(pointer: string, slot: HTMLElement): void;
  /** True while the form replaces its elements: a field losing focus then fires `change`, which is not the user's. */
  replacing(): boolean;
  /**
   * The block for the entries under `pointer`, rebuilt only when `signature` (everything it shows,
   * its diagnostics included) changed since the last update; else the same elements are kept.
   */
  block(pointer: string, signature: unknown, build: () => HTMLElement): HTMLElement;
  /** The gate of the last Evaluate with this id (`slo.total_ms.p95`, `budget.gateway_ms.p95`…), if any. */
  evaluated(id: string): EvaluatedGate | undefined;
}

/** `/workload/max_in_flight` → `max_in_flight`; list indices read as `#1`. */
export function labelOf(pointer: string): string {
  const last = pointer.slice(pointer.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~');
  return /^\d+$/.test(last) ? `#${Number(last) + 1}` : last;
}

let nextId = 0;

function commitOnEnter(el: HTMLElement, commit: () => void, revert: () => void): void {
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      commit();
    } else if (e.key === 'Escape') {
      revert();
    }
  });
}

/** The control for one field, with `data-pointer` so diagnostics, tests and focus restoring find it. */
export function control(ctx: FormContext, f: FormField | undefined, label: string): HTMLElement {
  if (!f) return h('span', { class: 'pw-muted' }, '—');
  const id = `pw-f${nextId++}`;
  const common = { id, attrs: { 'data-pointer': f.pointer, 'data-kind': f.kind, 'aria-label': label } };
  if (f.kind === 'boolean') {
    // The row's label names it; the checkbox's own label stays empty (its aria-label is set).
    const box = vs<HTMLElement & { checked: boolean }>('vscode-checkbox', { checked: f.value === true }, common);
    box.addEventListener('change', () => ctx.edit({ op: 'set', pointer: f.pointer, input: String(box.checked) }));
    return box;
  }
  if (f.kind === 'enum' && f.options) {
    const options = f.present && !f.options.includes(f.display) ? [f.display, ...f.options] : f.options;
    const select = h('select', { ...common, class: 'cf-select' }, ...(f.present ? [] : [h('option', { attrs: { value: '', selected: true } }, f.placeholder ? `(${f.placeholder})` : '(not set)')]), ...options.map((o) => h('option', { attrs: { value: o, selected: f.present && o === f.display } }, o)));
    select.addEventListener('change', () => ctx.edit(select.value === '' ? { op: 'remove', pointer: f.pointer } : { op: 'set', pointer: f.pointer, input: select.value }));
    return select;
  }
  // A native input: a 500-line contract has ~500 fields, and a Lit control per field made each update
  // cost ~5× more to paint; styled with the same --vscode-input-* variables.
  const input = h('input', { ...common, class: `cf-input cf-${f.kind}`, attrs: { ...common.attrs, type: 'text', spellcheck: 'false', autocomplete: 'off', ...(f.placeholder ? { placeholder: f.placeholder } : {}) } });
  input.value = f.display;
  // Enter commits, and so does the change event that follows it: send each value once.
  let sent = f.display;
  const commit = (): void => {
    const v = input.value;
    if (v === sent || ctx.replacing()) return;
    sent = v;
    ctx.edit(v.trim() === '' ? { op: 'remove', pointer: f.pointer } : { op: 'set', pointer: f.pointer, input: v });
  };
  input.addEventListener('change', commit);
  commitOnEnter(input, commit, () => {
    input.value = f.display;
    sent = f.display;
  });
  input.title = f.kind === 'duration' ? 'A duration such as 250ms, 30s, 10m (a bare number is ms). Enter applies, Escape reverts, empty removes the key.' : 'Enter applies, Escape reverts, empty removes the key.';
  return input;
}

/** Free-text fields that need the width of two columns. */
const WIDE = new Set(['/name', '/claim/statement', '/request/route', '/request/base_url', '/trace/root/span']);

/** A labelled row: `label  [control]`, with a slot for the field's diagnostics below it. */
export function fieldRow(ctx: FormContext, pointer: string, label = labelOf(pointer)): HTMLElement {
  const f = ctx.model.fields[pointer];
  const slot = h('div', { class: 'cf-diags' });
  ctx.anchor(pointer, slot);
  const c = control(ctx, f, label);
  const line = f?.line;
  const name = line !== undefined
    ? h('button', { class: 'pw-link cf-label', title: `Line ${line}: show it in the text editor`, on: { click: () => ctx.reveal(line) } }, label)
    : h('span', { class: 'cf-label cf-absent', title: 'Not in the text yet: a value here inserts the key' }, label);
  return h('div', { class: `cf-row${f?.present ? '' : ' cf-row-absent'}${WIDE.has(pointer) ? ' cf-row-wide' : ''}` }, name, c, slot);
}

/** A grid of rows. */
export function fieldGrid(ctx: FormContext, pointers: readonly string[]): HTMLElement {
  return h('div', { class: 'cf-grid' }, ...pointers.filter((p) => ctx.model.fields[p] !== undefined).map((p) => fieldRow(ctx, p)));
}

/**
 * An action button (Enter and Space press it, as any button): native, in VS Code's button colours. A
 * form of a 500-line contract has ~80 of them, and a Lit control each was the bulk of a re-render.
 */
export function button(label: string, title: string, onClick: () => void, secondary = true): HTMLButtonElement {
  return h('button', { class: `cf-button${secondary ? ' cf-secondary' : ''}`, title, attrs: { type: 'button' }, on: { click: onClick } }, label);
}

const SEVERITY_LABEL: Record<FormDiagnostic['severity'], string> = { error: 'Error', warning: 'Warning', information: 'Info', hint: 'Hint' };

/** One diagnostic as the text editor words it, with its line and its quick fix. */
export function diagnosticItem(ctx: FormContext, d: FormDiagnostic): HTMLElement {
  return h(
    'div',
    { class: `cf-diag cf-diag-${d.severity}`, role: d.severity === 'error' ? 'alert' : 'note', attrs: { 'data-code': d.code, 'data-pointer': d.pointer } },
    h('span', { class: 'cf-diag-sev' }, SEVERITY_LABEL[d.severity]),
    ' ',
    h('button', { class: 'pw-link cf-diag-line', title: 'Show it in the text editor', on: { click: () => ctx.reveal(d.line) } }, `line ${d.line}`),
    ' ',
    h('code', { class: 'cf-diag-code' }, d.code),
    ' ',
    h('span', { class: 'cf-diag-msg' }, d.message),
    d.fix ? button(d.fix, `Quick fix: ${d.fix}`, () => ctx.applyFix(d)) : null,
  );
}
