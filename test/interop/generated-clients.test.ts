/**
 * Clients generated from the served document by real generators (issue 14, "keep them
 * fixed"): openapi-typescript (types for openapi-fetch) and @hey-api/openapi-ts (an SDK
 * with its bundled fetch client). Once per file: fetch /openapi.json from a listening
 * sandbox, generate both into a temporary folder, copy the partner flows of
 * test/interop/flows/ next to them and type-check everything with `tsc --strict`. Then
 * each flow runs against the sandbox: register, the rule-5 recipe with the 409 retry, a
 * dry run then a fresh key, and a status write with a partial failure.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { CONTROLS, DEMO, testConfig } from '../helpers/harness.js';
import { demoToken } from '../helpers/raw-http.js';
import type { PartnerFlow } from './flows/partner-flow.js';

const repoModules = fileURLToPath(new URL('../../node_modules', import.meta.url));
const flowsDir = fileURLToPath(new URL('./flows', import.meta.url));

let server: Running;
let dir: string;
let tsc: { code: number | null; output: string };
let adminToken: string;

function typeCheck(project: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      join(repoModules, '.bin', 'tsc'),
      ['-p', project, '--pretty', 'false'],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`.trim() });
      },
    );
  });
}

beforeAll(async () => {
  server = await startServer(testConfig({ port: 0, host: '127.0.0.1' }));
  const doc: unknown = await (await fetch(`${server.url}/openapi.json`)).json();

  // a throwaway ESM project: the generated code, the flows, and the repository's packages
  dir = mkdtempSync(join(tmpdir(), 'sandbox-interop-'));
  symlinkSync(repoModules, join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  for (const file of readdirSync(flowsDir)) copyFileSync(join(flowsDir, file), join(dir, file));

  mkdirSync(join(dir, 'generated', 'openapi-typescript'), { recursive: true });
  writeFileSync(
    join(dir, 'generated', 'openapi-typescript', 'schema.d.ts'),
    astToString(await openapiTS(doc as OpenAPI3)),
  );
  await heyApi({
    input: doc as Record<string, unknown>,
    output: { path: join(dir, 'generated', 'hey-api') },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    logs: { level: 'silent' },
  });

  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        skipLibCheck: true,
        isolatedModules: true,
        verbatimModuleSyntax: true,
      },
      include: ['*.ts', 'generated/**/*.ts'],
    }),
  );
  tsc = await typeCheck(join(dir, 'tsconfig.json'));

  // the test's own token, for the setup writes a partner's other tools would make
  adminToken = await demoToken(server.url);
});

afterAll(async () => {
  await server?.close();
  if (dir) {
    unlinkSync(join(dir, 'node_modules')); // the link only, before removing the folder
    rmSync(dir, { recursive: true, force: true });
  }
});

it('the generated clients and the flows written against them type-check under tsc --strict', () => {
  expect(tsc.output).toBe('');
  expect(tsc.code).toBe(0);
});

/** Setup a partner's other tooling would do: a blocked domain that rule 5 must keep. */
async function blockDomain(accountId: string, domain: string) {
  const headers = {
    Authorization: `Bearer ${adminToken}`,
    'X-Platform-Parent-Account-Id': DEMO.parent,
    'Content-Type': 'application/json',
  };
  const current = await fetch(`${server.url}${CONTROLS(accountId)}`, { headers });
  const list = (await current.json()) as { data: { marketplace_controls_list: { content_hash: string } } };
  const res = await fetch(`${server.url}${CONTROLS(accountId)}`, {
    method: 'PUT',
    headers: { ...headers, 'Idempotency-Key': crypto.randomUUID() },
    body: JSON.stringify({
      // the preset's blocks, kept as they are
      blockedVerticals: [
        [40, 4002],
        [40, 4003],
        [50, 5003],
      ].map(([partnerVerticalId, partnerSubVerticalId]) => ({
        partnerVerticalId,
        partnerSubVerticalId,
        policy: 'Block',
        position1Policy: 'Block',
      })),
      domains: [{ domain, policy: 'Block' }],
      contentHash: list.data.marketplace_controls_list.content_hash,
    }),
  });
  expect(res.status).toBe(200);
}

