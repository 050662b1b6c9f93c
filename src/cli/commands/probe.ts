/**
 * `phasewise probe`: one request with a fresh traceparent, its trace fetched from a backend and
 * reconciled (`--receive`, `--spans`, `--jaeger`, `--tempo`), or a series of N requests at a fixed
 * rate written as per-request records (`--count N --rate R`). The API token comes from
 * PHASEWISE_API_TOKEN only (a flag would put it in the shell history and the process list).
 *
 * Exit codes (README table): 0 the request succeeded and, with a backend, its trace arrived with
 * propagation intact; 1 the request's outcome was not a success (rejected, failed, timed out,
 * transport failure); 2 the trace did not arrive in time (nothing to reconcile: inconclusive);
 * 3 the trace arrived but propagation is broken or the phases' spans are missing (instrumentation);
 * 4 bad usage; 130 interrupted. Several at once: 3, then 1, then 2.
 */
import { analysisFor } from '../../core/run/analyzeFiles';
import type { TraceBackend } from '../../core/probe/backends/backend';
import { SpanFileBackend } from '../../core/probe/backends/localBackends';
import { JaegerBackend, TempoBackend } from '../../core/probe/backends/queryApis';
import { runProbe, startEmbeddedReceiver, type EmbeddedReceiver } from '../../core/probe/probe';
import { probeSpecFromContract, resolveProbeSpec, type ProbeOverrides } from '../../core/probe/probeSpec';
import { JsonlFileSink } from '../../core/probe/receiver/sinks';
import { renderProbeText } from '../../core/probe/renderProbe';
import type { ProbeResult } from '../../core/probe/result';
import { chatRequestUrl } from '../../core/probe/send/chatRequest';
import type { TimedRequestOptions } from '../../core/probe/send/timedRequest';
import { flagBoolean, flagString, parseArgs, parseDurationMs, UsageError, type FlagSpec, type ParsedArgs } from '../args';
import { EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_INSTRUMENTATION_FAILURE, EXIT_INTERRUPTED, EXIT_PASS } from '../exitCodes';
import { markInterrupted } from '../interrupt';
import { note, stderrIsTerminal, writeStdout } from '../output';
import { checkOutputPath, writeOutputFile } from '../outputFile';
import { listenFlag } from './receive';

export const PROBE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  url: { kind: 'string', alias: 'u' },
  route: { kind: 'string' },
  model: { kind: 'string', alias: 'm' },
  stream: { kind: 'boolean' },
  'no-stream': { kind: 'boolean' },
  body: { kind: 'string' },
  contract: { kind: 'string' },
  receive: { kind: 'string' },
  spans: { kind: 'string' },
  jaeger: { kind: 'string' },
  tempo: { kind: 'string' },
  'backend-header': { kind: 'list' },
  'spans-out': { kind: 'string' },
  timeout: { kind: 'string' },
  'request-timeout': { kind: 'string' },
  'quiet-period': { kind: 'string' },
  count: { kind: 'string', alias: 'n' },
  rate: { kind: 'string' },
  records: { kind: 'string' },
  format: { kind: 'string', alias: 'f' },
  out: { kind: 'string', alias: 'o' },
  insecure: { kind: 'boolean' },
  quiet: { kind: 'boolean', alias: 'q' },
};

