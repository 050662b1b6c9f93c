/**
 * `phasewise reconcile --trace ID`: one request seen from both sides, as `key=value` integer lines that
 * tie the client's total to the server's phases, then the span waterfall as text.
 */
import { reconcileTrace } from '../../core/analysis/trace/reconcile';
import { normalizeTraceId } from '../../core/traceId';
import type { QueryRunner } from '../../core/store/duckStore';
import { InputError } from '../../core/errors';
import { renderReconciliationLines, renderWaterfallText } from '../../core/report/waterfall';
import { flagString, parseArgs, UsageError, type FlagSpec } from '../args';
import { EXIT_PASS } from '../exitCodes';
import { note, writeStdout } from '../output';
import { checkOutputPath, writeOutputFile } from '../outputFile';
import { openSession, SESSION_FLAGS, sessionInputs, type Session } from '../session';

const RECONCILE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  ...SESSION_FLAGS,
  trace: { kind: 'string', alias: 't' },
  format: { kind: 'string', alias: 'f' },
  out: { kind: 'string', alias: 'o' },
};


export async function runReconcile(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, RECONCILE_FLAGS);
  if (args.positional.length > 0) throw new UsageError(`unexpected argument '${args.positional[0]}'`);
  const raw = flagString(args, 'trace');
  if (raw === undefined) throw new UsageError('reconcile needs --trace ID (a 32-hex-digit W3C trace ID)');
  const format = flagString(args, 'format') ?? 'text';
  if (format !== 'text' && format !== 'json' && format !== 'html') throw new UsageError(`--format expects text, json or html, got '${format}'`);
  const out = flagString(args, 'out');
  if (out !== undefined) await checkOutputPath(out, sessionInputs(args));
  const traceId = normalizeTraceId(raw);
  if (traceId === undefined) {
    throw new InputError('--trace', undefined, 'a W3C trace ID of 32 hex digits, not all zero', `'${raw}' (malformed)`);
  }

  const session = await openSession(args);
  try {
    await checkTracePresent(session, traceId);
    if (format === 'html') {
      // The page reads the trace itself, its waterfall bounded (traceModel.ts MAX_PAGE_TRACE_SPANS): no
      // reconciliation of every span is held beside it.
      const html = await (await import('../../core/report/html/export')).traceHtml(session.store, traceId, session.options);
      if (html === undefined) throw absent(traceId, 'absent from the client files and from the span files');
      if (out !== undefined) await writeOutputFile(out, html, { raw: true });
      else await writeStdout(html, { raw: true });
      return EXIT_PASS;
    }
    const rec = await reconcileTrace(session.store, traceId, session.options);
    if (rec === undefined) throw absent(traceId, 'absent from the client files and from the span files');
    if (format === 'json') {
      await writeStdout(JSON.stringify(rec, null, 2) + '\n');
    } else {
      const lines = renderReconciliationLines(rec, session.options.phases.map((p) => p.name));
      await writeStdout([...lines, '', ...renderWaterfallText(rec.spans), ''].join('\n'));
      for (const n of rec.notes) note(`phasewise: note: ${n}`);
    }
    return EXIT_PASS;
  } finally {
    await session.close();
  }
}

function absent(traceId: string, detail: string): InputError {
  return new InputError('--trace', undefined, 'a trace ID present in the loaded files', `${traceId}: ${detail}`);
}

/**
 * A side that was loaded must know the trace: asking for a request the client never sent (or the server
 * never exported) is a wrong ID, not a partial answer. A side that was not given at all is simply absent.
 */
async function checkTracePresent(session: Session, traceId: string): Promise<void> {
  const client = await sideCounts(session.store, 'client', 'client_requests', traceId);
  const server = await sideCounts(session.store, 'server', 'spans', traceId);
  if (client.files > 0 && client.hits === 0 && server.files > 0 && server.hits === 0) {
    throw absent(traceId, 'absent from the client files and from the span files');
  }
  if (client.files > 0 && client.hits === 0) {
    throw absent(traceId, `absent from the client files (the span files have ${server.hits} spans of it)`);
  }
  if (server.files > 0 && server.hits === 0) {
    throw absent(traceId, `absent from the span files (the client files carry it ${client.hits} times)`);
  }
}

async function sideCounts(store: QueryRunner, side: string, table: 'client_requests' | 'spans', traceId: string): Promise<{ files: number; hits: number }> {
  const [row] = await store.all<{ files: number; hits: number }>(
    `SELECT (SELECT count(*) FROM sources WHERE side = $1) AS files, (SELECT count(*) FROM ${table} WHERE trace_id = $2) AS hits`,
    [side, traceId],
  );
  return row;
}
