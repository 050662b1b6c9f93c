/**
 * Steps of the arrival rate, found in the schedule when the contract declares no stages. The starts
 * are counted per bin (1 s, coarser for runs past ~2000 s) in one SQL statement, by scheduled time when
 * the records carry it (the generator's plan, which a slow system does not move) and else by send
 * time. The bins are cut by binary segmentation of a Poisson rate (a cut is kept when it raises the
 * log-likelihood by more than 3·ln(bins)); neighbours whose rates differ by less than 10 % are joined
 * again, and each piece is tested for a trend (a ramp or a wave is not a step; a step lasts 20 bins or more). The run is stepped when
 * at least two flat pieces with different rates cover at least 80 % of it and the rate jumps between
 * neighbouring flat pieces: their fitted lines, carried to the boundary, still differ by at least half
 * the difference of their means (a ramp cut into pieces joins up there).
 */
import type { StageWindow } from '../options';
import type { QueryRunner } from '../../store/duckStore';
import { SqlParams } from '../sql/params';
import { query } from '../sql/statement';

/** A piece of the arrival rate: its bins [from, to) and whether its rate holds. */
export interface RatePiece {
  fromBin: number;
  toBin: number;
  /** Starts per bin over the piece. */
  perBin: number;
  /** Least-squares slope of the starts per bin (per bin). */
  slope: number;
  flat: boolean;
}

export interface DetectedSteps {
  basis: 'scheduled' | 'send';
  binMs: number;
  /** The stages when the run is stepped, else empty. */
  stages: StageWindow[];
  /** Why the run is not stepped (empty when it is). */
  why: string;
}

/** Shortest piece, in bins (10 s at 1 s bins). */
const MIN_PIECE_BINS = 10;
/**
 * A step holds at least this many bins (20 s at 1 s bins): a shorter piece that looks flat is more often
 * part of a ramp whose drift the Poisson noise hides (an open ramp of 40 s cuts into 15, 17 and 88 s).
 */
const MIN_STEP_BINS = 20;
/** Neighbouring pieces whose rates differ by less than this share of the larger are one. */
const MIN_STEP = 0.1;
/** At most this many bins (the bin grows past it). */
const MAX_BINS = 2000;
/** Flat pieces must cover this share of the run. */
const MIN_FLAT_COVER = 0.8;

/** Reads the starts per bin and finds the steps. */
export async function detectSteps(store: QueryRunner): Promise<DetectedSteps> {
  const [known] = await query<{ scheduled: number | bigint; sent: number | bigint; last_scheduled: number | null; last_sent: number | null }>(
    store,
    'stage detection extent',
    `SELECT count(*) FILTER (WHERE isfinite(scheduled_offset_ms) AND scheduled_offset_ms >= 0) AS scheduled,
            count(*) FILTER (WHERE isfinite(offset_ms) AND offset_ms >= 0) AS sent,
            max(scheduled_offset_ms) FILTER (WHERE isfinite(scheduled_offset_ms) AND scheduled_offset_ms >= 0) AS last_scheduled,
            max(offset_ms) FILTER (WHERE isfinite(offset_ms) AND offset_ms >= 0) AS last_sent
     FROM request_breakdown`,
  );
  const scheduled = Number(known?.scheduled ?? 0);
  const sent = Number(known?.sent ?? 0);
  // The schedule when most starts carry it (every per-request record does); k6 output has only sends.
  const basis: 'scheduled' | 'send' = scheduled > 0 && scheduled >= 0.5 * sent ? 'scheduled' : 'send';
  const column = basis === 'scheduled' ? 'scheduled_offset_ms' : 'offset_ms';
  const last = Number((basis === 'scheduled' ? known?.last_scheduled : known?.last_sent) ?? NaN);
  if (!Number.isFinite(last) || last <= 0) return { basis, binMs: 1000, stages: [], why: 'the run has no starts to find steps in' };
  const binMs = Math.max(1, Math.ceil(last / 1000 / MAX_BINS)) * 1000;
  const params = new SqlParams();
  const rows = await query<{ bin: number | bigint; n: number | bigint }>(
    store,
    'stage detection bins',
    `SELECT CAST(floor(${column} / ${params.bind(binMs)}::DOUBLE) AS BIGINT) AS bin, count(*) AS n
     FROM request_breakdown WHERE isfinite(${column}) AND ${column} >= 0 GROUP BY bin ORDER BY bin`,
    params.values,
  );
  const lastBin = Math.floor(last / binMs);
  const counts = new Array<number>(lastBin + 1).fill(0);
  for (const r of rows) counts[Number(r.bin)] = Number(r.n);
  // The bin holding the last start is cut short wherever the run ended inside it: its count would
  // read as a lower rate, and the last stage would run past the end of the run (and read partial).
  // The rate is segmented over the whole bins before it, and the last stage ends where the run did.
  const whole = lastBin >= 1 ? counts.slice(0, lastBin) : counts;
  const found = stepsOf(segmentRate(whole), whole.length, binMs);
  const final = found.stages[found.stages.length - 1];
  if (final !== undefined) final.endMs = runEnd(last, final, whole, binMs, (lastBin + 1) * binMs);
  return { basis, binMs, ...found };
}

