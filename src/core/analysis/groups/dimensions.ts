/**
 * The dimensions a report can group by: where each one's value comes from, in priority order (the
 * client record first, then the attributes of the trace under the matched root), and the column of
 * request_dimensions that holds it. `--group-by model,route` and the contract's `report.group_by`
 * name them; the token bands are derived from token counts with the bands of the options.
 */
import type { TokenBand, TokenBands } from '../options';
import type { SqlParams } from '../sql/params';

export type DimensionName = 'route' | 'model' | 'region' | 'priority' | 'streaming' | 'prompt_shape' | 'input_band' | 'output_band' | 'status_class';

export interface DimensionDecl {
  name: DimensionName;
  /** The request_dimensions column it reads (for a band: the token count). */
  column: string;
  /** Where the value comes from, first match wins; printed in the report's definitions. */
  sources: string;
  /** A band of the token count in `column` (bands from the options). */
  band?: 'input' | 'output';
}

/** Attribute keys read from the spans under a matched root, per dimension, in priority order. */
export const SERVER_KEYS = {
  model: ['gen_ai.request.model', 'llm.model', 'gen_ai.response.model'],
  route: ['http.route', 'url.path'],
  region: ['cloud.region', 'llm.region'],
  priority: ['llm.priority'],
  streaming: ['llm.stream', 'gen_ai.request.stream'],
  inputTokens: ['gen_ai.usage.input_tokens', 'llm.prompt_tokens', 'llm.input_tokens'],
} as const;

export const DIMENSIONS: readonly DimensionDecl[] = [
  {
    name: 'route',
    column: 'dim_route',
    sources: "the client's route (k6 tag `route`, records `route_id`/`route`), else the path of its URL, else the root span's http.route or url.path, else the root span's name",
  },
  {
    name: 'model',
    column: 'dim_model',
    sources: "the client's model (records `model_class`, k6 tag `model_class` or `model`), else gen_ai.request.model, llm.model or gen_ai.response.model on a span under the root (the shallowest)",
  },
  { name: 'region', column: 'dim_region', sources: 'the client\'s `region` (k6 tag, records field), else cloud.region or llm.region on a span under the root' },
  { name: 'priority', column: 'dim_priority', sources: "the client's `priority` (k6 tag, records field), else llm.priority on a span under the root" },
  {
    name: 'streaming',
    column: 'dim_streaming',
    sources: 'the client\'s streaming flag (records `streaming`; k6: a TTFT Trend), else llm.stream or gen_ai.request.stream under the root: `streaming` or `non_streaming`',
  },
  { name: 'prompt_shape', column: 'dim_prompt_shape', sources: 'records `prompt_shape_id`, k6 tag `prompt_shape`' },
  {
    name: 'input_band',
    column: 'dim_input_tokens',
    band: 'input',
    sources: 'input tokens (records `input_token_count`, else gen_ai.usage.input_tokens, llm.prompt_tokens or llm.input_tokens under the root) in the contract\'s prompt-shape bands (`input_<min>_<max>`; a count between or outside them in its gap, `input_gap_<min>_<max>`)',
  },
  {
    name: 'output_band',
    column: 'dim_output_tokens',
    band: 'output',
    sources: 'output tokens (the client\'s count, else the trace\'s gen_ai.usage.output_tokens) in the contract\'s prompt-shape bands (`output_<min>_<max>`; a count between or outside them in its gap, `output_gap_<min>_<max>`)',
  },
  { name: 'status_class', column: 'dim_status_class', sources: 'the HTTP status class (`2xx`, `4xx`, `5xx`, …), `no_status` without a response' },
];

/** The dimensions grouped by when nothing is asked: each only when the run holds more than one value. */
export const AUTO_DIMENSIONS: readonly DimensionName[] = ['route', 'model'];

/** Floor below which a group is marked too small for a p95. */
export const DEFAULT_MIN_GROUP_SIZE = 200;

/**
 * Bands when no contract declares prompt shapes: powers of four from 512 tokens, the last one open.
 * Contract bands replace them (options.tokenBands).
 */
