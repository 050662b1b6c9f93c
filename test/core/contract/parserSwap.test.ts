/**
 * Before the fast path goes: parseContract's diagnostics (codes, severities, messages, ranges, lines,
 * columns, fixes) and contracts with the fast path and with the `yaml` library alone, on every sample
 * and fixture contract and on mutated variants of each (line-level edits and seeded character edits).
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { buildLargeContract } from '../../../bench/contractValidation';
import { Prng } from '../../../bench/generate/prng';
import { parseContract } from '../../../src/core/contract';
import { parseFastYaml } from '../../../src/core/contract/fastYaml';
import * as sourceMap from '../../../src/core/contract/sourceMap';
import { CONTRACT_TEMPLATE } from '../../../src/core/contract/template';
import { repoRoot } from '../../helpers/paths';
import { BASE_JSON, BASE_YAML } from './helpers';

const CONTRACT_DIRS = ['samples', 'test/fixtures/cli', 'test/vscode/fixtures/contracts'];

function contractFiles(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const dir of CONTRACT_DIRS) {
    for (const f of fs.readdirSync(path.join(repoRoot, dir))) {
      if (/\.loadcontract\.(ya?ml|json)$/.test(f)) out.push({ name: `${dir}/${f}`, text: fs.readFileSync(path.join(repoRoot, dir, f), 'utf8') });
    }
  }
  return out;
}

/** Each line deleted, indented one more, commented out, given a trailing comment, emptied after its colon. */
function lineVariants(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    const with_ = (l: string | undefined): string => [...lines.slice(0, i), ...(l === undefined ? [] : [l]), ...lines.slice(i + 1)].join('\n');
    out.push(with_(undefined), with_(` ${line}`), with_(`# ${line}`), with_(`${line}  # note`), with_(line.replace(/: .*/, ':')));
  });
  return out;
}

const TYPED = 'abz019 .:-_[]{},#"\'\n';

/** Seeded single-character edits as typing makes them: delete, insert, replace, duplicate. */
function charVariants(text: string, count: number, seed: number): string[] {
  const rng = new Prng(seed);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    const at = Math.floor(rng.uniform() * text.length);
    const c = TYPED[Math.floor(rng.uniform() * TYPED.length)];
    const op = Math.floor(rng.uniform() * 4);
    if (op === 0) out.push(text.slice(0, at) + text.slice(at + 1));
    else if (op === 1) out.push(text.slice(0, at) + c + text.slice(at));
    else if (op === 2) out.push(text.slice(0, at) + c + text.slice(at + 1));
    else out.push(text.slice(0, at) + text.slice(at, at + 1) + text.slice(at));
  }
  return out;
}

/** parseContract with sourceMap.parseSource swapped for the library-only parse (validate.ts reads the export at call time). */
function withLibraryOnly<T>(fn: () => T): T {
  const exportsObject = sourceMap as { parseSource: typeof sourceMap.parseSource };
  const fast = exportsObject.parseSource;
  exportsObject.parseSource = sourceMap.parseSourceWithLibrary;
  try {
    return fn();
  } finally {
    exportsObject.parseSource = fast;
  }
}

describe('contract diagnostics: fast path vs the yaml library alone', () => {
  it('the swap reaches parseContract (a text only the library can parse is unaffected; the fast path is really bypassed)', () => {
    let calls = 0;
    const exportsObject = sourceMap as { parseSource: typeof sourceMap.parseSource };
    const fast = exportsObject.parseSource;
    exportsObject.parseSource = (t, f) => {
      calls++;
      return sourceMap.parseSourceWithLibrary(t, f);
    };
    try {
      parseContract(BASE_YAML, 'x.loadcontract.yaml');
    } finally {
      exportsObject.parseSource = fast;
    }
    assert.strictEqual(calls, 1);
  });

  it('gives identical diagnostics and contracts on every sample, fixture, template and their mutated variants', function () {
    this.timeout(600_000);
    const bases = [
      ...contractFiles(),
      { name: 'template', text: CONTRACT_TEMPLATE },
      { name: 'BASE_YAML', text: BASE_YAML },
      { name: 'BASE_JSON', text: BASE_JSON, json: true },
      { name: 'bench-500', text: buildLargeContract(500) },
    ];
    let total = 0;
    let fastTaken = 0;
    let withDiagnostics = 0;
    bases.forEach((b, k) => {
      const file = 'json' in b ? 'v.loadcontract.json' : 'v.loadcontract.yaml';
      const variants = [b.text, ...lineVariants(b.text), ...charVariants(b.text, 300, 1000 + k)];
      for (const text of variants) {
        total++;
        if (parseFastYaml(text)) fastTaken++;
        const withFast = parseContract(text, file);
        const alone = withLibraryOnly(() => parseContract(text, file));
        if (withFast.diagnostics.length > 0) withDiagnostics++;
        assert.deepStrictEqual(alone, withFast, `${b.name}: ${JSON.stringify(text.slice(0, 120))}`);
      }
    });
    // The comparison means something only if the fast path was taken for most of them.
    assert.ok(fastTaken > total / 2, `fast path taken for ${fastTaken} of ${total}`);
    assert.ok(withDiagnostics > total / 4, `only ${withDiagnostics} of ${total} variants had diagnostics`);
    process.stdout.write(`      ${total} texts from ${bases.length} contracts, fast path on ${fastTaken}, ${withDiagnostics} with diagnostics\n`);
  });
});
