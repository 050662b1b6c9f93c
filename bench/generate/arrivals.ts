import { Prng } from '../../src/core/prng';

/**
 * Open-model arrivals: a Poisson process at `rate`/s, optionally ramping linearly from 0 over the first
 * `rampS` seconds (a non-homogeneous Poisson process, drawn by inverting its cumulative intensity
 * Λ(t): unit-exponential steps in Λ, mapped back to t). Arrival times never depend on how the system
 * responds: that is what makes the model open.
 */
export class Arrivals {
  private lambda = 0;
  private count = 0;
  private readonly rng: Prng;

  constructor(
    seed: number,
    private readonly rate: number,
    private readonly rampS: number,
    private readonly limit: { requests: number } | { durationS: number },
    private readonly wave: { amplitude: number; periodS: number } = { amplitude: 0, periodS: 60 },
  ) {
    this.rng = new Prng(seed, 1);
  }

  /** Next scheduled time in integer ns since the run start, or null when the run is over. */
  next(): number | null {
    if ('requests' in this.limit && this.count >= this.limit.requests) return null;
    const a = this.wave.amplitude;
    // A wave (rate × (1 + a·sin(2πt/P))) is drawn by thinning: candidates at rate × (1 + a), each kept
    // with probability (1 + a·sin)/(1 + a).
    const peak = this.rate * (1 + a);
    for (;;) {
      this.lambda += this.rng.exponential(1);
      const rampArea = (peak * this.rampS) / 2;
      const tS = this.lambda < rampArea ? Math.sqrt((2 * this.rampS * this.lambda) / peak) : this.rampS + (this.lambda - rampArea) / peak;
      if ('durationS' in this.limit && tS >= this.limit.durationS) return null;
      if (a > 0 && this.rng.uniform() * (1 + a) > 1 + a * Math.sin((2 * Math.PI * tS) / this.wave.periodS)) continue;
      this.count++;
      return Math.round(tS * 1e9);
    }
  }
}

/**
 * Open-model arrivals at a stepped rate: a Poisson process whose rate is `steps[i].rate` during step i
 * (drawn, like Arrivals, by inverting the piecewise-linear cumulative intensity). Ends after the last
 * step (or after `limit` requests, when given).
 */
export class SteppedArrivals {
  private lambda = 0;
  private count = 0;
  private readonly rng: Prng;

  constructor(
    seed: number,
    private readonly steps: ReadonlyArray<{ rate: number; durationS: number }>,
    private readonly limit: number | null = null,
  ) {
    this.rng = new Prng(seed, 1);
  }

  next(): number | null {
    if (this.limit !== null && this.count >= this.limit) return null;
    this.lambda += this.rng.exponential(1);
    let area = 0;
    let t0 = 0;
    for (const step of this.steps) {
      const stepArea = step.rate * step.durationS;
      if (this.lambda < area + stepArea) {
        this.count++;
        return Math.round((t0 + (this.lambda - area) / step.rate) * 1e9);
      }
      area += stepArea;
      t0 += step.durationS;
    }
    return null;
  }
}
