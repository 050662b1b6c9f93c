/**
 * Seeded pseudo-random numbers, for the run generator (bench/generate) and compare's bootstrap.
 * xoshiro128** (32-bit state words, so every step is exact in JavaScript integer arithmetic) seeded
 * through splitmix32, which spreads even a small seed over the whole state. Same seed → same sequence
 * on every platform, which is what makes the generated runs byte-identical and a seeded comparison
 * repeatable.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | null = null;

  constructor(seed: number, stream = 0) {
    let s = (seed ^ Math.imul(stream + 1, 0x9e3779b9)) >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** Next raw 32-bit unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in the open interval (0, 1): never 0, so `log(u)` is always finite. */
  uniform(): number {
    return (this.nextU32() + 0.5) / 4294967296;
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.uniform() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return p > 0 && this.uniform() < p;
  }

  /** Standard normal (Box–Muller, the spare value kept for the next call). */
  normal(): number {
    if (this.spareNormal !== null) {
      const v = this.spareNormal;
      this.spareNormal = null;
      return v;
    }
    const r = Math.sqrt(-2 * Math.log(this.uniform()));
    const theta = 2 * Math.PI * this.uniform();
    this.spareNormal = r * Math.sin(theta);
    return r * Math.cos(theta);
  }

  /** Lognormal with the given median and shape σ: heavy right tail, always positive. */
  lognormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Exponential with the given mean (Poisson inter-arrival gaps). */
  exponential(mean: number): number {
    return -Math.log(this.uniform()) * mean;
  }

  /** `count` random bytes as lower-case hex (W3C trace/span IDs); never all zero. */
  hex(bytes: 8 | 16): string {
    let out = '';
    let any = 0;
    for (let i = 0; i < bytes / 4; i++) {
      const word = this.nextU32();
      any |= word;
      out += (word + 0x100000000).toString(16).slice(1);
    }
    return any === 0 ? this.hex(bytes) : out;
  }

  /** Picks an index by weight. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let u = this.uniform() * total;
    for (let i = 0; i < weights.length; i++) {
      u -= weights[i];
      if (u < 0) return i;
    }
    return weights.length - 1;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
