/**
 * The documented limits (docs/guarantees-and-limits.md#limits), each answered cleanly: body size 413 in the
 * envelope, list caps 400 naming the field, header size 431 from Node's parser; the
 * process keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../../src/contract/api/fields.js';
import { type Running, startServer } from '../../src/server.js';
import { CONTROLS, createHarness, expectErrorEnvelope, testConfig } from '../helpers/harness.js';

describe('limits', () => {
  it(`controls PUT: more than ${limits.blockedVerticalsMax} blockedVerticals or ${limits.domainsMax} domains is 400 naming the field, nothing written`, async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const before = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.controls.version;
    const many = Array.from({ length: limits.blockedVerticalsMax + 1 }, (_, i) => ({
      partnerVerticalId: 10,
      partnerSubVerticalId: 100_000 + i,
    }));
    const tooManyVerticals = await partner.put(CONTROLS(accountId), {
      blockedVerticals: many,
      domains: [],
      contentHash: null,
    });
    expect(expectErrorEnvelope(tooManyVerticals, 400, 'validation_error').message).toContain(
      'blockedVerticals',
    );
    const domains = Array.from({ length: limits.domainsMax + 1 }, (_, i) => ({ domain: `d${i}.example` }));
    const tooManyDomains = await partner.put(CONTROLS(accountId), {
      blockedVerticals: [],
      domains,
      contentHash: null,
    });
    expect(expectErrorEnvelope(tooManyDomains, 400, 'validation_error').message).toContain('domains');
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.controls.version).toBe(before);
  });

  it('a body over SANDBOX_BODY_LIMIT_BYTES is 413 payload_too_large in the envelope', async () => {
    const h = createHarness({ bodyLimitBytes: 2048 });
    const partner = await h.client();
    const accountId = await partner.account();
    const res = await partner.put(CONTROLS(accountId), {
      blockedVerticals: [],
      domains: [],
      contentHash: null,
      name: 'x'.repeat(4096),
    });
    expect(expectErrorEnvelope(res, 413, 'payload_too_large').error.details.limit_bytes).toBe(2048);
  });

  describe('over a real socket', () => {
    let server: Running;
    beforeAll(async () => {
      server = await startServer(testConfig({ port: 0 }));
    });
    afterAll(() => server?.close());

    it('request headers over 16 KiB are refused with 431 by the HTTP parser, and the server keeps serving', async () => {
      const res = await fetch(`${server.url}/v1/partnership/vertical-mappings`, {
        headers: { 'X-Filler': 'x'.repeat(20 * 1024) },
      });
      expect(res.status).toBe(431);
      const health = await fetch(`${server.url}/__sandbox/health`);
      expect(health.status).toBe(200);
    });
  });
});
