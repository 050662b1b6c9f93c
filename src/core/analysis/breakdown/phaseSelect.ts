import { RESERVED_COLUMNS } from '../catalog/columns';
import type { AttributeReader } from '../index/attributeLookups';
import type { PhaseDefinition, SpanMatcher } from '../options';
import { SqlParams, sqlIdentifier } from '../sql/params';

/** A phase ready for SQL: its bit in `span_phase.phase_mask` and its validated column name. */
export interface PhaseColumn {
  name: string;
  column: string;
  bit: number;
}

/** Phases are stored as bits of one BIGINT per span, which leaves room for 62 of them. */
const MAX_PHASES = 62;

/** The phases' columns and bits; throws on a name that is not a plain identifier, collides with another column of the breakdown views (catalog/columns.ts) or is given twice. */
export function phaseColumns(phases: readonly PhaseDefinition[]): PhaseColumn[] {
  if (phases.length > MAX_PHASES) throw new Error(`at most ${MAX_PHASES} phases are supported, got ${phases.length}`);
  const seen = new Set<string>();
  return phases.map((phase, bit) => {
    const column = `${sqlIdentifier(phase.name, 'phase name')}_ms`;
    if (RESERVED_COLUMNS.has(column)) throw new Error(`phase name "${phase.name}" collides with the metric ${column}; choose another name`);
    if (seen.has(column)) throw new Error(`phase "${phase.name}" is defined twice`);
    seen.add(column);
    return { name: phase.name, column, bit };
  });
}

/**
 * SQL boolean for one matcher over a `spans`-shaped row aliased `s` (every clause given must hold).
 * A matcher with no clause selects nothing: an empty selector is a contract mistake, not "every span".
 * Attribute clauses go through `attrs`: in the index's scan of spans, one typing of an OTLP list per
 * row (index/attributeLookups.ts); on re-analysis, the per-key attribute cache (index/attributeCache.ts).
 */
function matcherSql(m: SpanMatcher, params: SqlParams, attrs: AttributeReader): string {
  const clauses: string[] = [];
  if (m.names !== undefined) clauses.push(params.inList('s.name', m.names));
  for (const [key, value] of Object.entries(m.attributes ?? {})) {
    clauses.push(`${attrs.value(key)} = ${params.bind(value)}`);
  }
  for (const key of m.attributePresent ?? []) clauses.push(attrs.has(key));
  if (m.service !== undefined) clauses.push(`s.service = ${params.bind(m.service)}`);
  if (clauses.length === 0) return 'false';
  return `(${clauses.map((c) => `coalesce(${c}, false)`).join(' AND ')})`;
}

/**
 * SQL BIGINT expression: bit i set when phase i's selector (any of its matchers) picks the span `s`.
 * Attribute lookups are registered in `attrs`, which then wraps the source rows (its from()).
 */
export function phaseMaskSql(phases: readonly PhaseDefinition[], params: SqlParams, attrs: AttributeReader): string {
  if (phases.length === 0) return '0::BIGINT';
  const terms = phases.map((phase, bit) => {
    const any = phase.anyOf.length === 0 ? 'false' : phase.anyOf.map((m) => matcherSql(m, params, attrs)).join(' OR ');
    return `(CASE WHEN ${any} THEN ${(BigInt(1) << BigInt(bit)).toString()}::BIGINT ELSE 0::BIGINT END)`;
  });
  return `(${terms.join(' | ')})`;
}
