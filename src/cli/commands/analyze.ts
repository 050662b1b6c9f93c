/**
 * `phasewise analyze`: load (or reuse) a run, analyse it, print the report, exit with the verdict.
 */
import { analyzeRun } from '../../core/analysis/analyze';
import type { Report } from '../../core/report/model';
import { renderReport, REPORT_FORMATS, type ReportFormat } from '../../core/report/index';
import { verdictTitle } from '../../core/report/summarySections';
import { SKIP_KINDS, type SkipCode } from '../../core/formats/skips';
import { flagString, parseArgs, UsageError, type FlagSpec } from '../args';
import { exitCodeForVerdict } from '../exitCodes';
import { note, writeStdout } from '../output';
import { checkOutputPath, writeOutputFile } from '../outputFile';
import { openSession, SESSION_FLAGS, sessionInputs } from '../session';

const ANALYZE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  ...SESSION_FLAGS,
  format: { kind: 'string', alias: 'f' },
  out: { kind: 'string', alias: 'o' },
};

export async function runAnalyze(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, ANALYZE_FLAGS);
  if (args.positional.length > 0) throw new UsageError(`unexpected argument '${args.positional[0]}' (input files follow --run or --spans)`);
  const format = parseFormat(flagString(args, 'format') ?? 'text');
  const out = flagString(args, 'out');
  if (out !== undefined) await checkOutputPath(out, sessionInputs(args));

  const session = await openSession(args);
  let report: Report;
  let html: string | undefined;
  try {
    report = await analyzeRun(session.store, session.options, session.gates);
    // The HTML file embeds per-window traces and the slow traces' waterfalls: read while the run is open.
    if (format === 'html') html = await (await import('../../core/report/html/export')).reportHtml(session.store, { options: session.options, gates: session.gates, report, contractPath: flagString(args, 'contract') });
  } finally {
    await session.close();
  }

  for (const line of skippedLineNotes(report)) note(line);
  const text = html ?? renderReport(report, format as ReportFormat);
  if (out !== undefined) {
    await writeOutputFile(out, text, { raw: html !== undefined });
    if (!session.quiet) note(`phasewise: ${verdictTitle(report)}; report written to ${out}`);
  } else if (!session.quiet) {
    await writeStdout(text, { raw: html !== undefined });
  }
  return exitCodeForVerdict(report.verdict.status);
}

function parseFormat(raw: string): ReportFormat | 'html' {
  if (raw === 'html' || (REPORT_FORMATS as readonly string[]).includes(raw)) return raw as ReportFormat | 'html';
  throw new UsageError(`--format expects one of ${[...REPORT_FORMATS, 'html'].join(', ')}, got '${raw}'`);
}

/** Shows at most this many line numbers per file; the full list is in the report's load issues. */
const FIRST_LINES = 5;

/**
 * One line per file with skips, by unit and kind: nothing is skipped silently, even with --quiet or
 * --out, because a skipped line is a request missing from every figure.
 */
export function skippedLineNotes(report: Report): string[] {
  const notes: string[] = [];
  for (const input of report.inputs) {
    const kinds = Object.entries(input.skipped_by_kind).filter(([, k]) => k.count > 0);
    if (kinds.length === 0) continue;
    const units = [...new Set(kinds.map(([, k]) => k.unit))];
    const parts = units.map((unit) => {
      const of = kinds.filter(([, k]) => k.unit === unit);
      const total = of.reduce((a, [, k]) => a + k.count, 0);
      return `${total} ${unit}${total === 1 ? '' : 's'}: ${of.map(([code, k]) => `${describeSkip(code)} (${k.count})`).join(', ')}`;
    });
    const lines = report.load_issues.examples
      .filter((e) => e.path === input.path && e.line !== null && e.severity !== 'info')
      .map((e) => e.line as number)
      .sort((a, b) => a - b)
      .filter((line, i, all) => i === 0 || all[i - 1] !== line)
      .slice(0, FIRST_LINES);
    const noun = input.position === 'element' ? 'element' : 'line';
    const first = lines.length > 0 ? `; first at ${noun}${lines.length > 1 ? 's' : ''} ${lines.join(', ')}` : '';
    notes.push(`phasewise: ${input.path}: skipped ${parts.join('; ')}${first}`);
  }
  return notes;
}

function describeSkip(code: string): string {
  return code in SKIP_KINDS ? SKIP_KINDS[code as SkipCode].what : code;
}
