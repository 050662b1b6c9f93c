// The contract worker client in plain Node: a real worker thread (out/src/extension/contract/
// contractWorker.js, compiled by tsc next to the client). Its answers are compared with the core run in
// this process on the same texts.
import * as assert from 'assert';
import { existsSync, readFileSync } from 'fs';
import * as path from 'path';
import { buildLargeContract } from '../../bench/contractValidation';
import { CONTRACT_TEMPLATE, generateK6Script, parseContract } from '../../src/core/contract';
import { completionsAt, hoverAt } from '../../src/extension/contract/worker/assist';
import { ContractWorkerClient, defaultContractWorkerFile } from '../../src/extension/contract/worker/contractClient';
import { repoRoot } from '../helpers/paths';
import { edit, BASE_YAML } from '../core/contract/helpers';

const steadyPath = path.join(repoRoot, 'samples', 'steady.loadcontract.yaml');
const steady = readFileSync(steadyPath, 'utf8');

describe('contract worker client', function () {
  this.timeout(60_000);
  let client: ContractWorkerClient;
  beforeEach(() => {
    client = new ContractWorkerClient();
  });
  afterEach(() => client.dispose());

  it('finds the worker script next to the compiled client', () => {
    assert.ok(existsSync(defaultContractWorkerFile()), defaultContractWorkerFile());
  });

  it('validates as the core does in this process, for clean, broken and 500-line contracts', async () => {
    const texts = [steady, edit(BASE_YAML, 'plateau: 10m', 'plateau: 5m'), 'version: 1\nname: [\n', buildLargeContract(500)];
    let version = 0;
    for (const text of texts) {
      const r = await client.request('sync', { key: 'k', version: ++version, text, fileName: 'a.loadcontract.yaml', views: { form: false, k6: false } });
      assert.strictEqual(r.version, version);
      assert.deepStrictEqual(r.diagnostics, parseContract(text, 'a.loadcontract.yaml').diagnostics);
      assert.strictEqual(r.k6, undefined);
    }
  });

  it('adds the k6 preview when a view wants it: the script the core generates, or the first error', async () => {
    const ok = await client.request('sync', { key: 'k', version: 1, text: steady, fileName: steadyPath, views: { form: false, k6: true } });
    const contract = parseContract(steady, steadyPath).contract;
    assert.ok(contract);
    assert.deepStrictEqual(ok.k6, { kind: 'script', text: generateK6Script(contract, { contractPath: 'steady.loadcontract.yaml' }) });
    const broken = edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: sideways');
    const bad = await client.request('sync', { key: 'k', version: 2, text: broken, fileName: 'b.loadcontract.yaml', views: { form: false, k6: true } });
    const first = parseContract(broken, 'b.loadcontract.yaml').diagnostics.find((d) => d.severity === 'error');
    assert.ok(first);
    assert.deepStrictEqual(bad.k6, { kind: 'error', message: `the contract has errors; first at line ${first.line}: ${first.message}` });
  });

  it('answers hovers, completions and the template as the vscode-free helpers do', async () => {
    const offset = steady.indexOf('max_in_flight') + 2;
    const { hover } = await client.request('hover', { text: steady, fileName: steadyPath, offset });
    assert.deepStrictEqual(hover, hoverAt(steady, steadyPath, offset));
    assert.strictEqual(hover?.name, 'workload.max_in_flight');
    const lines = steady.split('\n');
    const line = lines.findIndex((l) => l.startsWith('  model: open'));
    const { items } = await client.request('complete', { lines, line, character: '  model: '.length });
    assert.deepStrictEqual(items.map((i) => i.label), ['open', 'closed', 'hybrid']);
    assert.deepStrictEqual(items, completionsAt(lines, line, '  model: '.length));
    assert.deepStrictEqual(await client.request('template', {}), { text: CONTRACT_TEMPLATE });
  });

  it('a request whose params do not match their declaration is refused with the path; the thread answers the next one', async () => {
    const bad = client.request('hover', { text: undefined as unknown as string, fileName: 'x.loadcontract.yaml', offset: 0 });
    await assert.rejects(bad, /hover params\.text: expected a string, got undefined/);
    const edit = await client.request('edit', { text: 'workload:\n  rate: 1\n', fileName: 'x.loadcontract.yaml', edit: { op: 'set', pointer: '/workload/rate', input: '2' } });
    assert.deepStrictEqual(edit, { kind: 'edits', edits: [{ start: 18, end: 19, newText: '2' }] });
    const refused = await client.request('edit', { text: 'a:\n  b: 1\n', fileName: 'x.loadcontract.yaml', edit: { op: 'set', pointer: '/a', input: '2' } });
    assert.deepStrictEqual(refused, { kind: 'refused', reason: '`/a` holds a mapping, not a value' });
    const r = await client.request('sync', { key: 'k', version: 1, text: steady, fileName: steadyPath, views: { form: false, k6: false } });
    assert.deepStrictEqual(r.diagnostics, parseContract(steady, steadyPath).diagnostics);
  });

  it('a worker that dies rejects what it held, and the next request starts a new one', async () => {
    const dying = new ContractWorkerClient(path.join(repoRoot, 'test', 'fixtures', 'extension', 'exitingWorker.js'));
    try {
      await assert.rejects(dying.request('template', {}), /exited with code 3/);
      await assert.rejects(dying.request('template', {}), /exited with code 3/);
    } finally {
      dying.dispose();
    }
    await assert.rejects(dying.request('template', {}), /stopped/);
  });
});
