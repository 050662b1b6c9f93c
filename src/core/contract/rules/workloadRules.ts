/** Semantic rules on the workload: plateau, warm-up, arrival model, rate units, Little's law. */
import type { ContractContext } from './context';
import { DEFAULT_WINDOW_MS, isArrivalExecutor, MAX_WINDOW_MS, MIN_PLATEAU_MS, MIN_WINDOW_MS } from '../defaults';
import { formatDuration } from '../parse/durations';
import { inFlightEstimate } from '../form/workload';
import { formatNumber, timeUnitMs } from './quantities';

const W = '/workload';

function checkPlateau(ctx: ContractContext): void {
  const plateau = ctx.ms(`${W}/plateau`);
  const executor = ctx.str(`${W}/executor`);
  if (plateau === undefined) {
    if ((executor === 'constant-arrival-rate' || executor === 'constant-vus') && !ctx.has(`${W}/plateau`)) {
      ctx.at(`${W}/executor`, 'value', 'plateau-missing', 'error', `\`${executor}\` runs for \`workload.plateau\`; add it (at least \`10m\` for p95/p99 claims).`, {
        title: 'Add `plateau: 10m`',
        edits: [ctx.insertKey(W, 'plateau', ctx.scalar('10m'))].filter((e) => e !== undefined),
      });
    }
    return;
  }
  if (plateau < MIN_PLATEAU_MS) {
    ctx.at(`${W}/plateau`, 'value', 'plateau-too-short', 'warning', `Plateau of ${formatDuration(plateau)} is under 10 minutes: too few tail samples and too little time for queues, autoscaling and caches to settle; use at least \`10m\`.`, {
      title: 'Set plateau to `10m`',
      edits: [ctx.replaceValue(`${W}/plateau`, ctx.scalar('10m'))],
    });
  }
  const warmup = ctx.ms(`${W}/warmup_exclude`);
  if (warmup !== undefined && warmup >= plateau) {
    ctx.at(`${W}/warmup_exclude`, 'value', 'warmup-exceeds-plateau', 'error', `\`warmup_exclude\` (${formatDuration(warmup)}) is not shorter than the plateau (${formatDuration(plateau)}): the steady window would be empty; shorten the warm-up or lengthen the plateau.`);
  }
}

function checkModel(ctx: ContractContext): void {
  const executor = ctx.str(`${W}/executor`);
  const model = ctx.str(`${W}/model`);
  if (executor === undefined) return;
  const arrival = isArrivalExecutor(executor);
  const rate = ctx.num(`${W}/rate`);
  if (!arrival && (rate !== undefined || model === 'open' || model === 'hybrid')) {
    const replacement = executor === 'ramping-vus' ? 'ramping-arrival-rate' : 'constant-arrival-rate';
    const claim = rate !== undefined ? `the declared rate (${formatNumber(rate)} per ${formatDuration(timeUnitMs(ctx))})` : `an ${model} arrival model`;
    ctx.at(`${W}/executor`, 'value', 'closed-model-rate', 'error', `\`${executor}\` is a closed model: each VU waits for its response, so a slow server lowers the offered load (coordinated omission) and ${claim} is not what gets delivered; use \`${replacement}\`.`, {
      title: `Use \`${replacement}\``,
      edits: [ctx.replaceValue(`${W}/executor`, ctx.scalar(replacement))],
    });
  } else if (arrival && model === 'closed') {
    ctx.at(`${W}/model`, 'value', 'model-executor-mismatch', 'warning', `\`${executor}\` starts iterations at a rate (open model) but \`model\` says \`closed\`; set \`model: open\` (or \`hybrid\` for sessions).`, {
      title: 'Set `model: open`',
      edits: [ctx.replaceValue(`${W}/model`, ctx.scalar('open'))],
    });
  }
  if (executor === 'constant-arrival-rate' && rate === undefined && !ctx.has(`${W}/rate`)) {
    ctx.at(`${W}/executor`, 'value', 'rate-missing', 'error', '`constant-arrival-rate` needs `workload.rate` (arrivals per `time_unit`).');
  }
  if (executor === 'ramping-arrival-rate' && !ctx.has(`${W}/stages`)) {
    ctx.at(`${W}/executor`, 'value', 'stages-missing', 'error', '`ramping-arrival-rate` needs `workload.stages` (targets and durations).');
  }
}

/** Smallest k ≤ 1000 making rate·k an integer, so `rate: 2.5` becomes `rate: 5, time_unit: 2s`. */
function integerScale(rate: number): number | undefined {
  for (let k = 2; k <= 1000; k++) if (Math.abs(rate * k - Math.round(rate * k)) < 1e-9) return k;
  return undefined;
}

