// What provisioning's installs inherit, checked against the environment a real `npm run` creates.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { withoutNpmRunPath, withoutNpmRunState } from './installEnv';

/** The environment a script sees under `npm run`, started from this process's own environment. */
function envUnderNpmRun(dir: string): NodeJS.ProcessEnv {
  const dump = path.join(dir, 'env.json');
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'env-dump', version: '1.0.0', scripts: { dump: `node -e "require('fs').writeFileSync(process.argv[1], JSON.stringify(process.env))" ${dump}` } }),
  );
  const res = spawnSync('npm', ['run', '--silent', 'dump'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.strictEqual(res.status, 0, `npm run dump: ${res.stderr}`);
  return JSON.parse(fs.readFileSync(dump, 'utf8')) as NodeJS.ProcessEnv;
}

describe('harness installs: the environment without npm run state', function () {
  // Each case starts npm (about 1 s on a busy 2-core machine).
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-installenv-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('drops what `npm run` adds (npm_config_user_agent naming the outer Node, npm_*, INIT_CWD, NODE, its PATH entries) and keeps the rest', () => {
    const inner = envUnderNpmRun(dir);
    // The state code-server's postinstall tripped over is really there before cleaning.
    assert.match(inner.npm_config_user_agent ?? '', new RegExp(`node/${process.version.replace(/\./g, '\\.')}`));
    assert.ok(inner.npm_lifecycle_event === 'dump' && inner.INIT_CWD !== undefined && inner.NODE !== undefined);
    const clean = withoutNpmRunState(inner);
    assert.deepStrictEqual(
      Object.keys(clean).filter((k) => /^npm_/i.test(k) || k === 'INIT_CWD' || k === 'NODE'),
      [],
    );
    assert.strictEqual(clean.PATH, withoutNpmRunPath(process.env.PATH ?? ''), 'PATH is the caller\'s, without npm\'s entries');
    assert.ok(!(clean.PATH ?? '').split(path.delimiter).some((e) => e.endsWith(path.join('node_modules', '.bin'))));
    // Everything else the caller had arrives unchanged: HOME, proxy and CA variables among it.
    const expected = withoutNpmRunState(process.env);
    for (const key of Object.keys(expected).filter((k) => k !== 'PATH' && k !== '_' && k !== 'PWD' && k !== 'OLDPWD')) {
      assert.strictEqual(clean[key], expected[key], key);
    }
    assert.strictEqual(clean.HOME, os.homedir());
    if (process.env.NODE_EXTRA_CA_CERTS !== undefined) assert.strictEqual(clean.NODE_EXTRA_CA_CERTS, process.env.NODE_EXTRA_CA_CERTS);
  });

  it('also drops NPM_CONFIG_* in upper case (npm reads both spellings)', () => {
    const clean = withoutNpmRunState({ HOME: '/home/u', NPM_CONFIG_NODEDIR: '/usr', npm_config_nodedir: '/usr', HTTPS_PROXY: 'http://proxy:3128' });
    assert.deepStrictEqual(clean, { HOME: '/home/u', HTTPS_PROXY: 'http://proxy:3128' });
  });

  it('removes exactly the PATH entries npm run prepends', () => {
    const entries = [
      '/work/repo/node_modules/.bin',
      '/work/node_modules/.bin',
      '/node_modules/.bin',
      '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
      '/root/.cargo/bin',
      '/usr/local/bin',
      '/usr/bin',
      '/opt/node_modules/.bin-tools',
    ];
    assert.strictEqual(withoutNpmRunPath(entries.join(path.delimiter)), ['/root/.cargo/bin', '/usr/local/bin', '/usr/bin', '/opt/node_modules/.bin-tools'].join(path.delimiter));
  });

  it('a --nodedir on the command line wins over a nodedir in the user npmrc, as provisioning relies on', () => {
    const userconfig = path.join(dir, 'user.npmrc');
    fs.writeFileSync(userconfig, 'nodedir=/usr\n');
    const env = { ...withoutNpmRunState(process.env), npm_config_userconfig: userconfig };
    const get = (extra: string[]): string =>
      spawnSync('npm', ['config', 'get', 'nodedir', ...extra], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 }).stdout.trim();
    assert.strictEqual(get([]), '/usr');
    assert.strictEqual(get(['--nodedir=/opt/node24']), '/opt/node24');
  });
});
