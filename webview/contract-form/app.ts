/**
 * The contract form: a view of the document's current text, never a second copy of it. Each update
 * from the host (after any change, from the text editor or from here) re-renders the form from the
 * model of that text; an edit here is a request to the host, whose WorkspaceEdit on the document comes
 * back as the next update. The field being typed into keeps its focus, caret and unsent text.
 */
import type { ContractFormModel, FormDiagnostic, FormEdit } from '../../src/core/contract/form/types';
import { Copy, type ShowErrorParams } from '../../src/protocol/common';
import * as F from '../../src/protocol/contractForm';
import { decodeJson } from '../../src/protocol/schema';
import { h, replaceChildren } from '../shared/dom';
import { errorBanner, guarded } from '../shared/errors';
import type { Bridge } from '../shared/host';
import { palette } from '../shared/theme';
import { budgetsSection } from './budgets';
import { button, diagnosticItem, type FormContext } from './fields';
import { claimSection, gatesSection, requestSection, section, traceSection, windowsSection } from './sections';
import { evaluatedGate } from './evaluation';
import { workloadSection } from './workload';

interface Focus {
  pointer: string;
  value: string | null;
  start: number | null;
  end: number | null;
}

const SECTIONS: [string, string][] = [
  ['cf-claim', 'Claim'],
  ['cf-slo', 'SLOs and budgets'],
  ['cf-workload', 'Workload'],
  ['cf-request', 'Request and prompt shapes'],
  ['cf-trace', 'Trace and phases'],
  ['cf-gates', 'Gates'],
  ['cf-windows', 'Windows'],
];

function parentPointer(p: string): string {
  return p.slice(0, p.lastIndexOf('/'));
}

