// Two esbuild contexts: node/cjs for the extension and the CLI, browser/iife for webviews. `--watch`
// rebuilds on change. DuckDB's JS (@duckdb/node-api, the loader @duckdb/node-bindings and its
// detect-libc) is bundled; only the platform packages @duckdb/node-bindings-<platform> stay external,
// because they hold the native duckdb.node and libduckdb and are shipped as files (.vscodeignore).
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');
const { writeNotices } = require('./build/notices');

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const nodeOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  external: ['vscode', '@duckdb/node-bindings-*'],
  logLevel: 'warning',
  metafile: true,
};

function webviewEntries() {
  const dir = path.join(__dirname, 'webview');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => /^[a-z-]+\.ts$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

async function main() {
  // A bundle whose entry point was removed (the analysis worker, say) would otherwise stay in dist/ and
  // ship in the VSIX: a one-shot build starts from an empty dist/ (as compile-tests does with out/test).
  if (!watch) fs.rmSync(path.join(__dirname, 'dist'), { recursive: true, force: true });
  const contexts = [
    // The extension entry stays small: DuckDB, the analysis and the contract core run on worker threads.
    await esbuild.context({
      ...nodeOptions,
      entryPoints: {
        extension: 'src/extension/extension.ts',
        // Probes (network, then DuckDB for the reconciliation) run off the host's thread too.
        probeWorker: 'src/extension/probe/probeWorker.ts',
        // Contract parsing, validation, the form's model and the k6 preview: a long-lived thread.
        contractWorker: 'src/extension/contract/worker/contractWorker.ts',
        // The editor's runs (their DuckDB databases, views, the trace receiver) live on one worker thread.
        runWorker: 'src/extension/runs/runWorker.ts',
      },
      outdir: 'dist',
    }),
    await esbuild.context({
      ...nodeOptions,
      entryPoints: { cli: 'src/cli/main.ts' },
      outdir: 'dist',
      banner: { js: '#!/usr/bin/env node' },
    }),
  ];
  const webviews = webviewEntries();
  if (webviews.length > 0) {
    contexts.push(
      await esbuild.context({
        entryPoints: webviews,
        bundle: true,
        platform: 'browser',
        format: 'iife',
        target: 'es2022',
        sourcemap: !production,
        minify: production,
        outdir: 'dist/webview',
        loader: { '.css': 'text' },
        logLevel: 'warning',
        metafile: true,
      }),
    );
  }
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  const results = await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  fs.chmodSync(path.join(__dirname, 'dist', 'cli.js'), 0o755);
  writeNotices(__dirname, results.map((r) => r.metafile));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
