import * as assert from 'assert';
import { parse } from 'acorn';
import { parseContract } from '../../../src/core/contract';
import type { LoadContract } from '../../../src/core/contract';
import { generateK6Script } from '../../../src/core/contract/k6/k6Script';
import { BASE_YAML, edit } from './helpers';

/**
 * Every character class that JavaScript, JSON, YAML, HTML or a terminal treats specially, each inside
 * an attempt to break out of where the value is written (a string, a `//` comment, a block comment).
 */
const CLASSES: ReadonlyArray<[name: string, text: string]> = [
  ['line feed', '\n'],
  ['carriage return', '\r'],
  ['line separator U+2028', '\u2028'],
  ['paragraph separator U+2029', '\u2029'],
  ['NUL', '\u0000'],
  ['double quote', '"'],
  ['single quote', "'"],
  ['backslash', '\\'],
  ['backslash-u', '\\u0022'],
  ['</script>', '</script><script>'],
  ['template substitution', '${globalThis.x}'],
  ['backtick', '`'],
  ['end of block comment', '*/'],
  ['start of block comment', '/*'],
  ['line comment', '//'],
  ['HTML comment', '<!-- -->'],
  ['byte-order mark', '\ufeff'],
  ['lone high surrogate', '\ud800'],
  ['lone low surrogate', '\udc00'],
  ['C0 controls', '\u0001\u0007\u0008\u000b\u000c\u001b[2J\u001f'],
  ['DEL', '\u007f'],
  ['C1 controls (NEL, CSI)', '\u0085\u009b'],
  ['bidi override and isolates', '\u202e\u2066\u2069'],
  ['zero-width and word joiner', '\u200b\u2060'],
  ['YAML indicators', ': - ? # & * ! | > % @'],
];

/** Wraps the class into an injection attempt, as in the report of the issue. */
const attack = (text: string): string => `x${text}console.log('INJECTED'); //${text}*/ console.log('INJECTED2'); /*${text}y`;

/**
 * The contract fields that reach the generated script: a setter, and how to read the value back from
 * the script's constants (`route` is split at its first space into METHOD and PATH).
 */
const FIELDS: ReadonlyArray<[name: string, set: (c: LoadContract, v: string) => void, read: (body: AstNode[]) => unknown]> = [
  ['name', (c, v) => (c.name = v), (b) => constValue(b, 'CONTRACT_NAME')],
  ['route', (c, v) => (c.request.route = `POST /v1/${v}`), (b) => `${String(constValue(b, 'METHOD'))} ${String(constValue(b, 'PATH'))}`.replace(/^POST \/v1\//, '')],
  ['route method', (c, v) => (c.request.route = `${v.replace(/ /g, '_')} /v1`), (b) => String(constValue(b, 'METHOD'))],
  ['base_url', (c, v) => (c.request.baseUrl = v), (b) => constValue(b, 'BASE_URL')],
  ['model_class', (c, v) => (c.request.modelClass = v), (b) => constValue(b, 'MODEL')],
  ['trace id tag', (c, v) => (c.trace.idTag = v), (b) => constValue(b, 'TRACE_ID_KEY')],
  [
    'prompt shape id',
    (c, v) => (c.request.promptShapes = [{ id: v, weight: 1, inputTokens: { min: 1, max: 2 }, outputTokens: { min: 1, max: 2 } } as LoadContract['request']['promptShapes'][number]]),
    (b) => (constValue(b, 'PROMPT_SHAPES') as Array<{ id: string }>)[0].id,
  ],
];

interface AstNode {
  type: string;
  start: number;
  end: number;
  [k: string]: unknown;
}

function baseContract(): LoadContract {
  const r = parseContract(BASE_YAML, 'base.loadcontract.yaml');
  assert.ok(r.contract, JSON.stringify(r.diagnostics));
  return r.contract;
}

/** Parses the script as k6 does (an ES module) and returns its statements, comments and AST. */
function analyse(script: string): { body: AstNode[]; comments: string[]; ast: AstNode } {
  const comments: string[] = [];
  const ast = parse(script, { ecmaVersion: 2022, sourceType: 'module', onComment: (_block, text) => comments.push(text) }) as unknown as AstNode;
  return { body: ast.body as AstNode[], comments, ast };
}

/** The shape of the program: each statement's type and the names it declares. */
function shape(body: AstNode[]): string[] {
  return body.map((s) => {
    const decl = (s.type === 'ExportNamedDeclaration' ? s.declaration : s) as AstNode | null;
    const names = decl?.type === 'VariableDeclaration'
      ? (decl.declarations as AstNode[]).map((d) => String((d.id as AstNode).name))
      : decl?.type === 'FunctionDeclaration' && decl.id
        ? [String((decl.id as AstNode).name)]
        : [];
    return `${s.type}:${names.join(',')}`;
  });
}

/** Evaluates a literal-only expression (or `__ENV.X || literal`, the base URL's form). */
function literal(node: AstNode): unknown {
  switch (node.type) {
    case 'Literal':
      return node.value;
    case 'ArrayExpression':
      return (node.elements as AstNode[]).map(literal);
    case 'ObjectExpression':
      return Object.fromEntries((node.properties as AstNode[]).map((p) => [literal(p.key as AstNode), literal(p.value as AstNode)]));
    case 'LogicalExpression':
      return literal(node.right as AstNode);
    case 'UnaryExpression':
      return -(literal(node.argument as AstNode) as number);
    default:
      throw new Error(`not a literal: ${node.type}`);
  }
}

function constValue(body: AstNode[], name: string): unknown {
  for (const s of body) {
    const decl = (s.type === 'ExportNamedDeclaration' ? s.declaration : s) as AstNode | null;
    if (decl?.type !== 'VariableDeclaration') continue;
    for (const d of decl.declarations as AstNode[]) if ((d.id as AstNode).name === name) return literal(d.init as AstNode);
  }
  throw new Error(`no const ${name}`);
}

/** Every identifier in the program (an injected `console.log` would add `console`). */
function identifiers(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) identifiers(n, out);
  else if (node && typeof node === 'object') {
    const n = node as AstNode;
    if (n.type === 'Identifier') out.add(String(n.name));
    for (const [k, v] of Object.entries(n)) if (k !== 'type') identifiers(v, out);
  }
  return out;
}

/** Characters that must never appear raw in the script (jsLiteral escapes them). */
const RAW_FORBIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udfff]/;