export class ContractFormApp {
  private model: ContractFormModel | undefined;
  private version = -1;
  private dirty = false;
  private k6: F.K6PreviewParams = null;
  private runs: F.RunsStateParams = { runs: [], selected: null, reason: null, preview: null };
  private evaluation: F.EvaluationParams = null;
  private notice: string | null = null;
  private replacingNow = false;
  /** Blocks kept from the last render: their signature, elements and diagnostic slots. */
  private blocks = new Map<string, { signature: string; el: HTMLElement; anchors: [string, HTMLElement][] }>();
  private readonly errorSlot = h('div');
  /** Milliseconds the last render took (the bench reads it). */
  lastRenderMs = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly bridge: Bridge,
  ) {
    bridge.endpoint.onNotification(F.Update, (p) => this.guard(() => this.update(p)));
    bridge.endpoint.onNotification(F.RunsChanged, (p) =>
      this.guard(() => {
        this.runs = p.runs;
        this.evaluation = p.evaluation;
        this.render();
      }),
    );
    const saved = bridge.getState() as F.ContractFormState | undefined;
    if (saved && F.contractFormState.check(saved, 'state') === undefined && saved.k6_open) bridge.endpoint.notify(F.SetK6Preview, { open: true });
    window.addEventListener('scroll', () => this.saveState(), { passive: true });
  }

  showError(p: ShowErrorParams): void {
    if (!this.root.contains(this.errorSlot)) this.root.prepend(this.errorSlot);
    replaceChildren(this.errorSlot, errorBanner(p));
  }

  redraw(): void {
    if (this.model) this.render();
  }

  private guard(fn: () => void): void {
    guarded(this.bridge.endpoint, 'contract form', (p) => this.showError(p), fn);
  }

  private update(p: { version: number; dirty: boolean; model: string; k6: F.K6PreviewParams; runs: F.RunsStateParams; evaluation: F.EvaluationParams }): void {
    this.model = decodeJson(p.model, F.contractFormModelJson, 'contractForm/update model');
    this.version = p.version;
    this.dirty = p.dirty;
    this.k6 = p.k6;
    this.runs = p.runs;
    this.evaluation = p.evaluation;
    this.render();
  }

  private saveState(): void {
    this.bridge.setState({ scroll_y: window.scrollY, k6_open: this.k6 !== null } satisfies F.ContractFormState);
  }

  private edit(e: FormEdit): void {
    void this.bridge.endpoint.request(F.Edit, { edit: e }).then(
      (r) => this.say(r.applied ? null : `Not applied: ${r.reason ?? 'the document did not take the edit'}`),
      (err: unknown) => this.say(`Not applied: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  private applyFix(d: FormDiagnostic): void {
    void this.bridge.endpoint.request(F.ApplyFix, { version: this.version, index: d.index }).then(
      (r) => this.say(r.applied ? null : `Quick fix not applied: ${r.reason ?? 'unknown reason'}`),
      (err: unknown) => this.say(`Quick fix not applied: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  private evaluate(): void {
    void this.bridge.endpoint.request(F.Evaluate, {}).then(
      (r) => this.say(r.started ? null : `Not evaluated: ${r.reason ?? 'unknown reason'}`),
      (err: unknown) => this.say(`Evaluate failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  private say(notice: string | null): void {
    if (notice === this.notice) return;
    this.notice = notice;
    this.render();
  }

  /** The field with focus (custom elements keep the caret in their shadow root), and the text not yet sent. */
  private captureFocus(): Focus | null {
    const active = document.activeElement as HTMLElement | null;
    const host = active?.closest<HTMLElement>('[data-pointer]');
    if (!host || !this.root.contains(host)) return null;
    const inner = (host.shadowRoot?.activeElement ?? host) as HTMLInputElement;
    const value = 'value' in host ? String((host as HTMLInputElement).value) : null;
    return { pointer: host.dataset.pointer ?? '', value, start: inner.selectionStart ?? null, end: inner.selectionEnd ?? null };
  }

  private restoreFocus(f: Focus | null): void {
    if (!f) return;
    const el = this.root.querySelector<HTMLElement>(`[data-pointer="${CSS.escape(f.pointer)}"]`);
    if (!el) return;
    const field = this.model?.fields[f.pointer];
    if (f.value !== null && field && f.value !== field.display && 'value' in el) (el as HTMLInputElement).value = f.value;
    const focus = (): void => {
      el.focus();
      const inner = el.shadowRoot?.activeElement as HTMLInputElement | null | undefined;
      if (f.start !== null && f.end !== null) (inner ?? (el as HTMLInputElement)).setSelectionRange?.(f.start, f.end);
    };
    // A new @vscode-elements control renders its inner input on the next microtask (Lit): focus it then.
    const pending = (el as { updateComplete?: Promise<unknown> }).updateComplete;
    if (pending) void pending.then(focus);
    else focus();
  }

  private render(): void {
    const m = this.model;
    if (!m) return;
    const t0 = performance.now();
    const focus = this.captureFocus();
    const anchors = new Map<string, HTMLElement>();
    const headerSlot = h('div', { class: 'cf-diags' });
    anchors.set('', headerSlot);
    const kept = new Map<string, { signature: string; el: HTMLElement; anchors: [string, HTMLElement][] }>();
    /** Pointers of the blocks reused as they were: their diagnostics are already in them. */
    const reused: string[] = [];
    let recording: [string, HTMLElement][] | undefined;
    const ctx: FormContext = {
      model: m,
      edit: (e) => this.edit(e),
      reveal: (line) => this.bridge.endpoint.notify(F.RevealInText, { line }),
      applyFix: (d) => this.applyFix(d),
      anchor: (pointer, slot) => {
        if (!anchors.has(pointer)) anchors.set(pointer, slot);
        recording?.push([pointer, slot]);
      },
      replacing: () => this.replacingNow,
      evaluated: (id) => evaluatedGate(this.evaluation, id),
      block: (pointer, signature, build) => {
        const sig = JSON.stringify(signature);
        const old = this.blocks.get(pointer);
        if (old && old.signature === sig) {
          for (const [p, slot] of old.anchors) if (!anchors.has(p)) anchors.set(p, slot);
          kept.set(pointer, old);
          reused.push(pointer);
          return old.el;
        }
        const outer = recording;
        recording = [];
        const el = build();
        kept.set(pointer, { signature: sig, el, anchors: recording });
        recording = outer;
        return el;
      },
    };
    const p = palette(m.phases.map((x) => x.name));
    const sections = [
      section('cf-claim', 'Claim', '/claim', ctx, ...claimSection(ctx)),
      section('cf-slo', 'SLOs and budgets', '/slo', ctx, ...budgetsSection(ctx, p)),
      section('cf-workload', 'Workload', '/workload', ctx, ...workloadSection(ctx)),
      section('cf-request', 'Request and prompt shapes', '/request', ctx, ...requestSection(ctx)),
      section('cf-trace', 'Trace and phases', '/trace', ctx, ...traceSection(ctx, this.runs)),
      section(
        'cf-gates',
        'Gates',
        '/gates',
        ctx,
        ...gatesSection(ctx, this.runs, this.evaluation, this.version, {
          evaluate: () => this.evaluate(),
          cancel: () => this.bridge.endpoint.notify(F.CancelEvaluate, {}),
          selectRun: (id) => this.bridge.endpoint.notify(F.SelectRun, { id }),
        }),
      ),
      section('cf-windows', 'Windows', '/windows', ctx, ...windowsSection(ctx)),
    ];
    // '/budgets' has no section of its own: its diagnostics go with the SLOs.
    anchors.set('/budgets', anchors.get('/slo') as HTMLElement);
    this.blocks = kept;
    for (const d of m.diagnostics) {
      if (reused.some((p) => d.pointer === p || d.pointer.startsWith(`${p}/`))) continue;
      let at = d.pointer;
      while (at !== '' && !anchors.has(at)) at = parentPointer(at);
      const slot = anchors.get(at) ?? headerSlot;
      slot.appendChild(diagnosticItem(ctx, d));
      // A field with a finding takes the grid's whole width, so the message reads on one line.
      slot.parentElement?.classList.add('cf-has-diag');
    }
    const count = (s: string): number => m.diagnostics.filter((d) => d.severity === s).length;
    const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
    const k6Open = this.k6 !== null;
    const header = h(
      'header',
      { class: 'cf-header' },
      h('div', { class: 'cf-title' }, h('h1', null, m.name ?? '(no name)'), h('span', { class: 'pw-muted' }, m.fileName), this.dirty ? h('span', { class: 'pw-badge', attrs: { 'data-testid': 'dirty' } }, 'unsaved') : null),
      h('div', { class: 'cf-counts', attrs: { 'data-testid': 'counts', 'aria-live': 'polite' } }, `${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('information') + count('hint'), 'note')}`),
      h('div', { class: 'cf-spacer' }),
      button('Open as Text', 'Show this contract in the text editor beside the form', () => this.bridge.endpoint.notify(F.RevealInText, { line: 1 })),
      button(k6Open ? 'Hide k6 script' : 'k6 script', k6Open ? 'Close the generated k6 script' : 'Show the k6 script this contract generates, updated as it changes', () => {
        this.bridge.endpoint.notify(F.SetK6Preview, { open: !k6Open });
      }),
    );
    const nav = h('nav', { class: 'cf-nav', attrs: { 'aria-label': 'sections' } }, ...SECTIONS.map(([id, title]) => h('a', { attrs: { href: `#${id}` } }, title)));
    const notice = this.notice ? h('div', { class: 'pw-error-banner', role: 'alert', attrs: { 'data-testid': 'notice' } }, this.notice) : null;
    const main = h('main', { class: 'cf-main' }, nav, headerSlot, notice, ...sections);
    const layout = h('div', { class: `cf-layout${k6Open ? ' cf-with-k6' : ''}` }, main, k6Open ? this.k6Pane() : null);
    this.replacingNow = true;
    try {
      replaceChildren(this.root, this.errorSlot, header, layout);
    } finally {
      this.replacingNow = false;
    }
    this.root.dataset.version = String(this.version);
    this.restoreFocus(focus);
    this.lastRenderMs = performance.now() - t0;
  }

  private k6Pane(): HTMLElement {
    const k6 = this.k6;
    const body = k6 === null ? null : k6.kind === 'script' ? h('pre', { class: 'cf-k6 pw-mono', attrs: { 'data-testid': 'k6-script', tabindex: 0, 'aria-label': 'generated k6 script' } }, k6.text) : h('p', { class: 'cf-bad', attrs: { 'data-testid': 'k6-error' } }, `No script: ${k6.message}`);
    return h(
      'aside',
      { class: 'cf-k6-pane', attrs: { 'aria-label': 'k6 script preview' } },
      h('div', { class: 'cf-inline' }, h('h2', null, 'k6 script'), h('span', { class: 'pw-muted' }, 'generated from the text above, not saved')),
      h(
        'div',
        { class: 'cf-inline' },
        button('Open as document', 'Open the script as a JavaScript document beside the form', () => this.bridge.endpoint.notify(F.OpenK6Script, {})),
        k6?.kind === 'script' ? button('Copy', 'Copy the script', () => this.bridge.endpoint.notify(Copy, { text: k6.text, what: 'k6 script' })) : null,
      ),
      body,
    );
  }
}
