/**
 * The terminal report: what a user reads first after `phasewise analyze`. Plain text, tables aligned
 * with spaces, no colour codes (the output is often piped into CI logs).
 */
import type { Report } from './model';
import { columnAlignment, type Block, type ReportDocument, type TableBlock } from './document';
import { buildReportDocument } from './sections';

/** Renders a Report as the plain-text terminal report. */
export function renderTextReport(report: Report): string {
  return renderTextDocument(buildReportDocument(report));
}

export function renderTextDocument(doc: ReportDocument): string {
  const out: string[] = [doc.title, '='.repeat(Math.min(Array.from(doc.title).length, 100))];
  for (const section of doc.sections) {
    out.push('', section.title, '-'.repeat(Array.from(section.title).length));
    for (const block of section.blocks) out.push(...renderBlock(block));
  }
  return out.join('\n') + '\n';
}

function renderBlock(block: Block): string[] {
  if (block.kind === 'lines') return block.lines.map((line) => (block.bullet ? `  - ${line}` : `  ${line}`));
  return renderTable(block).map((line) => `  ${line}`);
}

/** Space-aligned table with a dashed rule under the header. */
export function renderTable(block: TableBlock): string[] {
  const align = columnAlignment(block);
  const all = [block.header, ...block.rows];
  const widths = block.header.map((_, i) => Math.max(...all.map((row) => width(row[i] ?? ''))));
  const format = (row: string[]): string =>
    row
      .map((cell, i) => {
        const pad = ' '.repeat(widths[i] - width(cell ?? ''));
        return align[i] === 'left' ? (cell ?? '') + pad : pad + (cell ?? '');
      })
      .join('  ')
      .trimEnd();
  return [format(block.header), widths.map((w) => '-'.repeat(w)).join('  '), ...block.rows.map(format)];
}

function width(text: string): number {
  return Array.from(text).length;
}
