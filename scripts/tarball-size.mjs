#!/usr/bin/env node
// The npm package's size, as docs/in-your-ci.md quotes it: `npm pack --dry-run` with the
// package's own prepack and postpack (the build, the declarations, better-sqlite3 bundled),
// so the figure is the tarball a partner installs. Prints one line for the docs, with the
// date and the Node and npm versions. It rebuilds dist/ (prepack): do not run it beside tests.
//
//   node scripts/tarball-size.mjs           # the line
//   node scripts/tarball-size.mjs --json    # the figures as JSON
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// The lifecycle scripts may print lines of their own before npm's JSON: the JSON is the last
// array in the output.
const out = execFileSync(npm, ['pack', '--dry-run', '--json'], {
  cwd: root,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [pack] = JSON.parse(out.slice(out.lastIndexOf('\n[') + 1 || out.indexOf('[')));
const npmVersion = execFileSync(npm, ['--version'], { cwd: root, encoding: 'utf8' }).trim();

// Binary units first (what the docs use), the decimal ones npm prints after.
const kib = (n) => (n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`);
const kB = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.round(n / 1000)} kB`);
const figures = {
  packed_bytes: pack.size,
  unpacked_bytes: pack.unpackedSize,
  files: pack.entryCount,
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  npm: npmVersion,
};
if (process.argv.includes('--json')) console.log(JSON.stringify(figures, null, 2));
else
  console.log(
    `${kib(pack.size)} (${kB(pack.size)}) packed, ${kib(pack.unpackedSize)} unpacked, ${pack.entryCount} files ` +
      `(measured by \`node scripts/tarball-size.mjs\` on ${figures.date}, Node ${process.version}, npm ${npmVersion})`,
  );
