/**
 * Numbers a contract cannot mean. YAML reads `.inf`, `-.inf`, `.nan` and `1e999` as numbers that are
 * not finite: the schema's `type: number` and its minimums let them through, JSON has no way to write
 * them, and the k6 script got `"rate": null` from JSON.stringify. Every one is an error at its value,
 * wherever it stands (a rate, an SLO, a gate, a token band).
 */
import type { ContractContext } from './context';

export function checkFiniteNumbers(ctx: ContractContext): void {
  for (const [pointer, entry] of ctx.source.entries) {
    const value = entry.raw;
    if (typeof value !== 'number' || Number.isFinite(value)) continue;
    const r = ctx.range(pointer, 'value');
    const written = ctx.text.slice(r.start, r.end).trim();
    const what = Number.isNaN(value) ? 'not a number' : value > 0 ? 'infinite' : 'minus infinity';
    ctx.at(pointer, 'value', 'non-finite-number', 'error', `\`${pointer.slice(1).replace(/\//g, '.')}\` is ${written.length <= 40 ? written : String(value)} (${what}): a contract number must be finite; write the value meant.`);
  }
}