/**
 * Where the run ended: its last start plus the mean interval between starts of the last stage (the
 * expected wait for the start that did not come), whole ms, never before the stage's whole bins nor
 * past the end of the bin that holds the last start. The records do not say when the schedule
 * stopped; a run planned in whole seconds then ends within a few intervals of a bin boundary.
 */
function runEnd(last: number, stage: StageWindow, counts: readonly number[], binMs: number, binEnd: number): number {
  const from = stage.startMs / binMs;
  const starts = counts.slice(from).reduce((a, c) => a + c, 0);
  const gapMs = starts > 0 ? (counts.length - from) * binMs / starts : binMs;
  return Math.max(counts.length * binMs, Math.min(binEnd, Math.ceil(last + gapMs)));
}

/** Stages from the pieces when they make a stepped run, else why not. */
export function stepsOf(pieces: readonly RatePiece[], bins: number, binMs: number): { stages: StageWindow[]; why: string } {
  const flat = pieces.filter((p) => p.flat);
  const cover = flat.reduce((a, p) => a + p.toBin - p.fromBin, 0) / Math.max(1, bins);
  if (pieces.length < 2) return { stages: [], why: 'the arrival rate holds steady over the run (one step)' };
  const joined = pieces.findIndex((p, i) => i > 0 && p.flat && pieces[i - 1].flat && !jumps(pieces[i - 1], p));
  if (flat.length < 2 || cover < MIN_FLAT_COVER || joined > 0) {
    const how = joined > 0 ? `the rate at ${(pieces[joined].fromBin * binMs) / 1000} s moves on without a jump` : `flat pieces cover ${Math.round(cover * 100)} % of the run`;
    return { stages: [], why: `the arrival rate changes, but not in flat steps (${how}): a ramp or a wave, not a stepped run` };
  }
  const stages = pieces.map((p, i) => {
    const perS = (p.perBin * 1000) / binMs;
    const rate = perS >= 10 ? perS.toFixed(0) : perS.toFixed(1);
    const stage: StageWindow = { label: `stage ${i + 1} (${p.flat ? '' : 'ramp, '}${rate}/s)`, startMs: p.fromBin * binMs, endMs: p.toBin * binMs };
    // A flat piece's target is its own scheduled rate; a ramp's is left unknown (no one rate).
    if (p.flat) stage.targetFromPerS = stage.targetToPerS = perS;
    return stage;
  });
  return { stages, why: '' };
}

