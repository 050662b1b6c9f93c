/**
 * Seeded random numbers for the bootstrap: xoshiro128** seeded through splitmix32 (exact in 32-bit
 * integer arithmetic, so a seed gives the same intervals on every platform), with the gamma and beta
 * draws the order-statistic bootstrap needs (bootstrap.ts).
 */
export class Rng {
  private s: Uint32Array;

  constructor(seed: number) {
    let x = seed >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s = new Uint32Array([next(), next(), next(), next()]);
    if ((this.s[0] | this.s[1] | this.s[2] | this.s[3]) === 0) this.s[0] = 1;
  }

  private u32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Uniform on (0, 1): never 0 or 1, so logarithms and powers stay finite. */
  uniform(): number {
    return (this.u32() + 0.5) / 4294967296;
  }

  /** An integer uniform on [0, n). */
  below(n: number): number {
    return Math.floor(this.uniform() * n);
  }

  normal(): number {
    // Box–Muller; one value per call keeps the stream simple to reason about.
    return Math.sqrt(-2 * Math.log(this.uniform())) * Math.cos(2 * Math.PI * this.uniform());
  }

  /** Gamma(shape, 1), Marsaglia–Tsang (shape < 1 through the boost u^(1/shape)). */
  gamma(shape: number): number {
    if (shape < 1) return this.gamma(shape + 1) * Math.pow(this.uniform(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.uniform();
      if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
    }
  }

  /** Beta(a, b) as Ga / (Ga + Gb). */
  beta(a: number, b: number): number {
    const x = this.gamma(a);
    return x / (x + this.gamma(b));
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
