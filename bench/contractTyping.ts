/**
 * Keystroke → diagnostics on a 500-line contract, the way the editor produces them (docs/performance.md: ≤ 150 ms
 * after the last keystroke, the host's event loop never held > 50 ms): simulated typing bursts feed
 * the extension's own ValidationScheduler (src/extension/contract/scheduler.ts), which validates once
 * per pause, one validation in flight at a time.
 * A 5 ms ticker on the same thread measures how long the loop was held.
 */
import { performance } from 'perf_hooks';
import { Prng } from '../src/core/prng';
import { ValidationScheduler, VALIDATION_DELAY_MS } from '../src/extension/contract/scheduler';

export interface TypingOptions {
  /** Typing bursts per variant (each: 3–8 keystrokes 40–160 ms apart, then a 400 ms pause). */
  bursts: number;
  seed: number;
  delayMs?: number;
}

/** One way of validating a text (on this thread, or a round trip to the worker); resolves to the diagnostics count. */
export interface TypingVariant {
  name: string;
  validate: (text: string) => number | Promise<number>;
}

export interface TypingResult {
  variant: string;
  delayMs: number;
  bursts: number;
  keystrokes: number;
  validations: number;
  /** Last keystroke of a burst → diagnostics of exactly that text published. */
  latencyMedianMs: number;
  latencyP95Ms: number;
  latencyMaxMs: number;
  /** One validation's wall time (on this thread the event loop is held for all of it; for a worker, the round trip). */
  validateMedianMs: number;
  validateP95Ms: number;
  validateMaxMs: number;
  /** The synchronous part of one validation on this thread (all of it, or posting to the worker): what our code holds the loop for. */
  hostMedianMs: number;
  hostMaxMs: number;
  /** Longest gap between 5 ms ticks beyond their interval: the longest the loop was held. */
  maxHeldMs: number;
  /** The same gap's 99th percentile over all ticks. */
  heldP99Ms: number;
}

export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (pos - lo);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Tally {
  latencies: number[];
  validations: number[];
  host: number[];
  keystrokes: number;
  /** Every tick's lateness beyond its 5 ms interval. */
  held: number[];
}

/**
 * Types into `text` at a budget value (digits) and in the contract's name (letters), alternating the
 * variants burst by burst so both see the same machine load.
 */
export async function benchTyping(text: string, variants: readonly TypingVariant[], options: TypingOptions): Promise<TypingResult[]> {
  const delayMs = options.delayMs ?? VALIDATION_DELAY_MS;
  const rng = new Prng(options.seed);
  const tallies = variants.map((): Tally => ({ latencies: [], validations: [], host: [], keystrokes: 0, held: [] }));
  const digitAt = text.indexOf('gateway: 100ms', text.indexOf('budgets:')) + 'gateway: 10'.length;
  const nameAt = text.indexOf('\n', text.indexOf('name: '));
  let current = text;
  let active = 0;
  let lastKeystroke = 0;
  let lastTyped = '';
  const scheduler = new ValidationScheduler(async () => {
    const t = tallies[active];
    const validated = current;
    const s = performance.now();
    const r = variants[active].validate(validated);
    t.host.push(performance.now() - s);
    const count = await r;
    const e = performance.now();
    t.validations.push(e - s);
    if (validated === lastTyped) t.latencies.push(e - lastKeystroke);
    return count;
  }, delayMs);
  for (let burst = 0; burst < options.bursts * variants.length; burst++) {
    active = burst % variants.length;
    const t = tallies[active];
    let lastTick = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      t.held.push(Math.max(0, now - lastTick - 5));
      lastTick = now;
    }, 5);
    const keys = rng.int(3, 8);
    const inName = burst % 4 === 3;
    for (let k = 0; k < keys; k++) {
      await sleep(rng.int(40, 160));
      const at = inName ? nameAt : digitAt;
      const ch = inName ? String.fromCharCode(97 + rng.int(0, 25)) : String(rng.int(0, 9));
      // Digits overwrite one digit (the budget stays a valid duration); letters append to the name.
      current = inName ? current.slice(0, at) + ch + current.slice(at) : current.slice(0, at) + ch + current.slice(at + 1);
      lastTyped = current;
      lastKeystroke = performance.now();
      t.keystrokes++;
      scheduler.schedule('doc');
    }
    await sleep(400);
    clearInterval(ticker);
    if (inName) current = text; // keep the name from growing without bound
  }
  scheduler.dispose();
  return variants.map((v, i) => {
    const t = tallies[i];
    return {
      variant: v.name,
      delayMs,
      bursts: options.bursts,
      keystrokes: t.keystrokes,
      validations: t.validations.length,
      latencyMedianMs: quantile(t.latencies, 0.5),
      latencyP95Ms: quantile(t.latencies, 0.95),
      latencyMaxMs: Math.max(...t.latencies),
      validateMedianMs: quantile(t.validations, 0.5),
      validateP95Ms: quantile(t.validations, 0.95),
      validateMaxMs: Math.max(...t.validations),
      hostMedianMs: quantile(t.host, 0.5),
      hostMaxMs: Math.max(...t.host),
      maxHeldMs: Math.max(...t.held),
      heldP99Ms: quantile(t.held, 0.99),
    };
  });
}

export function typingLine(r: TypingResult): string {
  const f = (n: number): string => n.toFixed(1);
  return `${r.variant}: ${r.keystrokes} keystrokes in ${r.bursts} bursts, ${r.validations} validations after a ${r.delayMs} ms pause; `
    + `last keystroke → diagnostics median ${f(r.latencyMedianMs)} ms, p95 ${f(r.latencyP95Ms)} ms, max ${f(r.latencyMaxMs)} ms; `
    + `one validation median ${f(r.validateMedianMs)} ms, p95 ${f(r.validateP95Ms)} ms, max ${f(r.validateMaxMs)} ms, of it on this thread median ${r.hostMedianMs.toFixed(2)} ms, max ${f(r.hostMaxMs)} ms; `
    + `5 ms ticks late p99 ${f(r.heldP99Ms)} ms, max ${f(r.maxHeldMs)} ms`;
}
