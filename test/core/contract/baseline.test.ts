import * as assert from 'assert';
import { BASE_JSON, BASE_YAML, diagnose } from './helpers';

describe('contract baseline', () => {
  it('the base YAML contract has no diagnostics and yields a contract', () => {
    assert.deepStrictEqual(diagnose(BASE_YAML), []);
  });
  it('the base JSON contract has no diagnostics', () => {
    assert.deepStrictEqual(diagnose(BASE_JSON, 'base.loadcontract.json'), []);
  });
});
