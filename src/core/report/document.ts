/**
 * A tiny document model between the Report and its renderings: the content (which figures, in which
 * order, with which labels) is decided once in the section builders, and the text and markdown
 * renderers only decide how a heading, a line or a table looks. This keeps the terminal report and the
 * PR comment saying exactly the same thing.
 */

/** Plain lines; `bullet` lines are list items (markdown `-`, text `- `). */
export interface LinesBlock {
  kind: 'lines';
  lines: string[];
  bullet?: boolean;
}

/** A table; `align` defaults to left for the first column and right for the others (numbers). */
export interface TableBlock {
  kind: 'table';
  header: string[];
  rows: string[][];
  align?: Array<'left' | 'right'>;
}

export type Block = LinesBlock | TableBlock;

export interface Section {
  title: string;
  blocks: Block[];
}

export interface ReportDocument {
  /** First line of the report: the verdict. */
  title: string;
  sections: Section[];
}

export function lines(items: string[], bullet = false): LinesBlock {
  return { kind: 'lines', lines: items, bullet };
}

export function table(header: string[], rows: string[][], align?: Array<'left' | 'right'>): TableBlock {
  return { kind: 'table', header, rows, align };
}

/** Default column alignment: label columns left, figures right. */
export function columnAlignment(block: TableBlock): Array<'left' | 'right'> {
  return block.header.map((_, i) => block.align?.[i] ?? (i === 0 ? 'left' : 'right'));
}