export async function runProbeCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, PROBE_FLAGS);
  if (args.positional.length > 0) throw new UsageError(`unexpected argument '${args.positional[0]}'`);
  const format = flagString(args, 'format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format expects text or json, got '${format}'`);
  if (flagString(args, 'count') !== undefined) return (await import('./probeSeries')).runProbeSeries(args, format);

  const { request, options } = await requestFromFlags(args);
  const out = flagString(args, 'out');
  if (out !== undefined) await checkOutputPath(out, [flagString(args, 'body'), flagString(args, 'contract'), flagString(args, 'spans')]); // before the request: a typo should not cost a probe
  const controller = new AbortController();
  const stopInterrupt = onInterrupt(controller);
  let embedded: EmbeddedReceiver | undefined;
  try {
    const backend = await backendFromFlags(args, request.apiToken, (e) => (embedded = e));
    const quiet = flagBoolean(args, 'quiet');
    const live = !quiet && stderrIsTerminal();
    let lastStage = '';
    const result = await runProbe({
      request,
      backend,
      traceTimeoutMs: parseDurationMs(flagString(args, 'timeout') ?? '30s', '--timeout'),
      quietMs: parseDurationMs(flagString(args, 'quiet-period') ?? '1500ms', '--quiet-period'),
      analysis: options,
      signal: controller.signal,
      onStage: (stage) => {
        if (live && stage !== lastStage && !stage.startsWith('waiting')) note(`phasewise: ${stage}`);
        lastStage = stage;
      },
    });
    if (controller.signal.aborted) return EXIT_INTERRUPTED;
    await emit(result, format, out, quiet);
    return probeExitCode(result);
  } finally {
    stopInterrupt();
    await (embedded as EmbeddedReceiver | undefined)?.receiver.stop();
  }
}

/** The exit code of one probe (see the file comment). */
export function probeExitCode(r: ProbeResult): number {
  if (r.trace && r.trace.status !== 'missing' && r.propagation && !r.propagation.ok) return EXIT_INSTRUMENTATION_FAILURE;
  if (r.trace?.status === 'missing' && r.propagation?.problems.some((p) => /propagation broken/.test(p))) return EXIT_INSTRUMENTATION_FAILURE;
  if (r.outcome !== 'succeeded') return EXIT_FAIL;
  if (r.trace && r.trace.status !== 'complete') return EXIT_INCONCLUSIVE;
  return EXIT_PASS;
}

async function emit(result: ProbeResult, format: string, out: string | undefined, quiet: boolean): Promise<void> {
  const text = format === 'json' ? JSON.stringify(result, null, 2) + '\n' : renderProbeText(result).join('\n') + '\n';
  if (out !== undefined) await writeOutputFile(out, text);
  else if (!quiet) await writeStdout(text);
}

/** The request and the analysis options from the contract, then the flags; the token from the environment. */
export async function requestFromFlags(args: ParsedArgs): Promise<{ request: TimedRequestOptions; options: Awaited<ReturnType<typeof analysisFor>>['options'] }> {
  const contractFile = flagString(args, 'contract');
  const { options, notes } = await analysisFor(contractFile);
  for (const n of notes) note(n);
  let fromContract: ProbeOverrides = {};
  if (contractFile !== undefined) {
    const { loadContractFile } = await import('../../core/contract/index');
    fromContract = probeSpecFromContract((await loadContractFile(contractFile)).contract?.request);
  }
  if (flagBoolean(args, 'stream') && flagBoolean(args, 'no-stream')) throw new UsageError('give --stream or --no-stream, not both');
  const flags: ProbeOverrides = {
    baseUrl: flagString(args, 'url'),
    route: flagString(args, 'route'),
    model: flagString(args, 'model'),
    stream: flagBoolean(args, 'stream') ? true : flagBoolean(args, 'no-stream') ? false : undefined,
    requestTimeoutMs: flagString(args, 'request-timeout') === undefined ? undefined : parseDurationMs(flagString(args, 'request-timeout')!, '--request-timeout'),
  };
  const spec = resolveProbeSpec(fromContract, flags);
  if (spec.baseUrl === undefined) throw new UsageError('probe needs --url URL (or a contract with request.base_url)');
  if (flags.route !== undefined && !flags.route.startsWith('/')) throw new UsageError(`--route expects a path such as /v1/chat/completions, got '${flags.route}'`);
  try {
    chatRequestUrl({ baseUrl: spec.baseUrl, route: spec.route });
  } catch {
    throw new UsageError(`--url expects an http:// or https:// URL, got '${spec.baseUrl}'`);
  }
  const bodyFile = flagString(args, 'body');
  let body: Record<string, unknown> | undefined;
  if (bodyFile !== undefined) body = await readBodyFile(bodyFile);
  const token = process.env.PHASEWISE_API_TOKEN;
  return {
    request: {
      baseUrl: spec.baseUrl,
      route: new URL(spec.baseUrl).pathname.length > 1 && flags.route === undefined ? undefined : spec.route,
      model: spec.model,
      stream: spec.stream,
      shape: spec.shape,
      body,
      timeoutMs: spec.requestTimeoutMs,
      apiToken: token === undefined || token === '' ? undefined : token,
      insecure: flagBoolean(args, 'insecure'),
    },
    options,
  };
}

