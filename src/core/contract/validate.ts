/** The validation pipeline: syntax → schema → durations → semantic rules → typed contract. */
import { checkBudgets } from './rules/budgetRules';
import { ContractContext } from './rules/context';
import { checkDurations } from './rules/durationRules';
import { checkFiniteNumbers } from './rules/numberRules';
import { normalizeContract } from './parse/normalize';
import { checkRequest } from './rules/requestRules';
import { checkSchema } from './rules/schemaCheck';
import { checkCharacters } from './rules/textRules';
import { parseSource } from './parse/sourceMap';
import type { ParsedSource } from './parse/sourceMap';
import type { ContractDiagnostic, LoadContract } from './types';
import { checkWindows, checkWorkload } from './rules/workloadRules';

export interface ContractValidation {
  contract?: LoadContract;
  diagnostics: ContractDiagnostic[];
}

const ORIGIN_POINTERS = /^\/(slo\/|gates\/|workload\/(rate|plateau)$|budgets\/\d+\/phases\/)/;

const SEVERITY_ORDER = { error: 0, warning: 1, information: 2, hint: 3 } as const;

/** Validates contract text. `contract` is set only when there is no error-severity diagnostic. */
export function parseContract(text: string, fileName: string): ContractValidation {
  return validateSource(parseSource(text, fileName), fileName);
}

/** Validates an already parsed text (the form reads the same parse for its fields and edits). */
export function validateSource(source: ParsedSource, fileName: string): ContractValidation {
  const ctx = new ContractContext(source);
  for (const e of source.syntaxErrors) ctx.report('syntax', 'error', e.range, `Syntax error: ${e.message}`);
  const root = source.value;
  if (source.syntaxErrors.length === 0) {
    if (root === null || typeof root !== 'object' || Array.isArray(root)) {
      ctx.report('schema-type', 'error', ctx.firstLine(), 'A load contract is a mapping with `version`, `name`, `workload`, `request` and `slo`; run "Phasewise: New Load Contract" for a template.');
    } else {
      checkSchema(ctx);
      checkFiniteNumbers(ctx);
      checkDurations(ctx);
      checkWorkload(ctx);
      checkWindows(ctx);
      checkRequest(ctx);
      checkBudgets(ctx);
      checkCharacters(ctx);
    }
  }
  const diagnostics = ctx.diagnostics.sort((a, b) => a.range.start - b.range.start || SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const contract = normalizeContract(ctx);
  const lines: Record<string, number> = {};
  // Only the pointers a gate can originate from: line lookups for every prompt-shape token add up.
  // forEach, not for…of with destructuring: no [key, value] array per entry on every keystroke.
  source.entries.forEach((entry, ptr) => {
    if (ORIGIN_POINTERS.test(ptr)) lines[ptr] = source.lineCounter.linePos((entry.key ?? entry.value).start).line;
  });
  contract.source = { fileName, lines };
  return { contract, diagnostics };
}
