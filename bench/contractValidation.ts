/**
 * Contract validation on a realistic 500-line contract (many budgets and prompt shapes): the cost of
 * one validation after a single-character edit, and keystroke → diagnostics through the editor's
 * scheduler and contract worker (contractTyping.ts; docs/performance.md: ≤ 150 ms after the last keystroke).
 * Run: npx tsc -p tsconfig.test.json && node out/bench/contractValidation.js [iterations] [warmup] [bursts]
 */
import { parseContract } from '../src/core/contract';
import { CONTRACT_TEMPLATE } from '../src/core/contract/template';
import { ContractWorkerClient } from '../src/extension/contract/worker/contractClient';
import { benchTyping, typingLine, type TypingResult, type TypingVariant } from './contractTyping';
export { typingLine } from './contractTyping';

export interface ContractValidationBench {
  lines: number;
  iterations: number;
  /** Untimed edits validated before timing starts. */
  warmup: number;
  firstMs: number;
  wallMedianMs: number;
  wallP95Ms: number;
  cpuMeanMs: number;
}

/** A valid contract of about `targetLines` lines: the template plus budgets per model × region. */
export function buildLargeContract(targetLines = 500): string {
  const lines = CONTRACT_TEMPLATE.split('\n');
  const budgetsAt = lines.findIndex((l) => l.startsWith('budgets:'));
  const extra: string[] = [];
  for (let i = 0; lines.length + extra.length < targetLines; i++) {
    extra.push(
      `  - allocates: total_ms.p95`,
      `    when:`,
      `      model_class: my-model`,
      `      region: region-${i}`,
      `      rate: 10`,
      `      window: steady`,
      `    phases:`,
      `      network_envelope: ${150 + (i % 5) * 10}ms`,
      `      gateway: 100ms`,
      `      gpu_queue: 400ms`,
      `      generation: ${1300 - (i % 5) * 10}ms`,
      `      unattributed_server: 50ms`,
    );
  }
  lines.splice(budgetsAt + 1, 0, ...extra);
  return lines.slice(0, Math.max(targetLines, lines.length)).join('\n');
}

function quantile(sorted: number[], p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (pos - lo);
}

/**
 * `warmup` untimed edits run first: in the editor every keystroke re-validates, so after the first few
 * the code is JIT-optimized; timing the first dozen (interpreted, often 5–30 ms) would measure V8's
 * tiering rather than a keystroke. The first parse is reported separately as `firstMs`.
 */
export function benchContractValidation(iterations = 200, warmup = 50): ContractValidationBench {
  const text = buildLargeContract(500);
  const t0 = performance.now();
  parseContract(text, 'bench.loadcontract.yaml'); // includes schema compilation, paid once per session
  const firstMs = performance.now() - t0;
  const anchor = text.indexOf('gateway: 100ms', text.indexOf('budgets:'));
  // One keystroke: change a digit inside a budget value (100ms → 101ms …), as typing would.
  const edit = (i: number): string => `${text.slice(0, anchor + 9)}${i % 10}${text.slice(anchor + 10)}`;
  for (let i = 0; i < warmup; i++) parseContract(edit(i), 'bench.loadcontract.yaml');
  const wall: number[] = [];
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const edited = edit(i);
    const s = performance.now();
    parseContract(edited, 'bench.loadcontract.yaml');
    wall.push(performance.now() - s);
  }
  const cpu = process.cpuUsage(cpuStart);
  wall.sort((a, b) => a - b);
  return {
    lines: text.split('\n').length,
    iterations,
    warmup,
    firstMs,
    wallMedianMs: quantile(wall, 0.5),
    wallP95Ms: quantile(wall, 0.95),
    cpuMeanMs: (cpu.user + cpu.system) / 1000 / iterations,
  };
}

const FILE = 'bench.loadcontract.yaml';

export interface ContractTypingBench {
  /** The first validation through a fresh worker: thread start, the core's load, ajv's schema compile, the parse. */
  firstInWorkerMs: number;
  results: TypingResult[];
}

/** Keystroke → diagnostics for each variant, interleaved burst by burst; the worker is the extension's own. */
export async function benchContractTyping(bursts = 16, seed = 7): Promise<ContractTypingBench> {
  const text = buildLargeContract(500);
  parseContract(text, FILE); // schema compilation and first-use costs are paid before typing starts
  const client = new ContractWorkerClient();
  let version = 0;
  const inWorker = async (t: string): Promise<number> => {
    const r = await client.request('sync', { key: 'bench', version: ++version, text: t, fileName: FILE, views: { form: false, k6: false } });
    return r.diagnostics.length;
  };
  const t0 = performance.now();
  await inWorker(text);
  const firstInWorkerMs = performance.now() - t0;
  try {
    // The control validates nothing: what the busy machine alone does to the same timers.
    const control: TypingVariant = { name: 'control (no validation)', validate: () => 0 };
    // On the host thread: what the editor would cost the event loop without the worker.
    const onHost: TypingVariant = { name: 'on the host thread', validate: (t) => parseContract(t, FILE).diagnostics.length };
    const results = await benchTyping(text, [{ name: 'in the contract worker (the editor)', validate: inWorker }, onHost, control], { bursts, seed });
    return { firstInWorkerMs, results };
  } finally {
    client.dispose();
  }
}

if (require.main === module) {
  const r = benchContractValidation(Number(process.argv[2] ?? 200), Number(process.argv[3] ?? 50));
  process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  void benchContractTyping(Number(process.argv[4] ?? 16)).then((r) => {
    process.stdout.write(`first validation through a fresh worker: ${r.firstInWorkerMs.toFixed(0)} ms\n`);
    for (const t of r.results) process.stdout.write(`${typingLine(t)}\n`);
  });
}