function checkRateUnits(ctx: ContractContext): void {
  const rate = ctx.num(`${W}/rate`);
  const unit = timeUnitMs(ctx);
  if (rate !== undefined && rate > 0 && !Number.isInteger(rate)) {
    const k = integerScale(rate);
    const edits = [ctx.replaceValue(`${W}/rate`, String(k !== undefined ? Math.round(rate * k) : Math.round(rate)))];
    if (k !== undefined) {
      const newUnit = ctx.scalar(formatDuration(unit * k));
      const unitEdit = ctx.has(`${W}/time_unit`) ? ctx.replaceValue(`${W}/time_unit`, newUnit) : ctx.insertKey(W, 'time_unit', newUnit);
      if (unitEdit) edits.push(unitEdit);
    }
    const suggestion = k !== undefined ? `write \`rate: ${Math.round(rate * k)}\` with \`time_unit: ${formatDuration(unit * k)}\`` : 'scale `rate` and `time_unit` together';
    ctx.at(`${W}/rate`, 'value', 'rate-unit-impossible', 'error', `k6 starts a whole number of iterations per \`time_unit\`, so ${formatNumber(rate)} per ${formatDuration(unit)} cannot be run; ${suggestion}.`, k !== undefined ? { title: `Use ${Math.round(rate * k)} per ${formatDuration(unit * k)}`, edits } : undefined);
  }
  const plateau = ctx.ms(`${W}/plateau`);
  if (rate !== undefined && plateau !== undefined && plateau > 0 && unit > plateau) {
    ctx.at(`${W}/time_unit`, 'value', 'rate-unit-impossible', 'error', `\`time_unit\` ${formatDuration(unit)} is longer than the ${formatDuration(plateau)} plateau: the rate is never reached as declared; use a shorter time unit (e.g. \`1s\`) and scale \`rate\`.`);
  }
  if (ctx.has(`${W}/time_unit`) && ctx.ms(`${W}/time_unit`) === 0) {
    ctx.at(`${W}/time_unit`, 'value', 'rate-unit-impossible', 'error', '`time_unit` of 0 makes the rate infinite; use e.g. `1s`.');
  }
}

function checkLittlesLaw(ctx: ContractContext): void {
  const est = inFlightEstimate(ctx);
  const maxInFlight = est?.maxInFlight;
  if (!est || maxInFlight === null || maxInFlight === undefined) return;
  const row = est.rows.find((r) => r.stat === est.basis);
  if (!row || maxInFlight >= row.needed) return;
  // The hybrid model's factor is named: one VU runs a session's calls one after another.
  const calls = est.callsPerIteration > 1 ? ` × ${formatNumber(est.callsPerIteration)} calls per session` : '';
  ctx.at(`${W}/max_in_flight`, 'value', 'in-flight-below-littles-law', 'warning', `\`max_in_flight\` ${maxInFlight} is below rate × total SLO = ${formatNumber(est.peakPerSecond)}/s × ${formatNumber(row.sloMs / 1000)} s (${row.stat})${calls} = ${formatNumber(row.inFlight)} in flight (Little's law): the generator will drop iterations exactly when latency nears the SLO; raise it to at least ${row.needed}.`, {
    title: `Set max_in_flight to ${row.needed}`,
    edits: [ctx.replaceValue(`${W}/max_in_flight`, String(row.needed))],
  });
}

/**
 * A window size or slide outside MIN_WINDOW_MS..MAX_WINDOW_MS (`size: 0s` made analyze fail); a slide
 * at or above the window size would skip time between windows (or repeat fixed windows).
 */
export function checkWindows(ctx: ContractContext): void {
  for (const key of ['size', 'slide']) {
    const ms = ctx.ms(`/windows/${key}`);
    if (ms !== undefined && !(ms >= MIN_WINDOW_MS && ms <= MAX_WINDOW_MS)) {
      ctx.at(`/windows/${key}`, 'value', 'window-size-range', 'error', `\`windows.${key}\` is ${formatDuration(ms)}: a window lasts from ${formatDuration(MIN_WINDOW_MS)} to 365 days.`);
      return;
    }
  }
  const slide = ctx.ms('/windows/slide');
  if (slide === undefined) return;
  const size = ctx.ms('/windows/size') ?? DEFAULT_WINDOW_MS;
  if (slide >= size) {
    ctx.at('/windows/slide', 'value', 'window-slide-not-shorter', 'error', `\`slide\` (${formatDuration(slide)}) must be shorter than the window \`size\` (${formatDuration(size)}): a sliding series starts a ${formatDuration(size)} window every \`slide\`; remove \`slide\` for fixed windows.`);
  }
}

export function checkWorkload(ctx: ContractContext): void {
  if (!ctx.has(W)) return;
  checkPlateau(ctx);
  checkModel(ctx);
  checkRateUnits(ctx);
  checkLittlesLaw(ctx);
}
