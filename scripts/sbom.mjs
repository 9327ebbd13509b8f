#!/usr/bin/env node
// `npm run sbom`: a CycloneDX SBOM of the production dependencies to sbom.cdx.json, the same
// as the image's /app/sbom.cdx.json (the Dockerfile takes it the same way).
// Not `npm sbom --omit=dev` of this checkout: npm 11 counts a package as dev when any dev
// package depends on it, so hono, zod and @hono/node-server, which the MCP SDK (a
// devDependency bundled into dist/mcp.js) also uses, would be left out. Instead: the
// production tree alone, installed from the lockfile in a temporary folder (npm's cache;
// no install script runs), with devDependencies taken out of its package.json.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(root, process.argv[2] ?? 'sbom.cdx.json');
const work = mkdtempSync(join(tmpdir(), 'sandbox-sbom-'));
try {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  copyFileSync(join(root, 'package-lock.json'), join(work, 'package-lock.json'));
  const npm = (...args) =>
    execFileSync('npm', args, {
      cwd: work,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  writeFileSync(join(work, 'package.json'), JSON.stringify(manifest));
  npm('ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--silent');
  delete manifest.devDependencies;
  writeFileSync(join(work, 'package.json'), JSON.stringify(manifest));
  writeFileSync(out, npm('sbom', '--sbom-format', 'cyclonedx', '--sbom-type', 'application'));
  console.log(`sbom: ${out}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
