/** A comparison as text: same experiment first, then the owners that moved, the table, ledgers and coverage. */
import { escapeLine } from '../escape';
import type { Comparison, RunSide } from './compareRuns';
import { COMPARE_STATS } from './compareRuns';
import type { FailOnResult } from './failOn';
import { joinRows, keyNotes, type JoinFormat } from './joinRows';

function num(v: number): string {
  return Number.isFinite(v) ? (Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(2)) : '–';
}

function signed(v: number): string {
  return `${v >= 0 ? '+' : ''}${num(v)}`;
}

function pct(v: number | null): string {
  return v === null ? '–' : `${(100 * v).toFixed(1)} %`;
}

export function renderComparison(c: Comparison, gates: readonly FailOnResult[] = []): string {
  const out: string[] = [];
  if (c.same_experiment) out.push('same experiment: yes (contract workload/request/trace, inputs and analysis settings agree)');
  else {
    out.push(`DIFFERENT EXPERIMENTS: ${c.differences.length} difference${c.differences.length === 1 ? '' : 's'}; the changes below may come from them, not from the release`);
    for (const d of c.differences) out.push(`  ${escapeLine(d)}`);
  }
  out.push(`BASE ${escapeLine(c.base.label)}`, `HEAD ${escapeLine(c.head.label)}`);
  out.push(`intervals: ${Math.round(c.confidence * 100)} % percentile bootstrap of HEAD − BASE, ${c.resamples} resamples of each run, seed ${c.seed}`);
  out.push(
    `  blocks: ${c.block.length_s} s of send time (${c.block.rule}); ${c.block.blocks_base} blocks per BASE resample, ${c.block.blocks_head} per HEAD resample`,
    `  resampling: ${c.interval_assumption}`,
    '',
  );
  if (c.moved.length === 0) out.push('moved: none (every interval includes zero)');
  else {
    out.push('moved (interval excludes zero):');
    for (const m of c.moved) out.push(`  ${m.metric} ${m.stat}: ${num(m.base)} → ${num(m.head)} ms, Δ ${signed(m.delta)} [${signed(m.ci_low)}, ${signed(m.ci_high)}]`);
  }
  out.push('');
  const header = ['metric', 'stat', 'base', 'head', 'delta', 'ci_low', 'ci_high', 'moved'];
  const rows: string[][] = [];
  for (const m of c.metrics) {
    for (const stat of COMPARE_STATS) {
      const s = m.stats[stat];
      if (s === undefined) {
        if (stat === 'p50') rows.push([m.metric, '', `n=${m.n_base}`, `n=${m.n_head}`, 'no values in one run', '', '', '']);
        continue;
      }
      rows.push([stat === 'p50' ? m.metric : '', stat, num(s.base), num(s.head), signed(s.delta), signed(s.ci_low), signed(s.ci_high), s.moved ? (s.delta > 0 ? 'up' : 'down') : '']);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]): string => r.map((v, i) => (i >= 2 && i <= 6 ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join('  ').trimEnd();
  out.push(line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), '');
  out.push(...sides(c.base, c.head));
  if (gates.length > 0) {
    out.push('', 'fail-on:');
    for (const g of gates) out.push(`  ${g.status.toUpperCase().padEnd(12)} ${g.rule}: ${g.reason}`);
  }
  return `${out.join('\n')}\n`;
}

function sides(b: RunSide, h: RunSide): string[] {
  const fmt: JoinFormat = { count: String, share: pct, of: (n, total) => `${n}/${total}` };
  const hj = joinRows(h.join, fmt);
  const rows: Array<[string, string, string]> = [
    ['started', String(b.outcomes.started), String(h.outcomes.started)],
    ['succeeded', String(b.outcomes.succeeded), String(h.outcomes.succeeded)],
    ['rejected', String(b.outcomes.rejected), String(h.outcomes.rejected)],
    ['timed_out', String(b.outcomes.timed_out), String(h.outcomes.timed_out)],
    ['transport_failed', String(b.outcomes.transport_failed), String(h.outcomes.transport_failed)],
    ['canceled', String(b.outcomes.canceled), String(h.outcomes.canceled)],
    ['failed', String(b.outcomes.failed), String(h.outcomes.failed)],
    ['generator_dropped', String(b.outcomes.generator_dropped), String(h.outcomes.generator_dropped)],
    ['error rate', pct(b.outcomes.error_rate), pct(h.outcomes.error_rate)],
    ...joinRows(b.join, fmt).map((r, i): [string, string, string] => [`${r.sub ? '  ' : ''}${r.label}`, r.text, hj[i].text]),
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(4, ...rows.map((r) => r[1].length));
  const lines = [`${'ledger'.padEnd(w0)}  ${'BASE'.padStart(w1)}  HEAD`, ...rows.map((r) => `${r[0].padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2]}`)];
  // A request-ID join counts request IDs where the rows say IDs; the span attribute it read is named.
  lines.push(...keyNotes(b.join, h.join));
  return lines;
}
