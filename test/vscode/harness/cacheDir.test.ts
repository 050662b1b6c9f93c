// ensureInstalled on a real folder, with an installer that writes files (the real one takes minutes):
// what a cold, warm, interrupted, half-finished, outdated or failing install leaves behind.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureInstalled, LEGACY_MARKER, MARKER, readMarker, stagingDir } from './cacheDir';
import type { InstallSpec } from './cacheDir';

const NAME = 'tool-1.2.3';
const KEY = 'tool@1.2.3 for node 24';

interface Recorder {
  installs: string[];
  checks: string[];
  spec: InstallSpec;
}

/** A spec whose install writes bin/tool (and install.log) and whose check requires bin/tool to say `ok`. */
function recorder(root: string, overrides: Partial<InstallSpec> = {}): Recorder {
  const rec: Recorder = { installs: [], checks: [], spec: undefined as unknown as InstallSpec };
  rec.spec = {
    root,
    name: NAME,
    key: KEY,
    install: (staging) => {
      rec.installs.push(staging);
      assert.deepStrictEqual(fs.readdirSync(staging), [], 'the staging folder starts empty');
      fs.mkdirSync(path.join(staging, 'bin'));
      fs.writeFileSync(path.join(staging, 'bin', 'tool'), 'ok');
      fs.writeFileSync(path.join(staging, 'install.log'), 'added 1 package\n');
      return Promise.resolve();
    },
    check: (dir) => {
      rec.checks.push(dir);
      const tool = path.join(dir, 'bin', 'tool');
      if (!fs.existsSync(tool) || fs.readFileSync(tool, 'utf8') !== 'ok') return Promise.reject(new Error(`${tool} is not ok`));
      return Promise.resolve({ version: 'v24.1.0' });
    },
    log: () => undefined,
    ...overrides,
  };
  return rec;
}

/** A pid that is certainly not running: a child that has already exited. */
function deadPid(): number {
  const res = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(res.stdout);
}

