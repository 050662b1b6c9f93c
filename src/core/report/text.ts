/**
 * The terminal report: what a user reads first after `phasewise analyze`. Plain text, tables aligned
 * with spaces, no colour codes (the output is often piped into CI logs).
 */
import type { Report } from './model';
import { columnAlignment, type Block, type ReportDocument, type TableBlock } from './document';
import { escapeLine } from '../escape';
import { buildReportDocument } from './sections';

/** Renders a Report as the plain-text terminal report. */
export function renderTextReport(report: Report): string {
  return renderTextDocument(buildReportDocument(report));
}

/**
 * Every line and cell is escaped (escape.ts): span names, file paths and quoted bad lines come from
 * input files, and a control character in them must not drive the terminal or add a line.
 */
export function renderTextDocument(doc: ReportDocument): string {
  const title = escapeLine(doc.title);
  const out: string[] = [title, '='.repeat(Math.min(Array.from(title).length, 100))];
  for (const section of doc.sections) {
    const heading = escapeLine(section.title);
    out.push('', heading, '-'.repeat(Array.from(heading).length));
    // Line by line, not push(...lines): a table of 500,000 rows overflowed the call stack as arguments.
    for (const block of section.blocks) for (const line of renderBlock(block)) out.push(line);
  }
  return out.join('\n') + '\n';
}

function renderBlock(block: Block): string[] {
  if (block.kind === 'lines') return block.lines.map((line) => (block.bullet ? `  - ${escapeLine(line)}` : `  ${escapeLine(line)}`));
  return renderTable(block).map((line) => `  ${line}`);
}

/** Space-aligned table with a dashed rule under the header; cells are escaped before they are measured. */
export function renderTable(block: TableBlock): string[] {
  const align = columnAlignment(block);
  const all = [block.header, ...block.rows].map((row) => row.map((cell) => escapeLine(cell ?? '')));
  const widths = block.header.map((_, i) => all.reduce((w, row) => Math.max(w, width(row[i] ?? '')), 0));
  const format = (row: string[]): string =>
    row
      .map((cell, i) => {
        const pad = ' '.repeat(widths[i] - width(cell ?? ''));
        return align[i] === 'left' ? (cell ?? '') + pad : pad + (cell ?? '');
      })
      .join('  ')
      .trimEnd();
  return [format(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(format)];
}

function width(text: string): number {
  return Array.from(text).length;
}
