/**
 * The served OpenAPI documents: valid OpenAPI 3.1 (checked by an independent validator),
 * generated from the same schemas, listing every endpoint, header and error row.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../src/contract/errors.js';
import { createHarness } from './harness.js';

const PARTNERSHIP_PATHS = {
  '/v1/partnership/vertical-mappings': ['get'],
  '/v1/accounts/register/partnership': ['post'],
  '/v1/partnership/accounts/{account_id}/marketplacecontrolslists': ['get', 'put'],
  '/v1/partnership/accounts/{account_id}/status': ['get', 'put'],
  '/v1/partnership/accounts/{account_id}/layouts/{layout_id}': ['patch'],
  '/oauth/token': ['post'],
};

async function documents() {
  const h = createHarness();
  const partnership = (await h.request('GET', '/openapi.json')).body;
  const control = (await h.request('GET', '/__sandbox/openapi.json')).body;
  return { partnership, control };
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (independent validator)', async () => {
    const { partnership } = await documents();
    expect(partnership.openapi).toBe('3.1.0');
    const result = await new Validator().validate(partnership);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists the seven partnership endpoints and the token endpoint, and nothing else', async () => {
    const { partnership } = await documents();
    const listed = Object.fromEntries(
      Object.entries(partnership.paths).map(([p, ops]) => [p, Object.keys(ops as object).sort()]),
    );
    expect(listed).toEqual(PARTNERSHIP_PATHS);
  });

  it('documents the headers: parent account (required on writes), Idempotency-Key, dry_run, X-Sandbox-Scenario', async () => {
    const { partnership } = await documents();
    const params = (path: string, method: string) =>
      Object.fromEntries(
        (
          partnership.paths[path][method].parameters as { name: string; in: string; required?: boolean }[]
        ).map((p) => [`${p.in}:${p.name.toLowerCase()}`, p.required === true]),
      );
    const put = params('/v1/partnership/accounts/{account_id}/marketplacecontrolslists', 'put');
    expect(put).toMatchObject({
      'header:x-platform-parent-account-id': true,
      'header:idempotency-key': true,
      'header:x-sandbox-scenario': false,
      'query:dry_run': false,
      'path:account_id': true,
    });
    const register = params('/v1/accounts/register/partnership', 'post');
    expect(register['header:x-platform-parent-account-id']).toBe(true);
    expect(register['header:idempotency-key']).toBeUndefined();
    const read = params('/v1/partnership/accounts/{account_id}/status', 'get');
    expect(read['header:x-platform-parent-account-id']).toBe(false);
  });

  it('carries the spec enums and lengths from the schemas', async () => {
    const { partnership } = await documents();
    const s = partnership.components.schemas;
    expect(s.PageRequest.properties.surface.enum).toEqual(['confirmation', 'tracking', 'returns']);
    expect(s.PageRequest.properties.layout_type.enum).toEqual(['Overlay', 'Embedded']);
    expect(s.RegisterRequest.properties.store_identifier).toMatchObject({ minLength: 3, maxLength: 400 });
    expect(s.StatusWriteRequest.properties.status.enum).toEqual(['active', 'paused']);
    expect(s.StatusData.properties.status.enum).toEqual(['active', 'paused', 'mixed']);
    expect(
      s.BlockedVerticalWrite.properties.policy.enum ?? [s.BlockedVerticalWrite.properties.policy.const],
    ).toEqual(['Block']);
    expect(s.ControlsWriteRequest.required).toEqual(
      expect.arrayContaining(['blockedVerticals', 'domains', 'contentHash']),
    );
    expect(s.Error.properties.code.enum).toEqual(errorCodes);
  });

  it('documents the error rows of spec §7 on each route', async () => {
    const { partnership } = await documents();
    const responses = (path: string, method: string) =>
      Object.keys(partnership.paths[path][method].responses);
    expect(responses('/v1/accounts/register/partnership', 'post')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '422']),
    );
    expect(responses('/v1/partnership/accounts/{account_id}/marketplacecontrolslists', 'put')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409', '422']),
    );
    expect(responses('/v1/partnership/accounts/{account_id}/status', 'put')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '422']),
    );
    expect(responses('/oauth/token', 'post')).toEqual(expect.arrayContaining(['200', '400', '401']));
  });
});

describe('GET /__sandbox/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document of the control plane routes of SANDBOX.md §6 and §10', async () => {
    const { control } = await documents();
    const result = await new Validator().validate(control);
    expect(result.errors ?? []).toEqual([]);
    expect(Object.keys(control.paths).sort()).toEqual(
      [
        '/__sandbox/health',
        '/__sandbox/reset',
        '/__sandbox/partners',
        '/__sandbox/partners/{parent_account_id}/vertical-mappings',
        '/__sandbox/accounts/{account_id}',
        '/__sandbox/accounts/{account_id}/variants',
        '/__sandbox/variants/{variant_id}',
        '/__sandbox/clock',
        '/__sandbox/clock/advance',
        '/__sandbox/requests',
        '/__sandbox/scenarios',
        '/__sandbox/report',
        // §10
        '/__sandbox/partners/{parent_account_id}/reset',
        '/__sandbox/partners/{parent_account_id}/clock',
        '/__sandbox/partners/{parent_account_id}/clock/advance',
        '/__sandbox/snapshots',
        '/__sandbox/snapshots/{name}',
        '/__sandbox/snapshots/{name}/restore',
        '/__sandbox/requests/count',
        '/__sandbox/partners/{parent_account_id}/bundle',
        '/__sandbox/bundles',
      ].sort(),
    );
  });
});

describe('GET /docs', () => {
  it('serves the reference page and its assets from the package, with no external URL', async () => {
    const h = createHarness();
    const page = await h.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    for (const src of page.text.match(/(?:src|href)="([^"]+)"/g) ?? []) {
      const url = src.replace(/^(?:src|href)="|"$/g, '');
      const asset = await h.request('GET', url);
      expect(asset.status, url).toBe(200);
    }
  });
});
