/**
 * The markdown report: the same content as the terminal report, as GitHub-flavoured tables, for PR
 * comments and the editor's untitled preview.
 */
import type { Report } from './model';
import { columnAlignment, type Block, type ReportDocument, type TableBlock } from './document';
import { escapeLine } from '../escape';
import { buildReportDocument } from './sections';

/** Renders a Report as markdown (GitHub-flavoured tables). */
export function renderMarkdownReport(report: Report): string {
  return renderMarkdownDocument(buildReportDocument(report));
}

export function renderMarkdownDocument(doc: ReportDocument): string {
  const out: string[] = [`# ${escapeInline(doc.title)}`];
  for (const section of doc.sections) {
    out.push('', `## ${escapeInline(section.title)}`);
    for (const block of section.blocks) out.push('', ...renderBlock(block));
  }
  return out.join('\n') + '\n';
}

function renderBlock(block: Block): string[] {
  if (block.kind === 'lines') {
    // Plain lines need a hard break (two trailing spaces) to stay on their own line in markdown.
    return block.bullet ? block.lines.map((l) => `- ${escapeInline(l)}`) : block.lines.map((l) => `${escapeInline(l)}  `);
  }
  return renderMarkdownTable(block);
}

export function renderMarkdownTable(block: TableBlock): string[] {
  const align = columnAlignment(block);
  const row = (cells: string[]): string => `| ${cells.map((c) => escapeCell(c ?? '')).join(' | ')} |`;
  return [row(block.header), `|${align.map((a) => (a === 'right' ? '---:' : ':---')).join('|')}|`, ...block.rows.map(row)];
}

/** Pipes end a cell; everything else in our figures is literal text. */
function escapeCell(text: string): string {
  return escapeInline(text).replace(/\|/g, '\\|');
}

/**
 * Characters that would turn text into markup: emphasis (`*`, `~`), code, HTML tags and entities
 * (`&#x202e;` would bring back a character escapeLine removed), links (`[…](…)`), and the backslash
 * itself. `_` inside metric names is literal in GitHub-flavoured Markdown and stays readable.
 * Control characters are escaped first (escape.ts), so the escapes cannot be used to hide one.
 */
function escapeInline(text: string): string {
  return escapeLine(text).replace(/([\\*`<>&\[\]~])/g, '\\$1');
}
