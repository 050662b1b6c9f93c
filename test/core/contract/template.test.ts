import * as assert from 'assert';
import { contractToAnalysis, CONTRACT_TEMPLATE, parseContract } from '../../../src/core/contract';

describe('contract template', () => {
  it('validates with no diagnostics at all', () => {
    assert.deepStrictEqual(parseContract(CONTRACT_TEMPLATE, 'new.loadcontract.yaml').diagnostics, []);
  });
  it('declares budgets that add up to its p95 SLO (150+100+400+1250+100 = 2000)', () => {
    const c = parseContract(CONTRACT_TEMPLATE, 'new.loadcontract.yaml').contract;
    assert.ok(c);
    const budgets = contractToAnalysis(c).gates.filter((g) => g.category === 'budget');
    assert.strictEqual(budgets.reduce((a, g) => a + g.limit, 0), 2000);
  });
});
