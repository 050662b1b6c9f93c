import * as assert from 'assert';
import * as path from 'path';
import * as vm from 'vm';
import { randomBytes } from 'crypto';
import { parse } from 'acorn';
import type { Node as AcornNode } from 'acorn';
import { loadContractFile, parseContract } from '../../../src/core/contract';
import { parseDuration } from '../../../src/core/contract/parse/durations';
import { generateK6Script, K6GenerationError } from '../../../src/core/contract/k6/k6Script';
import type { LoadContract } from '../../../src/core/contract';
import { BASE_YAML, edit } from './helpers';

const SAMPLES = path.resolve(__dirname, '../../../../samples');

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface AstNode {
  type: string;
  [k: string]: unknown;
}

/** Evaluates a literal-only AST expression (what `options` must be), refusing anything else. */
function literal(node: AstNode): Json {
  switch (node.type) {
    case 'Literal':
      return node.value as Json;
    case 'UnaryExpression':
      assert.strictEqual(node.operator, '-');
      return -(literal(node.argument as AstNode) as number);
    case 'ArrayExpression':
      return (node.elements as AstNode[]).map(literal);
    case 'ObjectExpression': {
      const out: { [k: string]: Json } = {};
      for (const p of node.properties as AstNode[]) {
        const key = p.key as AstNode;
        out[String(key.type === 'Identifier' ? key.name : key.value)] = literal(p.value as AstNode);
      }
      return out;
    }
    default:
      throw new Error(`options must be a literal, found ${node.type}`);
  }
}

function programOf(script: string): AstNode[] {
  const ast = parse(script, { ecmaVersion: 2022, sourceType: 'module' }) as unknown as { body: AstNode[] };
  return ast.body;
}

function optionsOf(script: string): { [k: string]: Json } {
  for (const stmt of programOf(script)) {
    if (stmt.type !== 'ExportNamedDeclaration') continue;
    const decl = stmt.declaration as AstNode | null;
    for (const d of (decl?.declarations as AstNode[] | undefined) ?? []) {
      if ((d.id as AstNode).name === 'options') return literal(d.init as AstNode) as { [k: string]: Json };
    }
  }
  throw new Error('no exported options');
}

async function sample(name: string): Promise<LoadContract> {
  const r = await loadContractFile(path.join(SAMPLES, name));
  assert.ok(r.contract);
  return r.contract;
}

const ms = (v: Json): number => {
  const d = parseDuration(v);
  assert.ok(d.ok, `not a duration: ${String(v)}`);
  return d.ms;
};

