#!/usr/bin/env node
// The npm package's size, as docs/in-your-ci.md quotes it: builds the bundles and the
// declarations (what `prepack` does), then asks `npm pack --dry-run` what the tarball would
// hold. Prints one line for the docs, with the date and the Node and npm versions.
//
//   node scripts/tarball-size.mjs           # the line
//   node scripts/tarball-size.mjs --json    # the figures as JSON
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

execFileSync(process.execPath, ['scripts/build.mjs', '--types'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const [pack] = JSON.parse(
  execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
);
const npmVersion = execFileSync(npm, ['--version'], { cwd: root, encoding: 'utf8' }).trim();

const kib = (n) => `${Math.round(n / 1024).toLocaleString('en')} KiB`;
const kB = (n) => `${Math.round(n / 1000).toLocaleString('en')} kB`;
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
