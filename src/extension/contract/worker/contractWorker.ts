/**
 * The contract worker thread (dist/contractWorker.js, or out/src/extension/contract/worker/contractWorker.js
 * under tsc): the language-service half of the contract editor and the form. The `yaml` library, ajv's schema
 * compilation (≈ 130 ms once) and every parse (≈ 10–30 ms for a 500-line contract on a busy machine)
 * run here, so the extension host's event loop only posts text and maps offsets (docs/performance.md: never held
 * > 50 ms). One long-lived thread: the host starts it on the first contract and keeps it.
 */
import { parentPort } from 'worker_threads';
import { CONTRACT_TEMPLATE, generateK6Script, parseContract } from '../../../core/contract';
import type { ContractValidation } from '../../../core/contract';
import { formEditToTextEdits, FormEditError } from '../../../core/contract/form/edits';
import { buildFormModel } from '../../../core/contract/form/model';
import { parseSource } from '../../../core/contract/parse/sourceMap';
import { validateSource } from '../../../core/contract/validate';
import { completionsAt, hoverAt } from './assist';
import { CONTRACT_REQUESTS, HOST_TO_WORKER, type HostToWorker, type K6Preview, type Requests, type WorkerToHost } from './workerProtocol';

function k6Preview({ contract, diagnostics }: ContractValidation, contractPath: string): K6Preview {
  if (!contract) {
    const first = diagnostics.find((d) => d.severity === 'error');
    return { kind: 'error', message: `the contract has errors; first at line ${first?.line ?? 1}: ${first?.message ?? 'unknown'}` };
  }
  try {
    return { kind: 'script', text: generateK6Script(contract, { contractPath }) };
  } catch (e) {
    return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
  }
}

function sync(p: Requests['sync']['params']): Requests['sync']['result'] {
  const started = performance.now();
  const source = parseSource(p.text, p.fileName);
  const validation = validateSource(source, p.fileName);
  const validateMs = performance.now() - started;
  const result: Requests['sync']['result'] = { key: p.key, version: p.version, diagnostics: validation.diagnostics, validateMs };
  const baseName = p.fileName.split(/[\\/]/).pop() ?? p.fileName;
  if (p.views.form) result.form = buildFormModel(source, validation.diagnostics, baseName);
  if (p.views.k6) result.k6 = k6Preview(validation, baseName);
  return result;
}

function edit(p: Requests['edit']['params']): Requests['edit']['result'] {
  try {
    return { kind: 'edits', edits: formEditToTextEdits(parseSource(p.text, p.fileName), p.edit) };
  } catch (e) {
    if (e instanceof FormEditError) return { kind: 'refused', reason: e.message };
    throw e;
  }
}

function answer(m: HostToWorker): unknown {
  switch (m.type) {
    case 'sync':
      return sync(m.params);
    case 'edit':
      return edit(m.params);
    case 'hover':
      return { hover: hoverAt(m.params.text, m.params.fileName, m.params.offset) };
    case 'complete':
      return { items: completionsAt(m.params.lines, m.params.line, m.params.character) };
    case 'template':
      return { text: CONTRACT_TEMPLATE };
    case 'k6':
      return k6Preview(parseContract(m.params.text, m.params.fileName), m.params.contractPath);
  }
}

function main(): void {
  const port = parentPort;
  if (port === null) throw new Error('contractWorker.js runs only as a worker thread (see contractClient.ts)');
  port.on('message', (raw: unknown) => {
    // A message that is not a declared request has no id to answer: it can only be our own bug.
    if (HOST_TO_WORKER.check(raw, 'request') !== undefined) return;
    const m = raw as HostToWorker;
    let reply: WorkerToHost;
    try {
      const bad = CONTRACT_REQUESTS[m.type].params.check(m.params, `${m.type} params`);
      reply = bad !== undefined ? { type: 'error', id: m.id, message: bad } : { type: 'result', id: m.id, result: answer(m) };
    } catch (e) {
      // A bug in a rule must cost one answer, not the thread: the host logs the error and goes on.
      reply = { type: 'error', id: m.id, message: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) };
    }
    port.postMessage(reply);
  });
}

main();
