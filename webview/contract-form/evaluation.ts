/**
 * Evaluate in the form: the pick list of the runs open in the Runs view, the Evaluate and Cancel
 * buttons with the progress line, and the gates of the run re-analysed with this contract, each with
 * its status, rule, observed figure and the contract line it comes from. Text nodes only.
 */
import type { EvaluatedGate, EvaluationParams, RunsStateParams } from '../../src/protocol/contractForm';
import { h } from '../shared/dom';
import { fmtGateValue, fmtInt, MISSING } from '../shared/format';
import { button, type FormContext } from './fields';

export interface EvaluateActions {
  evaluate(): void;
  cancel(): void;
  selectRun(id: string): void;
}

function statusText(s: EvaluatedGate['status']): string {
  return s === 'no_data' ? 'no data' : s;
}

/** A gate's status as a badge (the word is there too: colour is never the only cue). */
export function gateBadge(g: EvaluatedGate): HTMLElement {
  return h('span', { class: `cf-gate-status cf-gate-${g.status}`, title: `${g.id}: ${g.metric}.${g.stat} ${g.op} ${fmtGateValue(g, g.limit)}, observed ${fmtGateValue(g, g.observed)}` }, statusText(g.status));
}

/** The gate of the last evaluation with this id, when it still shows the contract's text. */
export function evaluatedGate(e: EvaluationParams, id: string): EvaluatedGate | undefined {
  return e?.kind === 'done' ? e.gates.find((g) => g.id === id) : undefined;
}

function lineOf(origin: string | null): number | null {
  const m = origin === null ? null : /:(\d+)$/.exec(origin);
  return m ? Number(m[1]) : null;
}

function statusLine(runs: RunsStateParams, e: EvaluationParams, version: number): string {
  if (runs.selected === null) return runs.reason ?? 'No run is open in the Runs view.';
  if (e === null) return 'Evaluate re-analyses the selected run with this contract (saved first) and shows every gate here.';
  switch (e.kind) {
    case 'running':
      return `Evaluating against ${e.run}: ${e.message}`;
    case 'cancelled':
      return `Evaluate against ${e.run} was cancelled; the run keeps its previous analysis.`;
    case 'failed':
      return `Evaluate against ${e.run} failed: ${e.message}`;
    case 'done': {
      const failed = e.gates.filter((g) => g.status === 'fail').length;
      const missing = e.gates.filter((g) => g.status === 'no_data').length;
      const moved = e.version !== version ? ' The text changed since: evaluate again to see its gates.' : '';
      return `Evaluated against ${e.run}: verdict ${e.verdict.status.replace(/_/g, ' ')}, ${e.gates.length} gates (${failed} failed, ${missing} without data).${moved}`;
    }
  }
}

export function evaluateStrip(ctx: FormContext, runs: RunsStateParams, e: EvaluationParams, version: number, act: EvaluateActions): Node[] {
  const running = e?.kind === 'running';
  const picker =
    runs.runs.length > 0
      ? h(
          'select',
          { class: 'cf-select', attrs: { 'aria-label': 'run to evaluate against', 'data-testid': 'run-picker' }, on: { change: (ev) => act.selectRun((ev.target as HTMLSelectElement).value) } },
          ...(runs.selected === null ? [h('option', { attrs: { value: '', selected: true, disabled: true } }, '(pick a run)')] : []),
          ...runs.runs.map((r) => h('option', { attrs: { value: r.id, selected: r.id === runs.selected } }, r.label)),
        )
      : null;
  const evaluate = button('Evaluate', runs.selected === null ? 'Needs a run open in the Runs view' : 'Re-analyse the selected run with this contract and show its gates', () => act.evaluate(), false);
  if (runs.selected === null || running) evaluate.setAttribute('disabled', '');
  evaluate.dataset.testid = 'evaluate';
  const cancel = running ? button('Cancel', 'Stop the analysis (the run keeps its previous one)', () => act.cancel(), false) : null;
  if (cancel) cancel.dataset.testid = 'evaluate-cancel';
  const strip = h(
    'div',
    { class: 'cf-inline cf-evaluate' },
    picker,
    evaluate,
    cancel,
    h('span', { class: `pw-muted${e?.kind === 'failed' ? ' cf-bad' : ''}`, attrs: { 'data-testid': 'evaluate-status', 'aria-live': 'polite', role: 'status' } }, statusLine(runs, e, version)),
  );
  return [strip, ...(e?.kind === 'done' ? [resultsTable(ctx, e.gates)] : [])];
}

/** Every gate of the evaluation (SLOs, budgets, gates, workload), in the Report's order. */
function resultsTable(ctx: FormContext, gates: readonly EvaluatedGate[]): HTMLElement {
  if (gates.length === 0) return h('p', { class: 'pw-muted' }, 'The contract declares no gates.');
  return h(
    'table',
    { class: 'pw-table cf-results', attrs: { 'data-testid': 'evaluation' } },
    h('thead', null, h('tr', null, ...['gate', 'rule', 'observed', 'n', 'population', 'result', 'contract'].map((c) => h('th', { class: c === 'observed' || c === 'n' ? 'pw-num' : '' }, c)))),
    h(
      'tbody',
      null,
      ...gates.map((g) => {
        const line = lineOf(g.origin);
        return h(
          'tr',
          { attrs: { 'data-testid': `evaluated-${g.id}`, 'data-status': g.status } },
          h('td', { class: 'pw-mono' }, g.id),
          h('td', { class: 'pw-mono' }, `${g.metric}.${g.stat} ${g.op} ${fmtGateValue(g, g.limit)}`),
          h('td', { class: 'pw-num' }, fmtGateValue(g, g.observed)),
          h('td', { class: 'pw-num' }, g.n === null ? MISSING : fmtInt(g.n)),
          h('td', { class: 'pw-muted' }, g.window),
          h('td', null, gateBadge(g)),
          h('td', null, line !== null ? h('button', { class: 'pw-link', attrs: { type: 'button', title: `show line ${line} in the text editor` }, on: { click: () => ctx.reveal(line) } }, `line ${line}`) : MISSING),
        );
      }),
    ),
  );
}
