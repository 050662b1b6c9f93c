// The form's edit model: each form edit becomes the smallest text edit, asserted as the exact text that
// results (expected texts written out here or found by plain string search), comments and formatting
// elsewhere untouched, and a round trip over every scalar of every sample and fixture contract.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { formEditToTextEdits, FormEditError } from '../../../src/core/contract/form/edits';
import { fieldKind } from '../../../src/core/contract/form/values';
import type { FormEdit } from '../../../src/core/contract/form/types';
import { parseSource } from '../../../src/core/contract/parse/sourceMap';
import { CONTRACT_TEMPLATE } from '../../../src/core/contract/template';
import { repoRoot } from '../../helpers/paths';
import { applyEdits, BASE_JSON, BASE_YAML, edit } from './helpers';

const read = (p: string): string => fs.readFileSync(path.join(repoRoot, p), 'utf8');
const steady = read('samples/steady.loadcontract.yaml');

function applyForm(text: string, e: FormEdit, file = 'x.loadcontract.yaml'): string {
  return applyEdits(text, formEditToTextEdits(parseSource(text, file), e));
}

/** Every contract text the round trips run on: samples, fixtures, the template, the test bases (only those that parse). */
function contracts(): { name: string; text: string; file: string }[] {
  const out = [
    { name: 'template', text: CONTRACT_TEMPLATE, file: 't.loadcontract.yaml' },
    { name: 'BASE_YAML', text: BASE_YAML, file: 'b.loadcontract.yaml' },
    { name: 'BASE_JSON', text: BASE_JSON, file: 'b.loadcontract.json' },
  ];
  for (const dir of ['samples', 'test/fixtures/cli', 'test/vscode/fixtures/contracts']) {
    for (const f of fs.readdirSync(path.join(repoRoot, dir))) {
      if (/\.loadcontract\.(ya?ml|json)$/.test(f)) out.push({ name: `${dir}/${f}`, text: read(`${dir}/${f}`), file: f });
    }
  }
  return out.filter((c) => parseSource(c.text, c.file).syntaxErrors.length === 0);
}

/** A value different from `raw`, as a user would type it into a field of that kind. */
function otherInput(pointer: string, raw: unknown): string | undefined {
  const k = fieldKind(pointer);
  if (!k) return undefined;
  switch (k.kind) {
    case 'duration':
      return typeof raw === 'number' ? String(raw + 1) : '1234ms';
    case 'number':
    case 'integer':
      return String((typeof raw === 'number' ? raw : 0) + 7);
    case 'boolean':
      return String(raw !== true);
    case 'enum':
      return k.options?.find((o) => o !== raw);
    default:
      return `${String(raw)}-x`;
  }
}

/** What a field of that kind holds after `input` is typed into it (written out here, not by values.ts). */
function expectedValue(pointer: string, input: string): unknown {
  const kind = fieldKind(pointer)?.kind;
  if (kind === 'number' || kind === 'integer' || (kind === 'duration' && /^\d+$/.test(input))) return Number(input);
  if (kind === 'boolean') return input === 'true';
  return input;
}

/** Every entry's plain value, by pointer. */
function values(text: string, file: string): Map<string, unknown> {
  return new Map([...parseSource(text, file).entries].map(([p, e]) => [p, e.kind === 'map' || e.kind === 'seq' ? e.kind : e.raw]));
}

