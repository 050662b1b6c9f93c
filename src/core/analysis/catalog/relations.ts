/**
 * The derived-relation catalog: every table and view the analysis persists beside the loaded run, in
 * the order they are built (the only place that order is written down; breakdown/pipeline.ts builds
 * them in it), each with its columns, what it reads and the options its SQL reads. Freshness
 * (catalog/stamps.ts), the phase-column names a contract may not take, the shape check of a stored
 * database and the test fixtures' DDL are derived from these declarations; a test checks every built
 * relation against them, column by column.
 *
 * Temporary tables a builder uses on the way (span_links, phase_sel, request_join, …) are not listed:
 * they never outlive the statement sequence that writes them.
 */
import { BREAKDOWN_RELATIONS } from './breakdownRelations';
import type { RelationDecl } from './declarations';
import { GROUP_RELATIONS } from './groupRelations';
import { INDEX_RELATIONS } from './indexRelations';

export * from './declarations';

/** Every derived relation, in build order. */
export const RELATIONS: readonly RelationDecl[] = [...INDEX_RELATIONS, ...BREAKDOWN_RELATIONS, ...GROUP_RELATIONS];