/** A request body larger than this is not a chat completion request (it is read whole, to send). */
const MAX_BODY_FILE_BYTES = 16 << 20;

async function readBodyFile(file: string): Promise<Record<string, unknown>> {
  const { InputError } = await import('../../core/errors');
  const { readSmallText } = await import('../../core/formats/input/inputFile');
  const text = await readSmallText(file, 'a JSON file holding the request body', MAX_BODY_FILE_BYTES);
  try {
    const doc: unknown = JSON.parse(text);
    if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) return doc as Record<string, unknown>;
  } catch {
    // Reported below, with what was expected.
  }
  throw new InputError(file, undefined, 'a JSON object (a chat completion request body)', 'something else');
}

/** One of --receive, --spans, --jaeger, --tempo (or none: client side only). */
export async function backendFromFlags(args: ParsedArgs, token: string | undefined, onReceiver: (r: EmbeddedReceiver) => void): Promise<TraceBackend | undefined> {
  const given = ['receive', 'spans', 'jaeger', 'tempo'].filter((f) => flagString(args, f) !== undefined);
  if (given.length > 1) throw new UsageError(`give one trace backend, not ${given.map((g) => `--${g}`).join(' and ')}`);
  const headers: Record<string, string> = {};
  for (const h of args.flags.get('backend-header') ?? []) {
    const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(h);
    if (!m) throw new UsageError(`--backend-header expects 'Name: value', got '${h}'`);
    headers[m[1].toLowerCase()] = m[2];
  }
  const spansOut = flagString(args, 'spans-out');
  if (spansOut !== undefined && flagString(args, 'receive') === undefined) throw new UsageError('--spans-out only applies with --receive');
  switch (given[0]) {
    case 'receive': {
      const listen = listenFlag(flagString(args, 'receive'), '--receive');
      try {
        const embedded = await startEmbeddedReceiver(listen, spansOut ? [new JsonlFileSink(spansOut)] : [], token ? [token] : []);
        onReceiver(embedded);
        return embedded.backend;
      } catch (err) {
        const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
        if (code === 'EADDRINUSE') throw new UsageError(`--receive ${listen.host}:${listen.port}: the port is in use (is 'phasewise receive' or a Collector running? use --spans with its file)`);
        throw err;
      }
    }
    case 'spans':
      return new SpanFileBackend(flagString(args, 'spans')!);
    case 'jaeger':
      return new JaegerBackend({ baseUrl: checkedUrl(flagString(args, 'jaeger')!, '--jaeger'), headers });
    case 'tempo':
      return new TempoBackend({ baseUrl: checkedUrl(flagString(args, 'tempo')!, '--tempo'), headers });
    default:
      return undefined;
  }
}

function checkedUrl(text: string, flag: string): string {
  try {
    const u = new URL(text);
    if (u.protocol === 'http:' || u.protocol === 'https:') return text;
  } catch {
    // Reported below.
  }
  throw new UsageError(`${flag} expects an http:// or https:// URL, got '${text}'`);
}

/** Ctrl-C or SIGTERM aborts the probe (the request resolves as canceled, the wait stops); twice quits at once. */
export function onInterrupt(controller: AbortController): () => void {
  const handler = (): void => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    markInterrupted();
    note('phasewise: interrupted; stopping (Ctrl-C again to quit at once)');
    controller.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
