/** Public surface of the load-contract core (no `vscode` import anywhere under this folder). */
import { InputError } from '../errors';
import { readSmallText } from '../formats/input/inputFile';
import { parseContract } from './validate';
import type { ContractValidation } from './validate';

export { parseContract } from './validate';
export type { ContractValidation } from './validate';
export { contractToAnalysis, steadyWindow, declaredRequestRatePerSecond } from './toAnalysis';
export { LOAD_CONTRACT_SCHEMA } from './rules/schema';
export type { ContractDiagnostic, LoadContract, TextEdit, OffsetRange, ContractSeverity } from './types';

export const CONTRACT_FILE_EXPECTED = 'a load contract file (*.loadcontract.yaml)';
/** A 500-line contract is ≈ 15 KB: the bound only stops a device or a wrong file from being read whole. */
const MAX_CONTRACT_BYTES = 4 << 20;

/** A contract file's text; an InputError (CONTRACT_FILE_EXPECTED, found …) for a device, a huge file, bytes that are not UTF-8. */
export function readContractText(path: string): Promise<string> {
  return readSmallText(path, CONTRACT_FILE_EXPECTED, MAX_CONTRACT_BYTES);
}

/** Reads and validates a contract file; a missing or unreadable file is one error diagnostic. */
export async function loadContractFile(path: string): Promise<ContractValidation> {
  let text: string;
  try {
    text = await readContractText(path);
  } catch (e) {
    const reason = e instanceof InputError ? `expected ${e.expected}, found ${e.found ?? 'nothing'}` : e instanceof Error ? e.message : String(e);
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
