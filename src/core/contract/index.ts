/** Public surface of the load-contract core (no `vscode` import anywhere under this folder). */
import { readFile } from 'node:fs/promises';
import { parseContract } from './validate';
import type { ContractValidation } from './validate';

export { parseContract } from './validate';
export type { ContractValidation } from './validate';
export { contractToAnalysis, steadyWindow, declaredRequestRatePerSecond } from './toAnalysis';
export { LOAD_CONTRACT_SCHEMA } from './rules/schema';
export type { ContractDiagnostic, LoadContract, TextEdit, OffsetRange, ContractSeverity } from './types';

/** Reads and validates a contract file; a missing or unreadable file is one error diagnostic. */
export async function loadContractFile(path: string): Promise<ContractValidation> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return { diagnostics: [{ range: { start: 0, end: 0 }, line: 1, column: 1, severity: 'error', code: 'file-unreadable', message: `Cannot read the contract: ${reason}` }] };
  }
  return parseContract(text, path);
}
export { CONTRACT_TEMPLATE } from './template';
export { generateK6Script, K6GenerationError } from './k6/k6Script';
export { schemaAt } from './rules/schemaCheck';
export { parseSource } from './parse/sourceMap';
export type { ParsedSource, SourceEntry } from './parse/sourceMap';
export type { JsonSchema } from './rules/schema';
