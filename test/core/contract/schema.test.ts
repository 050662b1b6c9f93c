import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { LOAD_CONTRACT_SCHEMA } from '../../../src/core/contract';
import type { JsonSchema } from '../../../src/core/contract/rules/schema';

const ROOT = path.resolve(__dirname, '../../../..');

/** Every named property in the schema, with its path. */
function properties(node: JsonSchema, at: string, out: [string, JsonSchema][]): [string, JsonSchema][] {
  const props = node.properties as Record<string, JsonSchema> | undefined;
  for (const [k, v] of Object.entries(props ?? {})) {
    out.push([`${at}.${k}`, v]);
    properties(v, `${at}.${k}`, out);
  }
  const items = node.items as JsonSchema | undefined;
  if (items && typeof items === 'object') properties(items, `${at}[]`, out);
  const extra = node.additionalProperties as JsonSchema | boolean | undefined;
  if (extra && typeof extra === 'object') {
    const inner = extra.items as JsonSchema | undefined;
    properties(inner && typeof inner === 'object' ? inner : extra, `${at}.*`, out);
  }
  return out;
}

describe('contract schema', () => {
  it('has a description and at least one example on every property', () => {
    const all = properties(LOAD_CONTRACT_SCHEMA, '$', []);
    assert.ok(all.length > 60, `only ${all.length} properties found`);
    const missing = all.filter(([, s]) => typeof s.description !== 'string' || !Array.isArray(s.examples) || (s.examples as unknown[]).length === 0).map(([p]) => p);
    assert.deepStrictEqual(missing, []);
  });

  it('ships identical to schemas/loadcontract.schema.json (regenerate with npm run gen:schema)', () => {
    const shipped = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas/loadcontract.schema.json'), 'utf8')) as unknown;
    assert.deepStrictEqual(shipped, JSON.parse(JSON.stringify(LOAD_CONTRACT_SCHEMA)));
  });

  it('is registered for the contract file patterns in package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: Record<string, { fileMatch: string[]; url: string }[]> };
    assert.deepStrictEqual(pkg.contributes.jsonValidation.find((v) => v.url === './schemas/loadcontract.schema.json')?.fileMatch, ['*.loadcontract.json']);
    assert.deepStrictEqual(pkg.contributes.yamlValidation.find((v) => v.url === './schemas/loadcontract.schema.json')?.fileMatch, ['*.loadcontract.yaml', '*.loadcontract.yml']);
  });

  it('src/core/contract never imports vscode', () => {
    const dir = path.join(ROOT, 'src/core/contract');
    const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
    assert.ok(files.some((f) => f.endsWith(path.join('form', 'budget.ts'))), 'the form folder is searched too');
    const offenders = files.filter((f) => /from ['"]vscode['"]|require\(['"]vscode['"]\)/.test(fs.readFileSync(f, 'utf8')));
    assert.deepStrictEqual(offenders, []);
  });
});
