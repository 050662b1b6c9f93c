/**
 * `node out/bench/run/contractForm.js` (also run by `npm run bench`): the contract form's figures on
 * the 500-line bench contract, in headless Chromium on the webview tests' host page. Prints one JSON
 * object.
 *
 * - first paint: the worker builds the model (validation + form model, the extension's own
 *   ContractWorkerClient), then contractForm/update → the frame after the form is laid out, fresh page each;
 * - keystroke in the text editor → the form's update: one digit typed into a budget, through the
 *   editor's ValidationScheduler (its 50 ms pause) and the worker, then the update → the next frame.
 *   The Node → page hop (Playwright, standing in for postMessage) is not counted; both halves are.
 */
import * as path from 'path';
import { buildLargeContract } from '../contractValidation';
import { ValidationScheduler } from '../../src/extension/contract/scheduler';
import { ContractWorkerClient } from '../../src/extension/contract/worker/contractClient';
import type { ContractFormModel } from '../../src/core/contract/form/types';
import * as F from '../../src/protocol/contractForm';
import type { ParamsOf } from '../../src/protocol/ipc';
import { encodeJson } from '../../src/protocol/schema';
import { closeBrowser, HostPage } from '../../test/webview/harness';
import { median } from './webview';

const FRESH_PAGES = 5;
const KEYSTROKES = 20;
const FILE = 'bench.loadcontract.yaml';

export interface ContractFormBenchResult {
  lines: number;
  fields: number;
  budgets: number;
  /** Worker: parse, validate and build the model, round trip from the host. */
  modelMs: number[];
  /** Page: update message → the frame after the form is laid out. */
  paintMs: number[];
  /** Keystroke → the worker's model for that text (the scheduler's pause included). */
  keystrokeHostMs: number[];
  /** The update with that model → the next frame showing it. */
  keystrokePageMs: number[];
}

interface BenchWindow {
  __params: unknown;
  postMessage(m: unknown, target: string): void;
  requestAnimationFrame(cb: (t: number) => void): void;
  performance: { now(): number };
  document: { querySelector(s: string): unknown };
}
declare const window: BenchWindow;

// Typed by the protocol, so a changed update message is a compile error here: an untyped copy had
// lost `evaluation`, the page refused the update and the bench waited for its frame forever.
function updateParams(version: number, model: ContractFormModel): ParamsOf<typeof F.Update> {
  return { version, dirty: version > 1, model: encodeJson(model), k6: null, runs: { runs: [], selected: null, reason: 'No run is open in the Runs view.', preview: null }, evaluation: null };
}

/** The update put into the page outside the timing, then one message → the frame after `data-version` shows it. */
async function timeUpdate(hp: HostPage, version: number, model: ContractFormModel): Promise<number> {
  await hp.page.evaluate((text) => {
    window.__params = JSON.parse(text);
  }, JSON.stringify(updateParams(version, model)));
  return hp.page.evaluate(
    (v) =>
      new Promise<number>((resolve, reject) => {
        const t0 = window.performance.now();
        window.postMessage({ phasewise: 1, kind: 'notification', method: 'contractForm/update', params: window.__params }, '*');
        const wait = (): void =>
          window.requestAnimationFrame(() => {
            if (window.performance.now() - t0 > 30000) return reject(new Error(`the form did not show version ${v} within 30 s (update refused?)`));
            if (window.document.querySelector(`[data-version="${v}"]`) === null) return wait();
            window.requestAnimationFrame(() => resolve(window.performance.now() - t0));
          });
        wait();
      }),
    version,
  );
}

async function readyPage(): Promise<HostPage> {
  const hp = await HostPage.open('contract-form', { width: 1280, height: 900 });
  // The bundle has loaded and said ready once the channel delivers: wait for its ready message.
  for (let i = 0; i < 100 && !hp.channel.ready; i++) await new Promise((r) => setTimeout(r, 20));
  return hp;
}

export async function benchContractForm(): Promise<ContractFormBenchResult> {
  const text = buildLargeContract(500);
  const client = new ContractWorkerClient(path.join(__dirname, '..', '..', 'src', 'extension', 'contract', 'worker', 'contractWorker.js'));
  let version = 0;
  const modelOf = async (t: string): Promise<ContractFormModel> => {
    const r = await client.request('sync', { key: 'bench', version: ++version, text: t, fileName: FILE, views: { form: true, k6: false } });
    if (!r.form) throw new Error('the worker sent no form model');
    return r.form;
  };
  try {
    await modelOf(text); // the worker's start, the core's load and ajv's compile: not a first paint of the form
    const modelMs: number[] = [];
    const paintMs: number[] = [];
    let model: ContractFormModel | undefined;
    for (let i = 0; i < FRESH_PAGES; i++) {
      const t0 = performance.now();
      model = await modelOf(text);
      modelMs.push(performance.now() - t0);
      const hp = await readyPage();
      try {
        paintMs.push(await timeUpdate(hp, 1, model));
      } finally {
        await hp.close();
      }
    }
    const keystrokeHostMs: number[] = [];
    const keystrokePageMs: number[] = [];
    const hp = await readyPage();
    try {
      await timeUpdate(hp, 1, model as ContractFormModel);
      const anchor = text.indexOf('gateway: 100ms', text.indexOf('budgets:')) + 'gateway: 10'.length;
      let current = text;
      let typedAt = 0;
      let done: ((r: { m: ContractFormModel; ms: number }) => void) | undefined;
      // The editor's own scheduler: it validates once the typing pauses for its 50 ms.
      const scheduler = new ValidationScheduler(async () => {
        const validated = current;
        const m = await modelOf(validated);
        if (validated === current) done?.({ m, ms: performance.now() - typedAt });
        return m;
      });
      for (let k = 0; k < KEYSTROKES; k++) {
        current = `${current.slice(0, anchor)}${k % 10}${current.slice(anchor + 1)}`;
        const result = new Promise<{ m: ContractFormModel; ms: number }>((resolve) => (done = resolve));
        typedAt = performance.now();
        scheduler.schedule('doc');
        const r = await result;
        keystrokeHostMs.push(r.ms);
        keystrokePageMs.push(await timeUpdate(hp, k + 2, r.m));
      }
      scheduler.dispose();
    } finally {
      await hp.close();
    }
    const m = model as ContractFormModel;
    return { lines: text.split('\n').length, fields: Object.keys(m.fields).length, budgets: m.budgets.length, modelMs, paintMs, keystrokeHostMs, keystrokePageMs };
  } finally {
    client.dispose();
    await closeBrowser();
  }
}

export function contractFormLines(r: ContractFormBenchResult): string[] {
  const f = (xs: readonly number[]): string => `${median(xs).toFixed(1)} ms (median of ${xs.length}; ${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
  const sum = r.keystrokeHostMs.map((h, i) => h + r.keystrokePageMs[i]);
  return [
    `- Contract form first paint, ${r.lines}-line contract (${r.budgets} budgets, ${r.fields} fields): model in the worker ${f(r.modelMs)} + update → painted frame ${f(r.paintMs)}`,
    `- Keystroke in the text editor → the form's update (same contract): ${f(sum)} = the editor's 50 ms pause and the worker ${f(r.keystrokeHostMs)} + update → painted frame ${f(r.keystrokePageMs)}`,
  ];
}

if (require.main === module) {
  benchContractForm()
    .then((r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`);
      for (const l of contractFormLines(r)) process.stderr.write(`${l}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
