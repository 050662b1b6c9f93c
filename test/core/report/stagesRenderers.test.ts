import * as assert from 'assert';
import { renderMarkdownReport } from '../../../src/core/report/markdown';
import { renderTextReport } from '../../../src/core/report/text';
import type { Report } from '../../../src/core/report/model';
import { handBuiltReport } from './handBuiltReport';

function sectionLines(text: string, title: string): string[] {
  const rows = text.split('\n');
  const start = rows.findIndex((l) => l.startsWith(title));
  assert.ok(start >= 0, `no section ${title}`);
  const end = rows.findIndex((l, i) => i > start + 1 && /^-+$/.test(rows[i + 1] ?? '') && l.trim() !== '');
  return rows.slice(start, end < 0 ? undefined : end).map((l) => l.trim().replace(/ {2,}/g, ' '));
}

describe('report renderers: the stage section (issue 18 §2)', () => {
  it('prints the stage table with the knee row marked, the knee evidence and the tests per stage', () => {
    const s = sectionLines(renderTextReport(handBuiltReport()), "Stages and the knee (the contract's stages)");
    assert.ok(s.includes("knee at stage 3 (→ 20/s) (queue_growth) of 3 stages (the contract's stages)"), s.join('\n'));
    assert.ok(s.some((l) => l.startsWith('knee: stage 3 (→ 20/s): gpu_queue_ms p95 2 → 900 ms')), s.join('\n'));
    // stage 3: target 20, 1200 started in 60 s = 20/s, 1190 ended = 19.8/s, 1188 ok = 19.8/s, in flight
    // 13.5, 12 rejected (1.0 %), then total 2700, envelope 2.3, queue 900, unattributed 0.9 (no TTFT values).
    assert.ok(s.some((l) => l === '*stage 3 (→ 20/s) 61s–121s 20 20 19.8 19.8 13.5 12 (1.0%) 2700.0 2.3 900.0 0.9'), s.join('\n'));
    assert.ok(s.some((l) => l.startsWith('stage 1 (→ 10/s) 0s–60s 10 10 9.8 9.8 4.5 12 (2.0%)')), s.join('\n'));
    assert.ok(!s.some((l) => /\bttft\b/.test(l)), 'no TTFT column without TTFT values');
    assert.ok(s.includes('- stage 3 (→ 20/s): against stage 1 (→ 10/s): starts ×2.00, successes ×2.02, queue p95 ×65.30; achieved 100.0% of target → queue_growth'), s.join('\n'));
  });

  it('leaves the section out when the run has no stages, and the Markdown says the same as the text', () => {
    const none: Report = { ...handBuiltReport(), stages: { source: 'none', basis: 'scheduled', queue_owner: null, list: [], checks: [], knee: null, not_evaluated: [], summary: 'no stages' } };
    assert.ok(!renderTextReport(none).includes('Stages and the knee'));
    const md = renderMarkdownReport(handBuiltReport());
    assert.match(md, /## Stages and the knee \(the contract's stages\)/);
    assert.match(md, /\| \\\*stage 3 \(→ 20\/s\) \| 61s–121s \| 20 \| 20 \| 19\.8 \| 19\.8 \| 13\.5 \| 12 \(1\.0%\) \| 2700\.0 \| 2\.3 \| 900\.0 \| 0\.9 \|/);
  });
});
