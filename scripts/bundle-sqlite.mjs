#!/usr/bin/env node
// `npm pack` and `npm publish` put better-sqlite3 inside the package's tarball as a bundled
// dependency, trimmed to what loads at run time, so a partner's install compiles nothing and
// needs no toolchain.
//
//   node scripts/bundle-sqlite.mjs prepack    (package.json's prepack, after the build)
//   node scripts/bundle-sqlite.mjs postpack   (package.json's postpack)
//
// Why: from a lockfile, npm does not keep better-sqlite3's `gypfile: false` (npm/cli#9837,
// WiseLibs/better-sqlite3#1516), so `npm ci` and `npm install` in a partner's project run an
// implicit `node-gyp rebuild` because binding.gyp is there, and node-gyp needs python3 and
// make even though the build is a no-op: `gyp ERR! not ok` on node:24-bookworm-slim. A
// bundled copy comes out of our tarball as it is, and without binding.gyp npm has no build
// to run; the addon is one of the prebuilds better-sqlite3 ships for each platform (linux
// x64/arm64 glibc/musl, macOS, Windows), all kept.
//
// prepack:
// - removes from node_modules/better-sqlite3 binding.gyp, the C++ sources (src/) and
//   SQLite's amalgamation (deps/), about 10 MB that only a source build reads, and drops its
//   one dependency, node-addon-api (C++ headers, read only by a source build), from its
//   package.json, so the bundle is better-sqlite3 alone. npm pack reads bundled
//   dependencies from node_modules; nothing at run time reads what is removed, and
//   `npm ci` puts it back.
// - adds `"bundleDependencies": ["better-sqlite3"]` to package.json for the pack only
//   (npm pack reads package.json again after prepack), keeping the original beside it.
// postpack puts the original package.json back.
//
// Why not declare bundleDependencies in package.json for good: npm then marks the package
// `inBundle` in this repository's own lockfile, and npm 11 lets no allowScripts entry stop
// a bundled dependency's build (arborist's script-allowed.js), so this repository's own
// `npm ci` would compile better-sqlite3 from source (minutes, and python3, make and g++).
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifestPath = join(root, 'package.json');
const original = join(root, '.package.json.before-pack');
const sqlite = join(root, 'node_modules', 'better-sqlite3');

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const writeJson = (path, value) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

const mode = process.argv[2];
if (mode === 'prepack') {
  if (!existsSync(join(sqlite, 'prebuilds'))) {
    console.error(`bundle-sqlite: ${sqlite}/prebuilds is missing: run npm ci first`);
    process.exit(1);
  }
  for (const item of ['binding.gyp', 'src', 'deps', 'build'])
    rmSync(join(sqlite, item), { recursive: true, force: true });
  const sqliteManifest = readJson(join(sqlite, 'package.json'));
  if (sqliteManifest.dependencies) {
    const { 'node-addon-api': _headers, ...rest } = sqliteManifest.dependencies;
    if (Object.keys(rest).length) sqliteManifest.dependencies = rest;
    else delete sqliteManifest.dependencies;
    writeJson(join(sqlite, 'package.json'), sqliteManifest);
  }
  if (!existsSync(original)) copyFileSync(manifestPath, original);
  const manifest = readJson(manifestPath);
  manifest.bundleDependencies = ['better-sqlite3'];
  writeJson(manifestPath, manifest);
  console.log(
    'bundle-sqlite: better-sqlite3 bundled with lib/ and prebuilds/ only (no binding.gyp: nothing to compile)',
  );
} else if (mode === 'postpack') {
  if (existsSync(original)) renameSync(original, manifestPath);
} else {
  console.error('usage: node scripts/bundle-sqlite.mjs prepack|postpack');
  process.exit(2);
}