async function addVariant(accountId: string, pageId: string, name: string) {
  const res = await fetch(`${server.url}/__sandbox/accounts/${accountId}/variants`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ page_id: pageId, name, enabled: true }),
  });
  expect(res.status).toBe(201);
}

for (const generator of ['openapi-fetch', 'hey-api'] as const) {
  describe(`the partner flow on the ${generator} client`, () => {
    let flow: PartnerFlow;
    let accountId: string;
    let pageIds: string[];

    beforeAll(async () => {
      const module = (await import(pathToFileURL(join(dir, `${generator}.ts`)).href)) as {
        createFlow(config: unknown): PartnerFlow;
      };
      flow = module.createFlow({
        baseUrl: server.url,
        clientId: DEMO.clientId,
        clientSecret: DEMO.clientSecret,
        parentAccountId: DEMO.parent,
      });
    });

    it('gets a token through the generated token operation', async () => {
      expect(await flow.connect()).toEqual({ tokenType: 'Bearer', expiresIn: 3600, scope: 'partnership' });
    });

    it('registers a merchant, idempotently on external_account_id', async () => {
      const external = `interop-${generator}-${Date.now()}`;
      const first = await flow.register(external);
      expect(first.accountId).toMatch(/^acct_[0-9a-z]{20}$/);
      expect(first.surfaces).toEqual(['confirmation', 'tracking']);
      expect(first.pageIds).toHaveLength(2);
      const again = await flow.register(external);
      expect(again.accountId).toBe(first.accountId);
      accountId = first.accountId;
      pageIds = first.pageIds;
    });

    it('adds one blocked vertical by the rule-5 recipe, retrying the 409 of a concurrent writer', async () => {
      await blockDomain(accountId, 'competitor.example');
      const result = await flow.addBlockedVertical(
        accountId,
        { partnerVerticalId: 20, partnerSubVerticalId: 2002 },
        'stale-content-hash',
      );
      expect(result.attempts).toEqual([
        { status: 409, code: 'content_hash_mismatch' },
        { status: 200, code: null },
      ]);
      expect(result.blocked).toEqual([2002, 4002, 4003, 5003]);
      expect(result.domains).toEqual(['competitor.example']);
    });

    it('a dry run caches its key: the same key replays the dry run, a fresh key writes', async () => {
      // a third variant, so that the partial failure below leaves the account mixed
      await addVariant(accountId, pageIds[0]!, 'confirmation b');
      const seen = await flow.dryRunThenFreshKey(accountId, 'paused');
      expect(seen.dryRun).toMatchObject({ replayed: null, dryRun: true, status: 'paused' });
      expect(seen.afterDryRun).toBe('active');
      expect(seen.sameKey).toEqual({ ...seen.dryRun, replayed: 'true' });
      expect(seen.afterSameKey).toBe('active');
      expect(seen.freshKey).toMatchObject({ replayed: null, dryRun: undefined, status: 'paused' });
      expect(seen.freshKey.requestId).not.toBe(seen.dryRun.requestId);
      expect(seen.afterFreshKey).toBe('paused');
    });

    it('reads a partial failure of a status write: error.code partial_failure, data.status mixed', async () => {
      const result = await flow.setStatus(accountId, 'active', 'status-partial-failure');
      expect(result).toMatchObject({
        httpStatus: 200,
        code: 'partial_failure',
        details: { failed_count: 1, variant_count: 3 },
        status: 'mixed',
      });
      expect(result.message).toMatch(/request_id/);
      // the first variant failed and kept its state; the others were activated
      expect(result.variants).toEqual([
        { name: 'confirmation default', status: 'paused' },
        { name: 'tracking default', status: 'active' },
        { name: 'confirmation b', status: 'active' },
      ]);
      expect(await flow.readStatus(accountId)).toBe('mixed');
      // a clean write heals it
      expect(await flow.setStatus(accountId, 'active')).toMatchObject({ code: null, status: 'active' });
    });
  });
}
