/**
 * Editor-side figures (docs/performance.md): extension activation time (dist/extension.js loaded with a minimal
 * fake `vscode` module; DuckDB must not load on activation), contract validation time per change on
 * a 500-line contract and keystroke → diagnostics through the contract worker (bench/contractValidation.ts
 * when present), waterfall first paint (not yet).
 * `node out/bench/run/editor.js activation` prints one JSON line; main.ts runs it in a fresh process
 * so the module cache is cold, the way the extension host loads it.
 */
import { existsSync, readFileSync } from 'fs';
import * as path from 'path';

export interface ActivationResult {
  requireMs: number;
  activateMs: number;
  duckdbLoaded: boolean;
  commands: number;
}

/**
 * A value that accepts any use (property, call, `new`) and returns another such value: enough of
 * the VS Code API surface for activate() to register its commands without an editor.
 */
function anything(name: string, registered: string[]): unknown {
  const fn = function fake(): void {};
  return new Proxy(fn, {
    get(_t, prop) {
      if (prop === 'then') return undefined; // not a thenable: `await` must not wait on it
      if (prop === Symbol.toPrimitive) return () => name;
      if (prop === 'dispose') return () => undefined;
      // Settings read after activation (the run worker's memory limit) get their defaults, as in a fresh profile.
      if (prop === 'get' && name.endsWith('getConfiguration()')) return (_key: string, fallback?: unknown) => fallback;
      if (prop === 'registerCommand' || prop === 'registerTextEditorCommand') {
        return (id: string) => {
          registered.push(id);
          return { dispose: () => undefined };
        };
      }
      return anything(`${name}.${String(prop)}`, registered);
    },
    // Assignments (a status bar item's name, text, command) are accepted and forgotten: the target is a
    // function, whose own `name` is read-only.
    set() {
      return true;
    },
    apply() {
      return anything(`${name}()`, registered);
    },
    construct() {
      return anything(`new ${name}`, registered) as object;
    },
  });
}

export async function measureActivation(repoRoot: string): Promise<ActivationResult> {
  const registered: string[] = [];
  const Module = require('module') as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = Module._resolveFilename;
  // `vscode` exists only inside the extension host: resolve it to a fake id we put in require.cache.
  Module._resolveFilename = function resolve(request: string, ...rest: unknown[]): string {
    return request === 'vscode' ? 'vscode' : original.call(this, request, ...rest);
  };
  // esbuild's __toESM copies the module's own keys, so the fake lists every top-level name of the
  // VS Code API (from @types/vscode), whatever the bundle's (possibly minified) variable names are.
  const entry = path.join(repoRoot, 'dist', 'extension.js');
  const exportsObject: Record<string, unknown> = {};
  const api = readFileSync(path.join(repoRoot, 'node_modules', '@types', 'vscode', 'index.d.ts'), 'utf8');
  for (const m of api.matchAll(/^\s*export (?:namespace|class|enum|function|const|let|var) ([A-Za-z_$][\w$]*)/gm)) {
    exportsObject[m[1]] ??= anything(`vscode.${m[1]}`, registered);
  }
  const fakeModule = { id: 'vscode', filename: 'vscode', loaded: true, exports: exportsObject };
  (require.cache as Record<string, unknown>).vscode = fakeModule;

  const t0 = performance.now();
  const ext = require(entry) as { activate: (context: unknown) => unknown };
  const t1 = performance.now();
  const context = {
    subscriptions: [] as unknown[],
    extensionPath: repoRoot,
    extensionUri: anything('extensionUri', registered),
    globalState: anything('globalState', registered),
    workspaceState: anything('workspaceState', registered),
    secrets: anything('secrets', registered),
    storageUri: undefined,
    globalStorageUri: anything('globalStorageUri', registered),
    logUri: anything('logUri', registered),
    extensionMode: 1,
    asAbsolutePath: (p: string) => path.join(repoRoot, p),
  };
  await ext.activate(context);
  const t2 = performance.now();
  const duckdbLoaded = Object.keys(require.cache).some((k) => k.includes('@duckdb'));
  return { requireMs: t1 - t0, activateMs: t2 - t1, duckdbLoaded, commands: registered.length };
}

export interface ValidationFigure {
  measured: boolean;
  text: string;
}

/** Calls bench/contractValidation.ts when the contract engineer's bench is present. */
export function measureContractValidation(outBench: string): ValidationFigure {
  const file = path.join(outBench, 'contractValidation.js');
  if (!existsSync(file)) return { measured: false, text: 'not measured (bench/contractValidation.ts absent)' };
  type Run = { lines: number; iterations: number; firstMs: number; wallMedianMs: number; wallP95Ms: number };
  const mod = require(file) as { benchContractValidation?: (iterations?: number, warmup?: number) => Run };
  if (typeof mod.benchContractValidation !== 'function') return { measured: false, text: 'not measured (no benchContractValidation export)' };
  // From the first edit on (V8 still tiering the code up), then again once warm: both are keystrokes.
  const cold = mod.benchContractValidation(200, 0);
  const warm = mod.benchContractValidation(200, 50);
  return {
    measured: true,
    text: `${cold.lines}-line contract, ${cold.iterations} single-character edits from the first one: median ${cold.wallMedianMs.toFixed(2)} ms, p95 ${cold.wallP95Ms.toFixed(2)} ms per change; `
      + `the next ${warm.iterations} (warm): median ${warm.wallMedianMs.toFixed(2)} ms, p95 ${warm.wallP95Ms.toFixed(2)} ms (first parse incl. schema compile ${cold.firstMs.toFixed(1)} ms)`,
  };
}

/** Keystroke → diagnostics through the extension's scheduler and contract worker (bench/contractValidation.ts). */
export async function measureContractTyping(outBench: string): Promise<string[]> {
  const file = path.join(outBench, 'contractValidation.js');
  if (!existsSync(file)) return ['- Contract keystroke → diagnostics: not measured (bench/contractValidation.ts absent)'];
  type Typing = { firstInWorkerMs: number; results: unknown[] };
  const mod = require(file) as { benchContractTyping: (bursts?: number) => Promise<Typing>; typingLine: (r: unknown) => string };
  const r = await mod.benchContractTyping(24);
  return [
    `- Contract keystroke → diagnostics (500 lines, 24 typing bursts per variant, interleaved; first validation through a fresh worker ${r.firstInWorkerMs.toFixed(0)} ms, off the host's thread):`,
    ...r.results.map((t) => `  - ${mod.typingLine(t)}`),
  ];
}

if (require.main === module) {
  const repoRoot = path.resolve(__dirname, '..', '..', '..');
  measureActivation(repoRoot)
    .then((r) => process.stdout.write(`${JSON.stringify(r)}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