describe('contract form edits', () => {
  describe('set an existing value', () => {
    it('replaces exactly the value, nothing else (a budget in samples/steady)', () => {
      const edits = formEditToTextEdits(parseSource(steady, 's.yaml'), { op: 'set', pointer: '/budgets/0/phases/gateway', input: '300ms' });
      const at = steady.indexOf('gateway: 350ms') + 'gateway: '.length;
      assert.deepStrictEqual(edits, [{ start: at, end: at + '350ms'.length, newText: '300ms' }]);
    });

    it('keeps the comment after the value and its alignment (the template)', () => {
      const out = applyForm(CONTRACT_TEMPLATE, { op: 'set', pointer: '/workload/plateau', input: '15m' });
      assert.strictEqual(out, edit(CONTRACT_TEMPLATE, '  plateau: 10m               # at least', '  plateau: 15m               # at least'));
    });

    it('keeps the quoting: single quotes (doubling a quote), double quotes, plain where the library reads it back, else double', () => {
      const text = "name: 'it''s'\nclaim:\n  statement: \"p95 ≤ 2 s\"\nrequest:\n  route: POST /v1/a\n";
      assert.strictEqual(applyForm(text, { op: 'set', pointer: '/name', input: "Bob's" }), edit(text, "'it''s'", "'Bob''s'"));
      assert.strictEqual(applyForm(text, { op: 'set', pointer: '/claim/statement', input: 'p95 ≤ 3 s' }), edit(text, '"p95 ≤ 2 s"', '"p95 ≤ 3 s"'));
      assert.strictEqual(applyForm(text, { op: 'set', pointer: '/request/route', input: 'POST /v1/b' }), edit(text, 'POST /v1/a', 'POST /v1/b'));
      assert.strictEqual(applyForm(text, { op: 'set', pointer: '/request/route', input: 'POST /v1/b: #c' }), edit(text, 'POST /v1/a', '"POST /v1/b: #c"'));
      // A string that would read as a number stays a string.
      assert.strictEqual(applyForm(text, { op: 'set', pointer: '/request/route', input: '10' }), edit(text, 'POST /v1/a', '"10"'));
    });

    it('writes the kind of the field: a number in a number field, a bare number in a duration field as ms, booleans', () => {
      assert.strictEqual(applyForm(BASE_YAML, { op: 'set', pointer: '/workload/rate', input: ' 12 ' }), edit(BASE_YAML, 'rate: 10\n', 'rate: 12\n'));
      assert.strictEqual(applyForm(BASE_YAML, { op: 'set', pointer: '/workload/drain', input: '45000' }), edit(BASE_YAML, 'drain: 30s', 'drain: 45000'));
      assert.strictEqual(applyForm(BASE_YAML, { op: 'set', pointer: '/request/streaming', input: 'true' }), edit(BASE_YAML, 'streaming: false', 'streaming: true'));
      // Text that does not fit is written as typed: the diagnostics then say what is wrong, as in the text editor.
      assert.strictEqual(applyForm(BASE_YAML, { op: 'set', pointer: '/workload/rate', input: 'ten' }), edit(BASE_YAML, 'rate: 10\n', 'rate: ten\n'));
    });

    it('JSON contracts get JSON values', () => {
      const out = applyForm(BASE_JSON, { op: 'set', pointer: '/workload/plateau', input: '15m' }, 'b.loadcontract.json');
      assert.strictEqual(out, edit(BASE_JSON, '"plateau": "10m"', '"plateau": "15m"'));
      assert.strictEqual(applyForm(BASE_JSON, { op: 'set', pointer: '/workload/rate', input: '12' }, 'b.loadcontract.json'), edit(BASE_JSON, '"rate": 10,\n    "time_unit"', '"rate": 12,\n    "time_unit"'));
    });

    it('a key written without a value gets one after its colon (before a comment)', () => {
      assert.strictEqual(applyForm('version: 1\nname:\n', { op: 'set', pointer: '/name', input: 'x' }), 'version: 1\nname: x\n');
      assert.strictEqual(applyForm('version: 1\nname:   # later\n', { op: 'set', pointer: '/name', input: 'x' }), 'version: 1\nname:   x # later\n');
    });
  });

  describe('set a missing value', () => {
    it('inserts the key after the last entry of its block, with the block\'s indentation', () => {
      const out = applyForm(BASE_YAML, { op: 'set', pointer: '/workload/calls_per_session', input: '4' });
      assert.strictEqual(out, edit(BASE_YAML, '  max_in_flight: 40\n', '  max_in_flight: 40\n  calls_per_session: 4\n'));
    });

    it('creates missing parents as blocks under the nearest existing one', () => {
      const out = applyForm(BASE_YAML, { op: 'set', pointer: '/slo/ttft_ms/p95', input: '800ms' });
      assert.strictEqual(out, edit(BASE_YAML, 'slo:\n  total_ms:\n    p95: 2s\n', 'slo:\n  total_ms:\n    p95: 2s\n  ttft_ms:\n    p95: 800ms\n'));
    });

    it('follows the text\'s indentation step (4 spaces)', () => {
      const text = 'version: 1\nworkload:\n    rate: 10\nslo:\n    total_ms:\n        p95: 2s\n';
      assert.strictEqual(applyForm(text, { op: 'set', pointer: '/slo/ttft_ms/p95', input: '1s' }), `${text}    ttft_ms:\n        p95: 1s\n`);
    });

    it('goes before a comment that follows the block (it belongs to the next section)', () => {
      const text = 'workload:\n  rate: 10\n# the request\nrequest:\n  route: POST /x\n';
      assert.strictEqual(applyForm(text, { op: 'set', pointer: '/workload/drain', input: '30s' }), 'workload:\n  rate: 10\n  drain: 30s\n# the request\nrequest:\n  route: POST /x\n');
    });

    it('into a one-line flow map: after its last item', () => {
      const out = applyForm(steady, { op: 'set', pointer: '/budgets/0/when/priority', input: 'interactive' });
      assert.strictEqual(out, edit(steady, 'rate: 10, window: steady }', 'rate: 10, window: steady, priority: interactive }'));
      assert.strictEqual(applyForm(CONTRACT_TEMPLATE, { op: 'set', pointer: '/slo/total_ms/p50', input: '1s' }), edit(CONTRACT_TEMPLATE, '{ p95: 2s, p99: 4s }', '{ p95: 2s, p99: 4s, p50: 1s }'));
    });

    it('into multi-line JSON: on its own line, indented like its siblings', () => {
      const out = applyForm(BASE_JSON, { op: 'set', pointer: '/workload/calls_per_session', input: '3' }, 'b.loadcontract.json');
      assert.strictEqual(out, edit(BASE_JSON, '"max_in_flight": 40\n', '"max_in_flight": 40,\n    "calls_per_session": 3\n'));
      const parsed = JSON.parse(out) as { workload: Record<string, unknown> };
      assert.strictEqual(parsed.workload.calls_per_session, 3);
      const nested = applyForm(BASE_JSON, { op: 'set', pointer: '/slo/ttft_ms/p95', input: '800ms' }, 'b.loadcontract.json');
      assert.deepStrictEqual((JSON.parse(nested) as { slo: unknown }).slo, { total_ms: { p95: '2s' }, ttft_ms: { p95: '800ms' } });
    });

    it('under a key without a value (`gates:`, `gates: ~`), keeping the key\'s comment', () => {
      assert.strictEqual(applyForm('a: 1\ngates:   # ours\nb: 2\n', { op: 'set', pointer: '/gates/error_rate', input: '0.01' }), 'a: 1\ngates:   # ours\n  error_rate: 0.01\nb: 2\n');
      assert.strictEqual(applyForm('a: 1\ngates: ~\nb: 2\n', { op: 'set', pointer: '/gates/error_rate', input: '0.01' }), 'a: 1\ngates:\n  error_rate: 0.01\nb: 2\n');
    });

    it('refuses what cannot be written as one value', () => {
      assert.throws(() => applyForm(BASE_YAML, { op: 'set', pointer: '/workload', input: '1' }), FormEditError);
      assert.throws(() => applyForm(BASE_YAML, { op: 'set', pointer: '/budgets/3/allocates', input: 'total_ms.p95' }), FormEditError);
      assert.throws(() => applyForm(BASE_YAML, { op: 'set', pointer: '/workload/rate/x', input: '1' }), FormEditError);
    });
  });

  describe('remove', () => {
    it('a block key takes its line (and its trailing comment), nothing else', () => {
      assert.strictEqual(applyForm(CONTRACT_TEMPLATE, { op: 'remove', pointer: '/workload/max_in_flight' }), edit(CONTRACT_TEMPLATE, '  max_in_flight: 100         # ≥ rate × total SLO (Little\'s law), with headroom\n', ''));
      assert.strictEqual(applyForm(BASE_YAML, { op: 'remove', pointer: '/slo/total_ms' }), edit(BASE_YAML, '  total_ms:\n    p95: 2s\n', ''));
    });

    it('flow items: the middle one with its comma, the last one, the only one', () => {
      assert.strictEqual(applyForm(steady, { op: 'remove', pointer: '/budgets/0/when/region' }), edit(steady, 'region: local, ', ''));
      assert.strictEqual(applyForm(steady, { op: 'remove', pointer: '/budgets/0/when/window' }), edit(steady, ', window: steady }', ' }'));
      assert.strictEqual(applyForm('a: { b: 1 }\n', { op: 'remove', pointer: '/a/b' }), 'a: {}\n');
    });

    it('a list item with its dash line; the first key of an item moves the next one onto the dash', () => {
      assert.strictEqual(applyForm(steady, { op: 'remove', pointer: '/request/prompt_shapes/1' }), edit(steady, '    - { id: medium, weight: 0.35, input_tokens: [500, 1500], output_tokens: [60, 768] }\n', ''));
      assert.strictEqual(applyForm(steady, { op: 'remove', pointer: '/budgets/0/allocates' }), edit(steady, '  - allocates: total_ms.p95\n    when:', '  - when:'));
    });

    it('a missing key is nothing to do', () => {
      assert.deepStrictEqual(formEditToTextEdits(parseSource(BASE_YAML, 'b.yaml'), { op: 'remove', pointer: '/workload/vus' }), []);
    });
  });

  describe('append', () => {
    it('a prompt shape in the style of the one before (one line)', () => {
      const out = applyForm(steady, { op: 'append', pointer: '/request/prompt_shapes', item: { id: 'tiny', weight: 0.05, input_tokens: [10, 50], output_tokens: [5, 20] } });
      const last = '    - { id: long, weight: 0.15, input_tokens: [2000, 4500], output_tokens: [100, 1024] }\n';
      assert.strictEqual(out, edit(steady, last, `${last}    - { id: tiny, weight: 0.05, input_tokens: [10, 50], output_tokens: [5, 20] }\n`));
    });

    it('a budget as a block item, its condition in flow style as in the one before', () => {
      const out = applyForm(steady, { op: 'append', pointer: '/budgets', item: { allocates: 'ttft_ms.p95', when: { model_class: 'm', rate: 10 }, phases: { gateway: '100ms', gpu_queue: '500ms' } } });
      assert.strictEqual(out, edit(steady, '      unattributed_server: 500ms\ngates:', '      unattributed_server: 500ms\n  - allocates: ttft_ms.p95\n    when: { model_class: m, rate: 10 }\n    phases:\n      gateway: 100ms\n      gpu_queue: 500ms\ngates:'));
    });

    it('a first item creates the list (one line for a simple item), or fills a key without a value', () => {
      assert.strictEqual(applyForm(BASE_YAML, { op: 'append', pointer: '/request/prompt_shapes', item: { id: 's', weight: 1, input_tokens: [1, 2], output_tokens: [3, 4] } }), edit(BASE_YAML, '  retries: 0\n', '  retries: 0\n  prompt_shapes:\n    - { id: s, weight: 1, input_tokens: [1, 2], output_tokens: [3, 4] }\n'));
      assert.strictEqual(applyForm('workload:\n  stages:\n  drain: 1m\n', { op: 'append', pointer: '/workload/stages', item: { target: 5, duration: '10s' } }), 'workload:\n  stages:\n    - { target: 5, duration: 10s }\n  drain: 1m\n');
    });

    it('into a flow list and into JSON', () => {
      assert.strictEqual(applyForm('workload:\n  stages: [{ target: 5, duration: 10s }]\n', { op: 'append', pointer: '/workload/stages', item: { target: 9, duration: '1m' } }), 'workload:\n  stages: [{ target: 5, duration: 10s }, { target: 9, duration: 1m }]\n');
      const json = applyForm(BASE_JSON, { op: 'append', pointer: '/budgets', item: { allocates: 'total_ms.p95', phases: { gateway: '1s' } } }, 'b.loadcontract.json');
      assert.deepStrictEqual((JSON.parse(json) as { budgets: unknown[] }).budgets[1], { allocates: 'total_ms.p95', phases: { gateway: '1s' } });
    });
  });

  describe('round trips on every sample and fixture contract', () => {
    const all = contracts();

    it('runs on the samples, the fixtures, the template and the bases', () => {
      assert.ok(all.length >= 8, `${all.length} contracts`);
      assert.ok(all.some((c) => c.file.endsWith('.json')));
    });

    it('every scalar: set to another value touches only its range, the value reads back, and setting it back restores the text byte for byte', function () {
      this.timeout(60_000);
      let checked = 0;
      for (const c of all) {
        const before = values(c.text, c.file);
        for (const [pointer, e] of parseSource(c.text, c.file).entries) {
          if (e.kind === 'map' || e.kind === 'seq' || pointer === '') continue;
          const input = otherInput(pointer, e.raw);
          if (input === undefined) continue;
          const edits = formEditToTextEdits(parseSource(c.text, c.file), { op: 'set', pointer, input });
          assert.strictEqual(edits.length, 1, `${c.name} ${pointer}`);
          assert.deepStrictEqual([edits[0].start, edits[0].end], [e.value.start, e.value.end], `${c.name} ${pointer}: only the value's range`);
          const changed = applyEdits(c.text, edits);
          const after = values(changed, c.file);
          for (const [p, v] of before) if (p !== pointer) assert.deepStrictEqual(after.get(p), v, `${c.name}: ${p} changed when ${pointer} was set`);
          assert.deepStrictEqual(after.get(pointer), expectedValue(pointer, input), `${c.name} ${pointer} reads back`);
          checked++;
          // A key without a value has nothing to be set back to (the form would remove the key).
          if (e.raw === null) continue;
          const back = typeof e.raw === 'string' ? e.raw : String(e.raw);
          assert.strictEqual(applyForm(changed, { op: 'set', pointer, input: back }, c.file), c.text, `${c.name} ${pointer} back to ${back}`);
        }
      }
      assert.ok(checked > 300, `${checked} scalars`);
    });

    it('every form field absent from a contract: inserted, it reads back with the rest unchanged; removed again, the text is byte for byte the original', function () {
      this.timeout(60_000);
      const fields = ['/workload/calls_per_session', '/workload/pre_allocated_vus', '/workload/ramp', '/request/priority', '/request/base_url', '/trace/id_tag', '/trace/root/span', '/slo/ttft_ms/p99', '/slo/itl_ms/p95', '/gates/scheduler_lag_ms', '/windows/size', '/claim/statement'];
      let checked = 0;
      for (const c of all) {
        const source = parseSource(c.text, c.file);
        for (const pointer of fields) {
          if (source.entries.has(pointer)) continue;
          // The topmost key the insert creates: what a removal takes away again.
          const segs = pointer.split('/').slice(1);
          let created = '';
          for (const s of segs) {
            created = `${created}/${s}`;
            if (!source.entries.has(created)) break;
          }
          const kind = fieldKind(pointer)?.kind;
          const input = kind === 'duration' ? '2s' : kind === 'integer' ? '3' : 'value-x';
          const inserted = applyForm(c.text, { op: 'set', pointer, input }, c.file);
          const after = values(inserted, c.file);
          const want = kind === 'integer' ? 3 : input;
          assert.deepStrictEqual(after.get(pointer), want, `${c.name} ${pointer}`);
          for (const [p, v] of values(c.text, c.file)) assert.deepStrictEqual(after.get(p), v, `${c.name}: ${p} changed when ${pointer} was inserted`);
          assert.strictEqual(applyForm(inserted, { op: 'remove', pointer: created }, c.file), c.text, `${c.name}: remove ${created}`);
          checked++;
        }
      }
      assert.ok(checked > 40, `${checked} insertions`);
    });
  });
});