describe('k6 script generation', () => {
  it('generates valid JavaScript for every sample', async () => {
    for (const name of ['steady', 'saturation', 'streaming']) {
      const script = generateK6Script(await sample(`${name}.loadcontract.yaml`));
      assert.doesNotThrow(() => programOf(script), name);
    }
  });

  it('round-trips the steady sample: ramp scenario, then the declared constant-arrival-rate plateau', async () => {
    const c = await sample('steady.loadcontract.yaml');
    const o = optionsOf(generateK6Script(c)) as { scenarios: { [k: string]: { [k: string]: Json } }; thresholds: { [k: string]: string[] } };
    const { ramp, plateau } = o.scenarios;
    assert.strictEqual(plateau.executor, 'constant-arrival-rate');
    assert.strictEqual(plateau.rate, c.workload.rate);
    assert.strictEqual(ms(plateau.timeUnit), c.workload.timeUnitMs);
    assert.strictEqual(ms(plateau.duration), c.workload.plateauMs);
    assert.strictEqual(ms(plateau.startTime), c.workload.rampMs);
    assert.strictEqual(ms(plateau.gracefulStop), c.workload.drainMs);
    assert.strictEqual(plateau.maxVUs, c.workload.maxInFlight);
    assert.strictEqual(plateau.preAllocatedVUs, c.workload.preAllocatedVus);
    assert.strictEqual(ramp.executor, 'ramping-arrival-rate');
    assert.deepStrictEqual(ramp.stages, [{ target: 10, duration: '10s' }]);
    assert.deepStrictEqual(o.thresholds, {
      'http_req_duration{expected_response:true,scenario:plateau}': ['p(95)<=12000'],
      'http_req_waiting{expected_response:true,scenario:plateau}': ['p(95)<=2000'],
      http_req_failed: ['rate<=0.05'],
      dropped_iterations: ['count<=0'],
    });
  });

  it('round-trips the saturation stages', async () => {
    const c = await sample('saturation.loadcontract.yaml');
    const o = optionsOf(generateK6Script(c)) as { scenarios: { stages: { [k: string]: Json } }; thresholds: { [k: string]: string[] } };
    const s = o.scenarios.stages;
    assert.strictEqual(s.executor, 'ramping-arrival-rate');
    const stages = (s.stages as { target: number; duration: string }[]).map((x) => ({ target: x.target, durationMs: ms(x.duration) }));
    assert.deepStrictEqual(stages, c.workload.stages);
    assert.strictEqual(s.maxVUs, 600);
    assert.deepStrictEqual(o.thresholds['http_req_duration{expected_response:true}'], ['p(95)<=12000', 'p(99)<=20000']);
    assert.deepStrictEqual(o.thresholds.dropped_iterations, ['count<=0']);
  });

  it('hybrid model: one iteration is a session of calls_per_session sequential calls', async () => {
    const script = generateK6Script(await sample('streaming.loadcontract.yaml'));
    assert.match(script, /const CALLS_PER_ITERATION = 3;/);
    assert.match(script, /const STREAMING = true;/);
    assert.match(script, /const TIMEOUT = "2m";/);
  });

  it('records the trace ID as metadata and never as a tag; issues valid, distinct traceparents', async () => {
    const script = generateK6Script(await sample('steady.loadcontract.yaml'));
    assert.match(script, /exec\.vu\.metrics\.metadata\[TRACE_ID_KEY\] = trace\.traceId;/);
    assert.doesNotMatch(script, /tags:\s*\{[^}]*trace/);
    // Run the script's own helpers (extracted from the AST) with Node's CSPRNG standing in for k6/crypto.
    const fns = programOf(script).filter((s) => s.type === 'FunctionDeclaration' && ['hex', 'newTraceparent'].includes(String((s.id as AstNode).name)));
    assert.strictEqual(fns.length, 2);
    const code = fns.map((f) => script.slice(f.start as number, f.end as number)).join('\n');
    const ctx = vm.createContext({ randomBytes: (n: number) => new Uint8Array(randomBytes(n)).buffer });
    vm.runInContext(code, ctx);
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const t = vm.runInContext('newTraceparent()', ctx) as { traceId: string; header: string };
      assert.match(t.header, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      assert.strictEqual(t.header.slice(3, 35), t.traceId);
      seen.add(t.traceId);
    }
    assert.strictEqual(seen.size, 1000);
  });

  it('retries are never implemented: the script has no loop around the request', async () => {
    const script = generateK6Script(await sample('steady.loadcontract.yaml'));
    assert.strictEqual(script.match(/http\.request\(/g)?.length, 1);
    assert.doesNotMatch(script, /retry\s*\(|while\s*\(.*res/);
  });

  it('closed model maps to constant-vus with vus and ramp+plateau duration', () => {
    const text = edit(edit(edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: constant-vus'), '  rate: 10\n', '  vus: 7\n  ramp: 30s\n'), 'model: open', 'model: closed');
    const r = parseContract(text, 'c.yaml');
    assert.ok(r.contract, JSON.stringify(r.diagnostics));
    const o = optionsOf(generateK6Script(r.contract)) as { scenarios: { plateau: { [k: string]: Json } }; thresholds: { [k: string]: string[] } };
    assert.deepStrictEqual(o.scenarios.plateau, { executor: 'constant-vus', vus: 7, duration: '630s', gracefulStop: '30s' });
    assert.strictEqual(o.thresholds.dropped_iterations, undefined); // closed models do not drop
  });

  it('refuses iteration-count executors with a clear error', () => {
    const text = edit(edit(edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: shared-iterations'), '  rate: 10\n', '  vus: 7\n'), 'model: open', 'model: closed');
    const r = parseContract(text, 'c.yaml');
    assert.ok(r.contract);
    const c = r.contract;
    assert.throws(() => generateK6Script(c), (e: unknown) => e instanceof K6GenerationError && /shared-iterations/.test(e.message));
  });
});

export type { AcornNode };
