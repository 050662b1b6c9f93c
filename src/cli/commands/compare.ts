/**
 * `phasewise compare BASE HEAD`: two runs (`phasewise analyze --db` files, or input sets loaded in
 * memory, compareSides.ts) compared per owner with bootstrap intervals (core/compare), optionally
 * gated with --fail-on for CI.
 */
import { existsSync } from 'fs';
import * as path from 'path';
import { compareRuns, DEFAULT_COMPARE_SETTINGS, inputsOf, type ComparedRun } from '../../core/compare/compareRuns';
import type { ExperimentFacts } from '../../core/compare/experiment';
import { evaluateFailOn, parseFailOn, type FailOnResult, type FailOnRule } from '../../core/compare/failOn';
import { renderComparison } from '../../core/compare/render';
import { loadContractFile } from '../../core/contract/index';
import { InputError } from '../../core/errors';
import { pairMetricColumns } from '../../core/views/requestViews';
import { viewContext, type RunViews } from '../../core/views/session';
import { flagList, flagPositiveInt, flagString, parseArgs, parseDurationMs, UsageError, type FlagSpec, type ParsedArgs } from '../args';
import { EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS } from '../exitCodes';
import { note, writeStdout } from '../output';
import { checkOutputPath, writeOutputFile } from '../outputFile';
import { storeFlags } from '../session';
import { openSide, resolveSide, sideAnalysis, sideFiles, type SideSpec } from './compareSides';

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
  base: { kind: 'list' },
  head: { kind: 'list' },
  'join-by': { kind: 'string' },
  'trace-tag': { kind: 'string' },
  progress: { kind: 'boolean' },
  'memory-limit': { kind: 'string' },
  threads: { kind: 'string' },
  help: { kind: 'boolean', alias: 'h' },
};

/** Resamples above this are a typo: each one sorts a resample of every owner's values (minutes at 1M). */
const MAX_RESAMPLES = 1_000_000;

export const COMPARE_USAGE = `usage: phasewise compare BASE.duckdb HEAD.duckdb [options]
       phasewise compare --base PATH... --head PATH... [options]
  BASE and HEAD: runs loaded with 'phasewise analyze --db FILE' (each opened read-only), or with
  --base/--head each side's inputs, loaded in memory for this comparison as analyze loads them and
  dropped afterwards: client artifacts and span exports sorted by content (as for analyze --run/--spans),
  and folders (their .json/.jsonl/.ndjson/.csv/.gz files, one level deep); a *.loadcontract.yaml among
  them is the side's contract unless --contract/--base-contract/--head-contract gives one. A --base or
  --head of one run database alone is that database. Two positional databases and --base/--head do
  not mix; a named file that is missing or of no known format is refused naming it (exit 4)
  per owner and p50/p95/p99: both runs' quantiles (matched successes, as in the report), HEAD − BASE and
  a percentile interval from a circular block bootstrap of each run (blocks of consecutive seconds of
  send time, since requests that queue together are not independent); 'moved' lists the intervals that
  exclude zero; the outcome ledgers and join coverage side by side; the contracts' workload, request
  and trace sections, the inputs and the analysis settings are diffed (same experiment?)
  --contract FILE        the contract of both runs; --base-contract/--head-contract FILE for one each
  --window DURATION      window size, as for analyze
  --join-by KEY          trace-id (default) or request-id[=ATTR], as for analyze (a contract's
                         trace.id_source sets it per side; a database side without either keeps
                         the key it was analysed with); the join summary is that join's
  --trace-tag NAME, --progress   as for analyze, while loading --base/--head inputs
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
        metrics, base/head {label, outcomes, join {key, key_attribute, coverage, …}}, resamples, confidence, seed, interval_assumption,
        block {length_s, bin_s, rule, blocks_base, blocks_head}, fail_on
`;

export async function runCompare(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, COMPARE_FLAGS);
  if (args.flags.has('help')) {
    await writeStdout(COMPARE_USAGE);
    return EXIT_PASS;
  }
  const [baseSpec, headSpec] = await sides(args);
  const format = flagString(args, 'format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format expects text or json, got '${format}'`);
  const settings = {
    resamples: flagPositiveInt(args, 'resamples', MAX_RESAMPLES) ?? DEFAULT_COMPARE_SETTINGS.resamples,
    seed: parseSeed(flagString(args, 'seed')),
    confidence: parseConfidence(flagString(args, 'confidence')),
    blockLengthS: parseBlockLength(flagString(args, 'block-length')),
  };
  const memory = storeFlags(args);
  const baseAnalysis = await sideAnalysis(args, baseSpec);
  const headAnalysis = await sideAnalysis(args, headSpec);
  const known = pairMetricColumns(viewContext(baseAnalysis.options).phaseColumns).map((c) => c.name);
  const rules = flagList(args, 'fail-on').map((text): FailOnRule => {
    const rule = parseFailOn(text, known);
    if (typeof rule === 'string') throw new UsageError(rule);
    return rule;
  });

  const out = flagString(args, 'out');
  if (out !== undefined) await checkOutputPath(out, [...sideFiles(baseSpec), ...sideFiles(headSpec)]);

  const opened: RunViews[] = [];
  try {
    const open = async (spec: SideSpec, resolved: typeof baseAnalysis): Promise<ComparedRun> => {
      const views = await openSide(args, spec, resolved, { untrustedQueries: true, onAnalyse: note, memory });
      opened.push(views);
      const facts: ExperimentFacts = {
        contract: await contractSections(spec.contract),
        inputs: await inputsOf(views),
        analysis: { windowSizeMs: resolved.options.windowSizeMs, phases: views.context.phaseColumns.slice() },
      };
      return { label: spec.label, views, facts };
    };
    const base = await open(baseSpec, baseAnalysis);
    const head = await open(headSpec, headAnalysis);
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

/**
 * BASE and HEAD: two positional run databases, or --base and --head (each one database alone, or input
 * files and folders). Contracts: --base-contract/--head-contract, else --contract for both, else one
 * found among a side's inputs.
 */
async function sides(args: ParsedArgs): Promise<[SideSpec, SideSpec]> {
  const both = flagString(args, 'contract');
  const contractOf = (name: 'base' | 'head'): string | undefined => {
    const file = flagString(args, `${name}-contract`) ?? both;
    if (file !== undefined && !existsSync(file)) throw new InputError(path.resolve(file), undefined, 'an existing load contract file', 'no such file');
    return file;
  };
  const baseInputs = flagList(args, 'base');
  const headInputs = flagList(args, 'head');
  if (baseInputs.length > 0 || headInputs.length > 0) {
    if (args.positional.length > 0) throw new UsageError(`unexpected argument '${args.positional[0]}': with --base/--head, each side is given by its flag (a database too: --base BASE.duckdb)`);
    if (baseInputs.length === 0 || headInputs.length === 0) throw new UsageError(`compare needs both sides: --${baseInputs.length === 0 ? 'base' : 'head'} PATH... is missing`);
    return [await resolveSide('base', baseInputs, contractOf('base')), await resolveSide('head', headInputs, contractOf('head'))];
  }
  if (args.positional.length !== 2) throw new UsageError(`compare needs BASE and HEAD (two --db files, or --base PATH... --head PATH...), got ${args.positional.length} argument${args.positional.length === 1 ? '' : 's'}`);
  const [b, h] = args.positional;
  return [
    { kind: 'db', label: b, file: b, contract: contractOf('base') },
    { kind: 'db', label: h, file: h, contract: contractOf('head') },
  ];
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