describe('k6 script generation: every contract value is escaped', () => {
  const baseline = analyse(generateK6Script(baseContract(), { contractPath: 'base.loadcontract.yaml' }));
  const baseShape = shape(baseline.body);
  const baseIdentifiers = identifiers(baseline.ast);

  it('the baseline script declares the constants the escaping test reads', () => {
    for (const [field, , read] of FIELDS) assert.doesNotThrow(() => read(baseline.body), field);
    assert.ok(baseShape.some((s) => s.endsWith(':CONTRACT_FILE')));
    assert.ok(!baseIdentifiers.has('console'));
  });

  for (const [className, text] of CLASSES) {
    it(`${className}: same program, same comments, values round-trip, nothing raw`, () => {
      const value = attack(text);
      for (const [field, set, read] of FIELDS) {
        const contract = baseContract();
        set(contract, value);
        const script = generateK6Script(contract, { contractPath: `dir/${value}.loadcontract.yaml` });
        const where = `${className} in ${field}`;
        const parsed = analyse(script);
        assert.deepStrictEqual(shape(parsed.body), baseShape, `${where}: the statements we emit, and no others`);
        assert.deepStrictEqual(parsed.comments, baseline.comments, `${where}: comments are fixed text`);
        assert.deepStrictEqual([...identifiers(parsed.ast)].sort(), [...baseIdentifiers].sort(), `${where}: no injected identifier`);
        const expected = field === 'route method' ? value.replace(/ /g, '_') : value;
        assert.strictEqual(read(parsed.body), expected, `${where}: the value round-trips`);
        assert.strictEqual(constValue(parsed.body, 'CONTRACT_FILE'), `dir/${value}.loadcontract.yaml`, `${where}: the path round-trips`);
        const raw = RAW_FORBIDDEN.exec(script);
        assert.strictEqual(raw, null, `${where}: raw U+${raw?.[0].charCodeAt(0).toString(16)} in the script`);
      }
    });
  }

  it('the example of the issue: a name with U+2028 written in YAML gives a warning and an inert script', () => {
    const yaml = edit(BASE_YAML, 'name: base', `name: "x\\u2028console.log('INJECTED'); //"`);
    const r = parseContract(yaml, 'evil.loadcontract.yaml');
    assert.ok(r.contract, JSON.stringify(r.diagnostics));
    assert.strictEqual(r.contract.name, "x\u2028console.log('INJECTED'); //");
    const warning = r.diagnostics.find((d) => d.code === 'unsafe-characters');
    assert.ok(warning, 'validate warns');
    assert.strictEqual(warning.line, 2);
    assert.match(warning.message, /\\u2028/);
    const script = generateK6Script(r.contract, { contractPath: 'evil.loadcontract.yaml' });
    // The first line is fixed text: the reported exploit ran `node` on it.
    assert.strictEqual(script.split('\n')[0], '// Generated by Phasewise from the load contract named in CONTRACT_NAME (file: CONTRACT_FILE).');
    assert.ok(!identifiers(analyse(script).ast).has('console'));
  });

  it('YAML aliases: a resolved alias gives its anchor\'s value, an unresolved one is named', () => {
    const resolved = parseContract(edit(BASE_YAML, 'name: base', 'name: &n base-run').replace('model_class: m1\n  region', 'model_class: *n\n  region'), 'a.yaml');
    assert.strictEqual(resolved.contract?.request.modelClass, 'base-run', JSON.stringify(resolved.diagnostics));
    const unresolved = parseContract(edit(BASE_YAML, 'name: base', 'name: *alias'), 'b.yaml');
    assert.strictEqual(unresolved.contract, undefined);
    const d = unresolved.diagnostics.find((x) => x.severity === 'error');
    assert.ok(d);
    assert.strictEqual(d.line, 2);
    assert.match(d.message, /unresolved alias `\*alias`/);
    assert.ok(!unresolved.diagnostics.some((x) => /missing required key/i.test(x.message)), 'not "missing required key name"');
    const cyclic = parseContract(`${BASE_YAML}extra: &loop [1, *loop]\n`, 'c.yaml');
    assert.ok(cyclic.diagnostics.some((x) => /refers to a value that contains it/.test(x.message)), JSON.stringify(cyclic.diagnostics));
  });
});
