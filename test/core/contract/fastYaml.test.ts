import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { parse as parseYaml } from 'yaml';
import { buildLargeContract } from '../../../bench/contractValidation';
import { parseFastYaml } from '../../../src/core/contract/fastYaml';
import { parseSource, parseSourceWithLibrary } from '../../../src/core/contract/sourceMap';
import type { ParsedSource } from '../../../src/core/contract/sourceMap';
import { CONTRACT_TEMPLATE } from '../../../src/core/contract/template';
import { repoRoot } from '../../helpers/paths';
import { BASE_YAML } from './helpers';

const SAMPLES = path.join(repoRoot, 'samples');
const sampleTexts = fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.loadcontract.yaml')).map((f) => fs.readFileSync(path.join(SAMPLES, f), 'utf8'));

/** Everything a caller can observe of a parse, as plain data. */
function observable(s: ParsedSource): unknown {
  return { value: s.value, entries: [...s.entries], syntaxErrors: s.syntaxErrors, lineStarts: s.lineCounter.lineStarts };
}

/** Variants an editor passes through: each line deleted, indented one more, commented out, given a trailing comment. */
function lineVariants(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    const with_ = (l: string | undefined): string => [...lines.slice(0, i), ...(l === undefined ? [] : [l]), ...lines.slice(i + 1)].join('\n');
    out.push(with_(undefined), with_(` ${line}`), with_(`# ${line}`), with_(`${line}  # note`), with_(line.replace(/: .*/, ':')));
  });
  return out;
}

describe('contract fast-path YAML parser', () => {
  it('takes the template, the samples and the 500-line bench contract, with the values the yaml library reads', () => {
    for (const text of [CONTRACT_TEMPLATE, BASE_YAML, buildLargeContract(500), ...sampleTexts]) {
      const fast = parseFastYaml(text);
      assert.ok(fast, `fast path declined:\n${text.slice(0, 200)}`);
      assert.deepStrictEqual(fast.value, parseYaml(text));
    }
  });

  it('records key and value ranges found by plain string search', () => {
    const text = 'a: 1  # c\nb:\n  c: x y  \n  d:\n  e: [1, {f: "q"}]\ng:\n  - h: 0x1F\n  - 2.50\n';
    const fast = parseFastYaml(text);
    assert.ok(fast);
    assert.deepStrictEqual(fast.value, { a: 1, b: { c: 'x y', d: null, e: [1, { f: 'q' }] }, g: [{ h: 31 }, 2.5] });
    const at = (s: string, from = 0): { start: number; end: number } => {
      const start = text.indexOf(s, from);
      return { start, end: start + s.length };
    };
    assert.deepStrictEqual(fast.entries.get('/b/c')?.value, at('x y'));
    assert.deepStrictEqual(fast.entries.get('/b/c')?.key, { start: text.indexOf('c: x'), end: text.indexOf('c: x') + 1 });
    assert.deepStrictEqual(fast.entries.get('/b/e')?.value, at('[1, {f: "q"}]'));
    assert.deepStrictEqual(fast.entries.get('/b/e/1/f')?.value, at('"q"'));
    assert.strictEqual(fast.entries.get('/b/e/1/f')?.plain, false);
    assert.deepStrictEqual(fast.entries.get('/g/0/h')?.value, at('0x1F'));
    // `d:` without a value: an empty range at the end of its line, where the library puts the empty scalar.
    const d = text.indexOf('d:') + 2;
    assert.deepStrictEqual(fast.entries.get('/b/d')?.value, { start: d, end: d });
    assert.deepStrictEqual([...fast.entries.keys()], ['', '/a', '/b', '/b/c', '/b/d', '/b/e', '/b/e/0', '/b/e/1', '/b/e/1/f', '/g', '/g/0', '/g/0/h', '/g/1']);
  });

  it('declines what it does not handle, so the yaml library parses it (and reports its errors)', () => {
    const base = 'a: 1\nb:\n  c: 2\n';
    const declined = [
      'a: 1\nb:\n\tc: 2\n', // tab
      'a: 1\r\nb: 2\r\n', // CRLF
      'a: &x 1\nb: *x\n', // anchor, alias
      'a: !!str 1\n', // tag
      'a: |\n  text\n', // block scalar
      'a: 1\na: 2\n', // duplicate key
      'a: one\n  two\n', // multi-line plain scalar
      'a: [1,\n  2]\n', // flow collection over lines
      'a: "x\\ny"\n', // escape
      "a: 'it''s'\n", // quote escape
      'a:\n  c: 2\n    # deeper comment\n', // comment indented past what follows
      'a:\n- 1\n', // sequence at the key's indent
      'a:\n  c:  # x\n  d: 1\n', // comment after an empty value (the library stretches ranges over it)
      'a:\n  c:\n  # x\nb: 1\n',
      '---\na: 1\n', // document marker
      '{"a": 1}\n', // JSON
      'a: b: c\n', // nested mapping in a scalar
      '  a: 1\n', // indented root
    ];
    assert.ok(parseFastYaml(base), 'the control text takes the fast path');
    for (const text of declined) assert.strictEqual(parseFastYaml(text), undefined, JSON.stringify(text));
  });

  it('gives exactly what the yaml library gives for every edited variant of the template and the samples', () => {
    let fastCount = 0;
    let total = 0;
    for (const base of [CONTRACT_TEMPLATE, ...sampleTexts]) {
      for (const text of lineVariants(base)) {
        total++;
        if (parseFastYaml(text)) fastCount++;
        assert.deepStrictEqual(observable(parseSource(text, 'v.loadcontract.yaml')), observable(parseSourceWithLibrary(text, 'v.loadcontract.yaml')), text);
      }
    }
    // The comparison means something only if most variants went through the fast path.
    assert.ok(fastCount > total / 2, `fast path taken for ${fastCount} of ${total}`);
  });
});
