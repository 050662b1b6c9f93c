import * as assert from 'assert';
import { parseSource } from '../../../src/core/contract/parse/sourceMap';
import { schemaAt } from '../../../src/core/contract/rules/schemaCheck';
import { keyAt, parentPointerByIndent } from '../../../src/extension/contract/schemaNav';
import { BASE_YAML } from './helpers';

describe('editor navigation helpers (vscode-free)', () => {
  const lines = BASE_YAML.split('\n');
  const lineOf = (s: string): number => lines.findIndex((l) => l.startsWith(s));

  it('finds the parent map of a new key by indentation', () => {
    assert.strictEqual(parentPointerByIndent(lines, lineOf('  drain: 30s'), 2), '/workload');
    assert.strictEqual(parentPointerByIndent(lines, lineOf('request:'), 0), '');
    // Inside the budget item's `phases` block and as a sibling of `allocates` in the item.
    assert.strictEqual(parentPointerByIndent(lines, lineOf('      gateway: 300ms'), 6), '/budgets/0/phases');
    assert.strictEqual(parentPointerByIndent(lines, lineOf('    phases:'), 4), '/budgets/0');
  });

  it('the schema knows what belongs there', () => {
    assert.ok(Object.keys(schemaAt('/budgets/0')?.properties as object).includes('when'));
    assert.strictEqual(schemaAt('/budgets/0/phases/gateway')?.$ref, '#/definitions/duration');
    assert.deepStrictEqual(schemaAt('/workload/model')?.enum, ['open', 'closed', 'hybrid']);
  });

  it('finds the key under the cursor', () => {
    const src = parseSource(BASE_YAML, 'b.yaml');
    assert.strictEqual(keyAt(src, BASE_YAML.indexOf('warmup_exclude') + 3), '/workload/warmup_exclude');
    assert.strictEqual(keyAt(src, BASE_YAML.indexOf('window: steady') + 1), '/budgets/0/when/window');
  });
});