/** An install as the code before the checks left it: the files and a `.complete` marker written after npm exited 0. */
function legacyInstall(root: string, tool: string): string {
  const final = path.join(root, NAME);
  fs.mkdirSync(path.join(final, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(final, 'bin', 'tool'), tool);
  fs.writeFileSync(path.join(final, LEGACY_MARKER), '2026-01-01T00:00:00.000Z');
  return final;
}

describe('harness cache: ensureInstalled', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-cachedir-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('cold: installs in a staging folder beside the final one, checks it there, then renames it into place with its marker', async () => {
    const rec = recorder(root);
    const final = await ensureInstalled(rec.spec);
    assert.strictEqual(final, path.join(root, NAME));
    assert.deepStrictEqual(rec.installs, [stagingDir(root, NAME, 'partial')]);
    assert.deepStrictEqual(rec.checks, [stagingDir(root, NAME, 'partial')], 'checked before the rename, not after');
    assert.deepStrictEqual(fs.readdirSync(root), [NAME], 'no staging folder is left');
    const marker = readMarker(final);
    assert.strictEqual(marker?.install, KEY);
    assert.strictEqual(marker?.version, 'v24.1.0');
    assert.ok(!Number.isNaN(Date.parse(String(marker?.checkedAt))));
    assert.strictEqual(fs.readFileSync(path.join(final, 'bin', 'tool'), 'utf8'), 'ok');
  });

  it('warm: a final folder whose marker has the key is reused without installing or checking', async () => {
    await ensureInstalled(recorder(root).spec);
    const rec = recorder(root);
    assert.strictEqual(await ensureInstalled(rec.spec), path.join(root, NAME));
    assert.deepStrictEqual(rec.installs, []);
    assert.deepStrictEqual(rec.checks, []);
  });

  it('interrupted: a staging folder of a dead run is removed; one of a live run is left alone', async () => {
    const dead = stagingDir(root, NAME, 'partial', deadPid());
    const live = stagingDir(root, NAME, 'partial', process.ppid);
    fs.mkdirSync(path.join(dead, 'lib'), { recursive: true });
    fs.mkdirSync(live);
    const rec = recorder(root);
    await ensureInstalled(rec.spec);
    assert.ok(!fs.existsSync(dead));
    assert.ok(fs.existsSync(live));
    assert.strictEqual(rec.installs.length, 1);
  });

  it('half-finished: a final folder without a marker (an install written in place and cut off) is replaced', async () => {
    const final = path.join(root, NAME);
    fs.mkdirSync(path.join(final, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(final, 'lib', 'half-written.js'), '');
    const rec = recorder(root);
    await ensureInstalled(rec.spec);
    assert.strictEqual(rec.installs.length, 1);
    assert.ok(!fs.existsSync(path.join(final, 'lib', 'half-written.js')), 'nothing of the old tree is kept');
    assert.strictEqual(readMarker(final)?.install, KEY);
    assert.deepStrictEqual(fs.readdirSync(root), [NAME]);
  });

  it('outdated: a marker with another key (another version or Node major) means install again', async () => {
    await ensureInstalled(recorder(root).spec);
    const rec = recorder(root, { key: 'tool@1.2.3 for node 26' });
    await ensureInstalled(rec.spec);
    assert.strictEqual(rec.installs.length, 1);
    assert.strictEqual(readMarker(path.join(root, NAME))?.install, 'tool@1.2.3 for node 26');
  });

  it('legacy: an install with only the old `.complete` marker is checked in place and kept when it passes', async () => {
    const final = legacyInstall(root, 'ok');
    const rec = recorder(root);
    await ensureInstalled(rec.spec);
    assert.deepStrictEqual(rec.installs, []);
    assert.deepStrictEqual(rec.checks, [final]);
    assert.strictEqual(readMarker(final)?.install, KEY);
  });

  it('legacy: an old install that fails its checks is installed again', async () => {
    const final = legacyInstall(root, 'built against the wrong headers');
    const rec = recorder(root);
    await ensureInstalled(rec.spec);
    assert.strictEqual(rec.installs.length, 1);
    assert.strictEqual(fs.readFileSync(path.join(final, 'bin', 'tool'), 'utf8'), 'ok');
    assert.ok(fs.existsSync(path.join(final, MARKER)));
  });

  it('a fresh install that fails its checks is never renamed into place, and is kept for its log', async () => {
    const rec = recorder(root, { check: () => Promise.reject(new Error('server-main.js exited during start-up')) });
    await assert.rejects(ensureInstalled(rec.spec), /fails its checks: server-main\.js exited during start-up/);
    assert.ok(!fs.existsSync(path.join(root, NAME)));
    assert.ok(fs.existsSync(path.join(stagingDir(root, NAME, 'partial'), 'install.log')));
    assert.ok(!fs.existsSync(path.join(stagingDir(root, NAME, 'partial'), MARKER)));
  });

  it('a concurrent run that finished first wins; this run drops its own install and uses that one', async () => {
    const final = path.join(root, NAME);
    const slow = recorder(root, {
      install: (staging) => {
        // While this run installs, another process renames its checked install into place.
        fs.mkdirSync(path.join(final, 'bin'), { recursive: true });
        fs.writeFileSync(path.join(final, 'bin', 'tool'), 'ok');
        fs.writeFileSync(path.join(final, MARKER), JSON.stringify({ install: KEY, checkedAt: new Date().toISOString() }));
        fs.writeFileSync(path.join(staging, 'mine'), '');
        fs.mkdirSync(path.join(staging, 'bin'));
        fs.writeFileSync(path.join(staging, 'bin', 'tool'), 'ok');
        return Promise.resolve();
      },
    });
    assert.strictEqual(await ensureInstalled(slow.spec), final);
    assert.ok(!fs.existsSync(path.join(final, 'mine')));
    assert.deepStrictEqual(fs.readdirSync(root), [NAME]);
  });
});
