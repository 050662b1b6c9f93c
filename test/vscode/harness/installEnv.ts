// The environment of the npm installs that provisioning starts. `npm run test:vscode` exports the outer
// npm's state to its children: npm_config_user_agent (naming the outer Node 20, which code-server's
// postinstall reads and then refuses with "requires node v24"), npm_config_nodedir (from ~/.npmrc),
// npm_execpath, npm_lifecycle_*, npm_package_*, INIT_CWD, NODE, and the project's node_modules/.bin on
// PATH. An install under Node 24 must see none of it. An empty environment is no answer either: it loses
// PATH, HOME and the CA variables (NODE_EXTRA_CA_CERTS), and npm then fails behind a TLS-intercepting
// proxy. So the installs get the caller's environment minus npm's run state, and whatever we do want
// (nodedir, the machine's global npmrc) is passed on the command line, where it beats every npmrc.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** Variables `npm run` sets that do not start with `npm_`. */
const NPM_RUN_VARIABLES: ReadonlySet<string> = new Set(['INIT_CWD', 'NODE']);

/** PATH entries `npm run` prepends: every node_modules/.bin from the package up, and run-script's node-gyp shim. */
const NPM_RUN_PATH_ENTRY = /[\\/](?:node_modules[\\/]\.bin|@npmcli[\\/]run-script[\\/]lib[\\/]node-gyp-bin)[\\/]?$/;

/** Removes the entries `npm run` put on PATH, keeping every other entry in its order. */
export function withoutNpmRunPath(pathValue: string): string {
  return pathValue
    .split(path.delimiter)
    .filter((entry) => entry !== '' && !NPM_RUN_PATH_ENTRY.test(entry))
    .join(path.delimiter);
}

/**
 * The caller's environment without what an outer `npm run` (or `npx`) left in it: every `npm_*` and
 * `NPM_CONFIG_*` variable (npm reads config from both spellings), INIT_CWD, NODE, and npm's PATH
 * entries. Everything else (HOME, PATH's own entries, proxy and CA variables) is kept.
 */
export function withoutNpmRunState(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (/^npm_/i.test(key) || NPM_RUN_VARIABLES.has(key)) continue;
    clean[key] = value;
  }
  if (env.PATH !== undefined) clean.PATH = withoutNpmRunPath(env.PATH);
  return clean;
}

/**
 * The global npmrc of the machine's npm (for example /usr/etc/npmrc, where Debian-style setups put the
 * `cafile`). npm looks for it under the prefix of the node that runs it, so the same npm started by Node 24
 * from the cache would silently skip it; provisioning passes it on as `--globalconfig`. Undefined when npm
 * names no existing file.
 */
export function machineGlobalNpmrc(env: NodeJS.ProcessEnv): string | undefined {
  const res = spawnSync('npm', ['config', 'get', 'globalconfig'], { env, encoding: 'utf8', timeout: 60_000 });
  if (res.status !== 0 || typeof res.stdout !== 'string') return undefined;
  const file = res.stdout.trim();
  return file !== '' && fs.existsSync(file) ? file : undefined;
}
