/**
 * `npm run sbom` (scripts/sbom.mjs) writes a CycloneDX SBOM of exactly the production
 * dependencies, as the image's /app/sbom.cdx.json is (test/image/image.test.ts checks that
 * one). `npm sbom --omit=dev` of the checkout left out hono, zod and @hono/node-server once a
 * devDependency (the MCP SDK) also used them; this test fails on that script.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';

const work = mkdtempSync(join(tmpdir(), 'sandbox-sbom-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('npm run sbom lists every production dependency at its locked version, and no devDependency', () => {
  const out = join(work, 'sbom.cdx.json');
  execFileSync(process.execPath, [join(packageDir, 'scripts', 'sbom.mjs'), out], { stdio: 'ignore' });
  const sbom = JSON.parse(readFileSync(out, 'utf8')) as {
    bomFormat: string;
    components: { name: string; version: string }[];
  };
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(packageDir, 'package-lock.json'), 'utf8'));
  expect(sbom.bomFormat).toBe('CycloneDX');
  for (const name of Object.keys(pkg.dependencies)) {
    const component = sbom.components.find((c) => c.name === name);
    expect(component, name).toBeDefined();
    expect(component!.version).toBe(lock.packages[`node_modules/${name}`].version);
  }
  for (const name of Object.keys(pkg.devDependencies))
    expect(
      sbom.components.some((c) => c.name === name),
      `dev dependency ${name}`,
    ).toBe(false);
}, 120_000);
