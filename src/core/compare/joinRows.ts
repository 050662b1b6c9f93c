/**
 * A compared run's join as rows, in the words both `phasewise compare` (render.ts) and the editor's
 * Compare panel show: the key, coverage ("not applicable" for a run without a join key), orphan and
 * lost roots, the colliding IDs and each kind of collision. Each renderer formats the numbers its
 * own way (the panel groups thousands); the labels, order and words are these.
 */
import type { RunSide } from './compareRuns';

type Join = RunSide['join'];

export interface JoinFormat {
  count(n: number): string;
  share(v: number | null): string;
  /** `n` of `total`, as the coverage's parenthesis shows it. */
  of(n: number, total: number): string;
}

export interface JoinRow {
  label: string;
  /** A kind of the collisions counted on the row above. */
  sub: boolean;
  text: string;
}

export const NOT_APPLICABLE = 'not applicable (no join key)';

export function joinedBy(j: Join): string {
  return j.key === 'request_id' ? 'request ID' : 'trace ID';
}

/** One side's join rows; by request ID the ID rows count request IDs (the report counts the same way). */
export function joinRows(j: Join, f: JoinFormat): JoinRow[] {
  const row = (label: string, text: string, sub = false): JoinRow => ({ label, sub, text });
  return [
    row('joined by', joinedBy(j)),
    row('join coverage', j.applicable ? `${f.share(j.coverage)} (${f.of(j.matched, j.client_requests)})` : NOT_APPLICABLE),
    row('orphan server roots', f.count(j.orphan_server_roots)),
    row('lost roots', f.count(j.lost_roots)),
    row('colliding IDs', f.count(j.duplicate_trace_ids)),
    row('seen twice by the client', f.count(j.client_duplicate_trace_ids), true),
    row('several server roots', f.count(j.server_multi_root_traces), true),
    row('on several traces', f.count(j.server_ambiguous_ids), true),
  ];
}

/** The span attribute a request-ID side's IDs were read from, as a sentence; none for a trace-ID side. */
export function keyNotes(base: Join, head: Join): string[] {
  return ([['BASE', base], ['HEAD', head]] as const).flatMap(([name, j]) =>
    j.key === 'request_id' ? [`${name} joined the client records' request_id to the span attribute ${j.key_attribute ?? ''}`] : [],
  );
}
