/**
 * `phasewise compare BASE HEAD`: two runs loaded with `phasewise analyze --db` compared per owner with
 * bootstrap intervals (core/compare), optionally gated with --fail-on for CI.
 */
import { existsSync } from 'fs';
import type { AnalysisOptions } from '../../core/analysis/options';
import { compareRuns, DEFAULT_COMPARE_SETTINGS, inputsOf, type ComparedRun } from '../../core/compare/compareRuns';
import type { ExperimentFacts } from '../../core/compare/experiment';
import { evaluateFailOn, parseFailOn, type FailOnResult, type FailOnRule } from '../../core/compare/failOn';
import { renderComparison } from '../../core/compare/render';
import { loadContractFile } from '../../core/contract/index';
import { InputError } from '../../core/errors';
import { analysisFor } from '../../core/run/analyzeFiles';
import { pairMetricColumns } from '../../core/views/requestViews';
import { openRunViews, viewContext, type RunViews } from '../../core/views/session';
import { flagList, flagPositiveInt, flagString, parseArgs, parseDurationMs, UsageError, type FlagSpec } from '../args';
import { EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS } from '../exitCodes';
import { note, writeStdout } from '../output';
import { checkOutputPath, writeOutputFile } from '../outputFile';
import { storeFlags } from '../session';

const COMPARE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  contract: { kind: 'string' },
  'base-contract': { kind: 'string' },
  'head-contract': { kind: 'string' },
  window: { kind: 'string' },
  resamples: { kind: 'string' },
  'block-length': { kind: 'string' },
  seed: { kind: 'string' },
  confidence: { kind: 'string' },
  'fail-on': { kind: 'list' },
  format: { kind: 'string', alias: 'f' },
  out: { kind: 'string', alias: 'o' },
  'memory-limit': { kind: 'string' },
  threads: { kind: 'string' },
  help: { kind: 'boolean', alias: 'h' },
};

/** Resamples above this are a typo: each one sorts a resample of every owner's values (minutes at 1M). */
const MAX_RESAMPLES = 1_000_000;

export const COMPARE_USAGE = `usage: phasewise compare BASE HEAD [options]
  BASE and HEAD: runs loaded with 'phasewise analyze --db FILE' (each opened read-only)
  per owner and p50/p95/p99: both runs' quantiles (matched successes, as in the report), HEAD − BASE and
  a percentile interval from a circular block bootstrap of each run (blocks of consecutive seconds of
  send time, since requests that queue together are not independent); 'moved' lists the intervals that
  exclude zero; the outcome ledgers and join coverage side by side; the contracts' workload, request
  and trace sections, the inputs and the analysis settings are diffed (same experiment?)
  --contract FILE        the contract of both runs; --base-contract/--head-contract FILE for one each
  --window DURATION      window size, as for analyze
  --resamples N          bootstrap resamples (default ${DEFAULT_COMPARE_SETTINGS.resamples}); --seed N (default ${DEFAULT_COMPARE_SETTINGS.seed})
  --block-length DURATION  the block (whole seconds, e.g. 10s); default: the Politis–White rule on each
                         metric's per-second mean, the largest over both runs (printed with the intervals)
  --confidence C         interval confidence, 0.5-0.999 (default ${DEFAULT_COMPARE_SETTINGS.confidence})
  --fail-on RULE...      METRIC.STAT>+N% or METRIC.STAT>+Nms, e.g. 'gpu_queue_ms.p95>+10%': exit 1 when
                         the whole interval is above the threshold, 2 when only the point difference is
                         (or the runs are different experiments), 0 otherwise
  --format text|json     (default text); --out FILE writes it to FILE
  --memory-limit SIZE, --threads N   DuckDB's memory limit and threads, as for analyze
  json: same_experiment, differences, moved [{metric, stat, base, head, delta, ci_low, ci_high}],
        metrics, base/head {outcomes, join}, resamples, confidence, seed, interval_assumption,
        block {length_s, bin_s, rule, blocks_base, blocks_head}, fail_on
`;