export const DEFAULT_TOKEN_BANDS: TokenBands = {
  input: [
    { min: 0, max: 512 },
    { min: 513, max: 2048 },
    { min: 2049, max: 8192 },
    { min: 8193, max: null },
  ],
  output: [
    { min: 0, max: 128 },
    { min: 129, max: 512 },
    { min: 513, max: 2048 },
    { min: 2049, max: null },
  ],
};

export function dimensionDecl(name: string): DimensionDecl | undefined {
  return DIMENSIONS.find((d) => d.name === name);
}

/** The label of a band: `input_0_512`, `output_2049_plus`. */
export function bandLabel(kind: 'input' | 'output', band: TokenBand): string {
  return `${kind}_${band.min}_${band.max === null ? 'plus' : band.max}`;
}

/**
 * The counts no band holds, from 0 up: below the lowest band, between two bands and above the highest
 * closed one. Token counts are whole numbers, so two bands whose bounds touch (512 and 513) leave no
 * gap. A gap's bounds are the whole counts it holds (`max` null: open above); `after` is the band
 * bound below it (the SQL tests `> after`, so a fractional count between bands lands in the gap too).
 */
export function bandGaps(bands: readonly TokenBand[]): Array<TokenBand & { after: number | null }> {
  const sorted = [...bands].sort((a, b) => a.min - b.min);
  const gaps: Array<TokenBand & { after: number | null }> = [];
  let covered: number | null = null; // the highest count the bands so far hold (null: none yet)
  for (const b of sorted) {
    if (covered === null ? b.min > 0 : b.min > covered + 1) {
      gaps.push({ min: covered === null ? 0 : covered + 1, max: b.min - 1, after: covered });
    }
    if (b.max === null) return gaps;
    covered = covered === null ? b.max : Math.max(covered, b.max);
  }
  if (covered !== null) gaps.push({ min: covered + 1, max: null, after: covered });
  return gaps;
}

/** The label of a gap between the bands: `input_gap_401_499`, `output_gap_1025_plus`. */
export function gapLabel(kind: 'input' | 'output', gap: TokenBand): string {
  return `${kind}_gap_${gap.min}_${gap.max === null ? 'plus' : gap.max}`;
}

/**
 * The SQL of a dimension's value over a row `alias` of request_groups: the column, or for a band a
 * CASE over the bands (the first band that holds the count wins), then over the gaps between them
 * (bandGaps: a count no band holds is reported in its gap, with the gap's bounds, never merged into
 * one `other` group); only a negative count is `<kind>_other`. Band limits and labels are bound
 * parameters.
 */
export function dimensionSql(decl: DimensionDecl, alias: string, bands: TokenBands, params: SqlParams): string {
  const column = `${alias}.${decl.column}`;
  if (decl.band === undefined) return column;
  const kind = decl.band;
  const list = kind === 'input' ? bands.input : bands.output;
  const arms = list.map((b) => {
    const upper = b.max === null ? '' : ` AND ${column} <= ${params.bind(b.max)}::DOUBLE`;
    return `WHEN ${column} >= ${params.bind(b.min)}::DOUBLE${upper} THEN ${params.bind(bandLabel(kind, b))}`;
  });
  const gaps = bandGaps(list).map((g) => {
    const lower = g.after === null ? `${column} >= 0` : `${column} > ${params.bind(g.after)}::DOUBLE`;
    const upper = g.max === null ? '' : ` AND ${column} < ${params.bind(g.max + 1)}::DOUBLE`;
    return `WHEN ${lower}${upper} THEN ${params.bind(gapLabel(kind, g))}`;
  });
  return `CASE WHEN ${column} IS NULL THEN NULL ${[...arms, ...gaps].join(' ')} ELSE ${params.bind(`${kind}_other`)} END`;
}

/** Did-you-mean for a dimension name (`--group-by modle`). */
export function suggestDimension(name: string): string | undefined {
  const lower = name.toLowerCase();
  const aliases: Record<string, DimensionName> = { model_class: 'model', prompt: 'prompt_shape', status: 'status_class', stream: 'streaming', input: 'input_band', output: 'output_band' };
  if (aliases[lower] !== undefined) return aliases[lower];
  return DIMENSIONS.map((d) => d.name).find((d) => d.startsWith(lower.slice(0, 3)));
}
