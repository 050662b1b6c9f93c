/**
 * `--contract FILE`: the contract layer parses and validates; here its diagnostics become compiler-style
 * lines (`file:line:col: severity code message`) and any error stops the run with exit 4, because
 * analysing against a contract that does not say what its author meant would produce a wrong verdict.
 */
import { createHash } from 'crypto';
import * as path from 'path';
import type { AnalysisOptions, GateSpec } from '../analysis/options';
import { contractToAnalysis, loadContractFile, readContractText } from '../contract/index';
import type { ContractDiagnostic } from '../contract/types';
import { ContractError } from '../errors';

export interface ContractInput {
  options: Partial<AnalysisOptions>;
  gates: GateSpec[];
  /** Warnings and hints, formatted, for stderr (they do not stop the run). */
  notes: string[];
}

export function formatDiagnostic(file: string, d: ContractDiagnostic): string {
  return `${file}:${d.line}:${d.column}: ${d.severity} ${d.code} ${d.message}`;
}

export async function readContractInput(file: string): Promise<ContractInput> {
  const { contract, diagnostics } = await loadContractFile(file);
  const formatted = diagnostics.map((d) => formatDiagnostic(file, d));
  const hasErrors = diagnostics.some((d) => d.severity === 'error');
  if (!contract || hasErrors) {
    throw new ContractError(file, formatted.length > 0 ? formatted : [`${file}:1:1: error contract-unreadable the file is not a load contract`]);
  }
  const { options, gates } = contractToAnalysis(contract);
  // The contract's identity for the report's provenance: what a later comparison checks first.
  // Its UTF-8 text (readContractText checked it) is its bytes.
  const bytes = Buffer.from(await readContractText(file), 'utf8');
  options.contract = { path: path.resolve(file), name: contract.name, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
  return { options, gates, notes: formatted };
}