export async function runCompare(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, COMPARE_FLAGS);
  if (args.flags.has('help')) {
    await writeStdout(COMPARE_USAGE);
    return EXIT_PASS;
  }
  if (args.positional.length !== 2) throw new UsageError(`compare needs BASE and HEAD (two --db files), got ${args.positional.length} argument${args.positional.length === 1 ? '' : 's'}`);
  const [baseDb, headDb] = args.positional;
  const format = flagString(args, 'format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format expects text or json, got '${format}'`);
  const both = flagString(args, 'contract');
  const baseContract = flagString(args, 'base-contract') ?? both;
  const headContract = flagString(args, 'head-contract') ?? both;
  const settings = {
    resamples: flagPositiveInt(args, 'resamples', MAX_RESAMPLES) ?? DEFAULT_COMPARE_SETTINGS.resamples,
    seed: parseSeed(flagString(args, 'seed')),
    confidence: parseConfidence(flagString(args, 'confidence')),
    blockLengthS: parseBlockLength(flagString(args, 'block-length')),
  };
  const memory = storeFlags(args);
  const window = flagString(args, 'window');
  const windowMs = window === undefined ? undefined : parseDurationMs(window, '--window');

  const baseOptions = await optionsFor(baseContract, windowMs);
  const headOptions = await optionsFor(headContract, windowMs);
  const known = pairMetricColumns(viewContext(baseOptions).phaseColumns).map((c) => c.name);
  const rules = flagList(args, 'fail-on').map((text): FailOnRule => {
    const rule = parseFailOn(text, known);
    if (typeof rule === 'string') throw new UsageError(rule);
    return rule;
  });

  const out = flagString(args, 'out');
  if (out !== undefined) await checkOutputPath(out);

  const opened: RunViews[] = [];
  try {
    const open = async (db: string, label: string, options: AnalysisOptions, contract: string | undefined): Promise<ComparedRun> => {
      const views = await openRunViews(db, options, { untrustedQueries: true, onAnalyse: note, memory });
      opened.push(views);
      const facts: ExperimentFacts = {
        contract: await contractSections(contract),
        inputs: await inputsOf(views),
        analysis: { windowSizeMs: options.windowSizeMs, phases: views.context.phaseColumns.slice() },
      };
      return { label, views, facts };
    };
    const base = await open(baseDb, baseDb, baseOptions, baseContract);
    const head = await open(headDb, headDb, headOptions, headContract);
    const comparison = await compareRuns(base, head, settings);
    const gates = rules.map((r) => evaluateFailOn(r, comparison));
    const text = format === 'json' ? `${JSON.stringify({ ...comparison, fail_on: gates }, jsonSafe, 2)}\n` : renderComparison(comparison, gates);
    if (out !== undefined) await writeOutputFile(out, text);
    else await writeStdout(text);
    return exitCode(gates, comparison.same_experiment);
  } finally {
    for (const v of opened) await v.close();
  }
}

function exitCode(gates: readonly FailOnResult[], same: boolean): number {
  if (gates.length === 0) return EXIT_PASS;
  if (gates.some((g) => g.status === 'fail')) return EXIT_FAIL;
  // A pass between different experiments says nothing about the release.
  if (!same || gates.some((g) => g.status === 'inconclusive')) return EXIT_INCONCLUSIVE;
  return EXIT_PASS;
}

function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? null : value;
}

async function optionsFor(contract: string | undefined, windowMs: number | undefined): Promise<AnalysisOptions> {
  if (contract !== undefined && !existsSync(contract)) throw new InputError(contract, undefined, 'an existing load contract file', 'no such file');
  const { options, notes } = await analysisFor(contract);
  for (const line of notes) note(line);
  if (windowMs !== undefined) options.windowSizeMs = windowMs;
  return options;
}

async function contractSections(file: string | undefined): Promise<ExperimentFacts['contract']> {
  if (file === undefined) return undefined;
  const { contract } = await loadContractFile(file);
  if (!contract) throw new InputError(file, undefined, 'a load contract', 'a file that is not one');
  return { workload: contract.workload, request: contract.request, trace: contract.trace };
}

function parseSeed(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_COMPARE_SETTINGS.seed;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 0xffffffff) throw new UsageError(`--seed expects an integer 0-4294967295, got '${raw}'`);
  return Number(raw);
}

function parseBlockLength(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseDurationMs(raw, '--block-length');
  if (!(ms >= 1000) || ms % 1000 !== 0) throw new UsageError(`--block-length expects whole seconds of at least 1s (the blocks are made of 1 s bins), got '${raw}'`);
  return ms / 1000;
}

function parseConfidence(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_COMPARE_SETTINGS.confidence;
  const c = Number(raw);
  if (!(c >= 0.5 && c <= 0.999)) throw new UsageError(`--confidence expects a number from 0.5 to 0.999, got '${raw}'`);
  return c;
}