/** Whether the rate jumps from piece `a` to the next piece `b`: their lines at the boundary differ by half the means' difference or more. */
function jumps(a: RatePiece, b: RatePiece): boolean {
  const edge = a.toBin - 0.5;
  const left = a.perBin + a.slope * (edge - (a.fromBin + a.toBin - 1) / 2);
  const right = b.perBin + b.slope * (edge - (b.fromBin + b.toBin - 1) / 2);
  return Math.abs(right - left) >= 0.5 * Math.abs(b.perBin - a.perBin);
}

/** Poisson log-likelihood of `n` starts over `len` bins at their own rate (without the constant −n). */
function logLik(n: number, len: number): number {
  return n > 0 ? n * Math.log(n / len) : 0;
}

/** The pieces of a series of counts per bin: binary segmentation, then neighbours joined, then the trend test. */
export function segmentRate(counts: readonly number[]): RatePiece[] {
  const prefix = [0];
  for (const c of counts) prefix.push(prefix[prefix.length - 1] + c);
  const sum = (a: number, b: number): number => prefix[b] - prefix[a];
  const penalty = 3 * Math.log(Math.max(2, counts.length));
  const cuts: number[] = [];
  const split = (a: number, b: number): void => {
    if (b - a < 2 * MIN_PIECE_BINS) return;
    const whole = logLik(sum(a, b), b - a);
    let best = -Infinity;
    let at = -1;
    for (let k = a + MIN_PIECE_BINS; k <= b - MIN_PIECE_BINS; k++) {
      const gain = logLik(sum(a, k), k - a) + logLik(sum(k, b), b - k) - whole;
      if (gain > best) [best, at] = [gain, k];
    }
    if (best <= penalty) return;
    cuts.push(at);
    split(a, at);
    split(at, b);
  };
  split(0, counts.length);
  let bounds = [0, ...cuts.sort((x, y) => x - y), counts.length];
  // Join neighbours whose rates are within MIN_STEP of each other (the closest pair first).
  for (;;) {
    let join = -1;
    let closest = Infinity;
    for (let i = 1; i < bounds.length - 1; i++) {
      const left = sum(bounds[i - 1], bounds[i]) / (bounds[i] - bounds[i - 1]);
      const right = sum(bounds[i], bounds[i + 1]) / (bounds[i + 1] - bounds[i]);
      const diff = Math.abs(left - right) / Math.max(left, right, 1e-12);
      if (diff < MIN_STEP && diff < closest) [closest, join] = [diff, i];
    }
    if (join < 0) break;
    bounds = bounds.filter((_, i) => i !== join);
  }
  const pieces: RatePiece[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [a, b] = [bounds[i], bounds[i + 1]];
    const part = counts.slice(a, b);
    pieces.push({ fromBin: a, toBin: b, perBin: sum(a, b) / (b - a), slope: trend(part).slope, flat: b - a >= MIN_STEP_BINS && isFlat(part) });
  }
  return pieces;
}

/**
 * No trend: the least-squares slope changes the rate by less than 10 % of its mean across the piece,
 * or is within 3 standard errors of zero (a Poisson count's noise).
 */
export function isFlat(counts: readonly number[]): boolean {
  const { slope, se, mean } = trend(counts);
  if (counts.length < 3 || mean === 0) return true;
  const change = Math.abs(slope) * (counts.length - 1);
  return change < MIN_STEP * mean || Math.abs(slope) <= 3 * se;
}

/** Least-squares line through the counts: its slope per bin, the slope's standard error, the mean. */
function trend(counts: readonly number[]): { slope: number; se: number; mean: number } {
  const n = counts.length;
  const mean = n > 0 ? counts.reduce((a, b) => a + b, 0) / n : 0;
  if (n < 3) return { slope: 0, se: 0, mean };
  const meanX = (n - 1) / 2;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (i - meanX) ** 2;
    sxy += (i - meanX) * (counts[i] - mean);
  }
  const slope = sxy / sxx;
  let rss = 0;
  for (let i = 0; i < n; i++) rss += (counts[i] - mean - slope * (i - meanX)) ** 2;
  return { slope, se: Math.sqrt(rss / (n - 2) / sxx), mean };
}
