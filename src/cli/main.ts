// Placeholder entry: the CLI (analyze, reconcile, validate, k6) is being built on the core.
process.stderr.write('phasewise: the CLI is not built yet\n');
process.exit(4);
