import { Prng } from '../../src/core/prng';

/**
 * Fresh trace and span IDs for each copy of a real run: every source ID gets its own random ID in
 * every copy (seeded, so the same options write the same files). A copy's map is built once, in the
 * order the source IDs were first seen, so copy c's IDs do not depend on how the lines interleave.
 */
export class CopyIds {
  private readonly prng: Prng;

  constructor(seed: number, private readonly traceIds: readonly string[], private readonly spanIds: readonly string[]) {
    this.prng = new Prng(seed, 11);
  }

  /** The next copy's maps (source ID → fresh ID). */
  next(): { trace: Map<string, string>; span: Map<string, string> } {
    const trace = new Map<string, string>();
    const span = new Map<string, string>();
    for (const id of this.traceIds) trace.set(id, this.prng.hex(16));
    for (const id of this.spanIds) span.set(id, this.prng.hex(8));
    return { trace, span };
  }
}
