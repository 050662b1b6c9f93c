// Writes dist/THIRD_PARTY_NOTICES.txt: the licence text of every npm package whose code esbuild put into
// a bundle (from the builds' metafiles), so the VSIX carries the notices its MIT/ISC/BSD/Apache
// dependencies require. A bundled package without a licence file fails the build rather than ship
// without its notice.
const fs = require('fs');
const path = require('path');

const LICENSE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt|markdown))?$/i;

/** The package directories (node_modules/…/name or @scope/name) behind the metafiles' inputs. */
function bundledPackages(metafiles) {
  const dirs = new Set();
  for (const meta of metafiles) {
    for (const input of Object.keys(meta.inputs)) {
      const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.replace(/\\/g, '/'));
      if (m) dirs.add(m[1]);
    }
  }
  return [...dirs];
}

function noticeFor(root, dir) {
  const abs = path.join(root, dir);
  const pkg = JSON.parse(fs.readFileSync(path.join(abs, 'package.json'), 'utf8'));
  const files = fs.readdirSync(abs).filter((f) => LICENSE_FILE.test(f)).sort();
  if (files.length === 0) {
    throw new Error(`${dir}: bundled, but it has no LICENSE file to copy into THIRD_PARTY_NOTICES.txt`);
  }
  const texts = files.map((f) => fs.readFileSync(path.join(abs, f), 'utf8').trim());
  return { name: pkg.name, version: pkg.version, license: pkg.license ?? '(see text)', texts };
}

function writeNotices(root, metafiles) {
  const notices = bundledPackages(metafiles)
    .map((dir) => noticeFor(root, dir))
    .sort((a, b) => a.name.localeCompare(b.name));
  const seen = new Set();
  const parts = [
    'Phasewise bundles the following npm packages. Their licence texts follow.',
    '',
    ...notices.map((n) => `- ${n.name} ${n.version} (${n.license})`),
  ];
  for (const n of notices) {
    if (seen.has(n.name)) continue;
    seen.add(n.name);
    parts.push('', '='.repeat(78), `${n.name} ${n.version} (${n.license})`, '='.repeat(78), '', ...n.texts);
  }
  fs.writeFileSync(path.join(root, 'dist', 'THIRD_PARTY_NOTICES.txt'), `${parts.join('\n')}\n`);
  return notices.length;
}

module.exports = { bundledPackages, writeNotices };
