/**
 * The integration report (GET /__sandbox/report): a scripted good client passes every
 * check, a scripted careless client fails each with evidence naming request_ids, a
 * partner without traffic is not exercised; JUnit output; errors; isolation per partner.
 */
import { describe, expect, it } from 'vitest';
import { NEXT } from '../../src/core/report.js';
import { hashSecretSync } from '../../src/domain/secrets.js';
import { secretColumns } from '../../src/store/partners-table.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  LAYOUT,
  MAPPINGS,
  REGISTER,
  type Reply,
  registerBody,
  STATUS,
  UNSEEDED,
} from '../helpers/harness.js';

const SCENARIO = 'X-Sandbox-Scenario';
const CHECK_IDS = [
  'registered-idempotently',
  'propagation-retries',
  'stale-hash-recovery',
  'fresh-key-after-dry-run',
  'handled-mixed',
  'retried-429-5xx',
];

interface Check {
  id: string;
  title: string;
  outcome: 'passed' | 'failed' | 'not_exercised';
  evidence: string[];
  next: string | null;
}

async function advance(h: Harness, seconds: number) {
  expect((await h.request('POST', '/__sandbox/clock/advance', { body: { seconds } })).status).toBe(200);
}

async function report(h: Harness, parent: string) {
  const res = await h.request('GET', `/__sandbox/report?parent_account_id=${encodeURIComponent(parent)}`);
  expect(res.status, res.text).toBe(200);
  const checks = res.body.checks as Check[];
  expect(checks.map((c) => c.id)).toEqual(CHECK_IDS);
  return {
    body: res.body,
    checks: Object.fromEntries(checks.map((c) => [c.id, c])) as Record<string, Check>,
  };
}

const outcomes = (checks: Record<string, Check>) =>
  Object.fromEntries(Object.values(checks).map((c) => [c.id, c.outcome]));

const rid = (res: Reply) => res.headers.get('x-request-id')!;

const controlsBody = (contentHash: string | null, domain: string) => ({
  blockedVerticals: [{ partnerVerticalId: 20, partnerSubVerticalId: 2001 }],
  domains: [{ domain }],
  contentHash,
});

describe('report: a good client passes every check', () => {
  it('registers idempotently, spaces propagation retries, recovers a 409, uses fresh keys, re-checks mixed, retries 429/5xx', async () => {
    const h = createHarness();
    const p = await h.client();

    // Registration, retried with the same body.
    const body = registerBody();
    const first = await p.call('POST', REGISTER, { body, headers: { [SCENARIO]: 'auth-propagation=30' } });
    const accountId = expectOk(first).account_id;
    const again = await p.call('POST', REGISTER, { body });
    expect(expectOk(again).account_id).toBe(accountId);

    // Propagation: retry every 20 s of sandbox clock until 200.
    let read = await p.get(CONTROLS(accountId));
    const propagationStatuses = [read.status];
    while (read.status !== 200) {
      await advance(h, 20);
      read = await p.get(CONTROLS(accountId));
      propagationStatuses.push(read.status);
    }
    expect(propagationStatuses).toEqual([401, 403, 200]);

    // A 409: re-read, re-apply, retry with the new hash.
    const hash0 = expectOk(read).marketplace_controls_list.content_hash;
    const conflict = await p.put(CONTROLS(accountId), controlsBody(hash0, 'good.example.com'), {
      [SCENARIO]: 'stale-content-hash',
    });
    expectErrorEnvelope(conflict, 409, 'content_hash_mismatch');
    const hash1 = expectOk(await p.get(CONTROLS(accountId))).marketplace_controls_list.content_hash;
    const retried = expectOk(await p.put(CONTROLS(accountId), controlsBody(hash1, 'good.example.com')));
    const hash2 = retried.marketplace_controls_list.content_hash;

    // A dry run, then the real write with a fresh key.
    const dry = await p.call('PUT', `${CONTROLS(accountId)}?dry_run=true`, {
      body: controlsBody(hash2, 'good2.example.com'),
      headers: { 'Idempotency-Key': 'good-dry-run' },
    });
    expect(dry.body.dry_run).toBe(true);
    expectOk(
      await p.call('PUT', CONTROLS(accountId), {
        body: controlsBody(hash2, 'good2.example.com'),
        headers: { 'Idempotency-Key': 'good-real-write' },
      }),
    );

    // A partial failure, then a look at the status.
    const partial = await p.put(
      STATUS(accountId),
      { status: 'paused' },
      { [SCENARIO]: 'status-partial-failure' },
    );
    expect(partial.body.error.code).toBe('partial_failure');
    expect(expectOk(await p.get(STATUS(accountId))).status).toBe('mixed');

    // A 429: wait Retry-After (sandbox clock), retry.
    const limited = await p.get(MAPPINGS, { [SCENARIO]: 'rate-limited=1' });
    expectErrorEnvelope(limited, 429, 'rate_limited');
    await advance(h, Number(limited.headers.get('retry-after')));
    expectOk(await p.get(MAPPINGS));

    // A 503: retry.
    expectErrorEnvelope(
      await p.get(MAPPINGS, { [SCENARIO]: 'server-error=503' }),
      503,
      'service_unavailable',
    );
    expectOk(await p.get(MAPPINGS));

    const { body: r, checks } = await report(h, DEMO.parent);
    const failedEvidence = Object.values(checks).flatMap((c) => (c.outcome === 'passed' ? [] : c.evidence));
    expect(outcomes(checks), failedEvidence.join('\n')).toEqual(
      Object.fromEntries(CHECK_IDS.map((id) => [id, 'passed'])),
    );
    expect(r.summary).toEqual({ passed: 6, failed: 0, not_exercised: 0 });
    for (const c of Object.values(checks)) expect(c.next).toBeNull();
    expect(r.parent_account_id).toBe(DEMO.parent);
    for (const c of Object.values(checks)) expect(c.evidence.length).toBeGreaterThan(0);
    expect(checks['stale-hash-recovery']!.evidence.join('\n')).toContain(rid(conflict));
    expect(checks['handled-mixed']!.evidence.join('\n')).toContain(rid(partial));
    expect(checks['retried-429-5xx']!.evidence.join('\n')).toContain(rid(limited));
  });
});

describe('report: a careless client fails each check with evidence', () => {
  it('different brand on re-register, instant propagation retry, blind 409 retry, reused dry-run key, same-key partial retry, instant 429 retry, unretried 503', async () => {
    const h = createHarness();
    const p = await h.client();

    const body = registerBody();
    const reg = await p.call('POST', REGISTER, { body, headers: { [SCENARIO]: 'auth-propagation=30' } });
    const accountId = expectOk(reg).account_id;
    const differing = await p.call('POST', REGISTER, { body: { ...body, brand: 'Another Brand' } });
    expect(expectOk(differing).account_id).toBe(accountId);

    expect((await p.get(CONTROLS(accountId))).status).toBe(401);
    const instant = await p.get(CONTROLS(accountId));
    expect(instant.status).toBe(403);
    await advance(h, 30);

    const hash0 = expectOk(await p.get(CONTROLS(accountId))).marketplace_controls_list.content_hash;
    const conflict = await p.put(CONTROLS(accountId), controlsBody(hash0, 'careless.example.com'), {
      [SCENARIO]: 'stale-content-hash',
    });
    expectErrorEnvelope(conflict, 409, 'content_hash_mismatch');
    const blind = await p.put(CONTROLS(accountId), controlsBody(hash0, 'careless.example.com'));
    expectErrorEnvelope(blind, 409, 'content_hash_mismatch');

    const layoutId = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.layouts[0].layout_id;
    const dryKey = { 'Idempotency-Key': 'careless-dry-run' };
    const dry = await p.call('PATCH', `${LAYOUT(accountId, layoutId)}?dry_run=true`, {
      body: { name: 'Careless' },
      headers: dryKey,
    });
    expect(dry.body.dry_run).toBe(true);
    const reused = await p.call('PATCH', LAYOUT(accountId, layoutId), {
      body: { name: 'Careless' },
      headers: dryKey,
    });
    expect(reused.headers.get('idempotent-replayed')).toBe('true');

    const statusKey = { 'Idempotency-Key': 'careless-status' };
    const partial = await p.call('PUT', STATUS(accountId), {
      body: { status: 'paused' },
      headers: { ...statusKey, [SCENARIO]: 'status-partial-failure' },
    });
    expect(partial.body.error.code).toBe('partial_failure');
    const sameKey = await p.call('PUT', STATUS(accountId), {
      body: { status: 'paused' },
      headers: statusKey,
    });
    expect(sameKey.headers.get('idempotent-replayed')).toBe('true');

    const limited = await p.get(MAPPINGS, { [SCENARIO]: 'rate-limited=5' });
    expectErrorEnvelope(limited, 429, 'rate_limited');
    expectOk(await p.get(MAPPINGS));
    const unavailable = await p.get(MAPPINGS, { [SCENARIO]: 'server-error=503' });
    expectErrorEnvelope(unavailable, 503, 'service_unavailable');

    const { body: r, checks } = await report(h, DEMO.parent);
    expect(outcomes(checks)).toEqual(Object.fromEntries(CHECK_IDS.map((id) => [id, 'failed'])));
    expect(r.summary).toEqual({ passed: 0, failed: 6, not_exercised: 0 });
    const evidence = (id: string) => checks[id]!.evidence.join('\n');

    expect(evidence('registered-idempotently')).toContain(rid(differing));
    expect(evidence('registered-idempotently')).toContain(body.external_account_id);
    expect(evidence('propagation-retries')).toContain(rid(instant));
    expect(evidence('propagation-retries')).toContain(accountId);
    expect(evidence('stale-hash-recovery')).toContain(rid(conflict));
    expect(evidence('stale-hash-recovery')).toContain(rid(blind));
    expect(evidence('stale-hash-recovery')).toContain('without re-reading');
    expect(evidence('fresh-key-after-dry-run')).toContain(rid(reused));
    expect(evidence('handled-mixed')).toContain(rid(partial));
    expect(evidence('handled-mixed')).toContain('same Idempotency-Key');
    expect(evidence('retried-429-5xx')).toContain(rid(limited));
    expect(evidence('retried-429-5xx')).toContain('before its Retry-After of 5 s');
    expect(evidence('retried-429-5xx')).toContain(rid(unavailable));
    expect(evidence('retried-429-5xx')).toContain('was not retried');
    // Each failed check says what the client must do instead.
    for (const id of CHECK_IDS) expect(checks[id]!.next).toBe(NEXT[id as keyof typeof NEXT].failed);
    expect(checks['handled-mixed']!.next).toContain('fresh Idempotency-Key');
  });
});

describe('report: not exercised, formats, errors, isolation', () => {
  it('a partner with no traffic: every check not_exercised', async () => {
    const h = createHarness();
    // Another partner's traffic does not count for it.
    const demo = await h.client();
    expectErrorEnvelope(
      await demo.get(MAPPINGS, { [SCENARIO]: 'server-error=503' }),
      503,
      'service_unavailable',
    );
    const created = await h.request('POST', '/__sandbox/partners', { body: {} });
    expect(created.status).toBe(201);
    const { body: r, checks } = await report(h, created.body.parent_account_id);
    expect(outcomes(checks)).toEqual(Object.fromEntries(CHECK_IDS.map((id) => [id, 'not_exercised'])));
    expect(r.summary).toEqual({ passed: 0, failed: 0, not_exercised: 6 });
    expect(r.requests_analyzed).toBe(0);
    for (const c of Object.values(checks)) expect(c.evidence).toEqual([]);
    // Each says how to exercise it.
    for (const id of CHECK_IDS) expect(checks[id]!.next).toBe(NEXT[id as keyof typeof NEXT].not_exercised);
    expect(checks['stale-hash-recovery']!.next).toContain('X-Sandbox-Scenario: stale-content-hash');
  });

  it('format=junit: application/xml, one testcase per check, failure and skipped, special characters escaped', async () => {
    const h = createHarness();
    // The control plane takes only path-segment IDs now; the report still escapes what it is given.
    const parent = 'pa_<acme>&"co"';
    h.sandbox.store.partners.insert({
      parent_account_id: parent,
      client_id: 'acme-client',
      ...secretColumns(hashSecretSync('acme-secret-123')),
      name: 'Acme',
      created_at: h.sandbox.clock.iso(),
    });
    const p = await h.client({ parent, clientId: 'acme-client', clientSecret: 'acme-secret-123' });
    const limited = await p.get(MAPPINGS, { [SCENARIO]: 'rate-limited=3' });
    expectErrorEnvelope(limited, 429, 'rate_limited');

    const res = await h.request(
      'GET',
      `/__sandbox/report?parent_account_id=${encodeURIComponent(parent)}&format=junit`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = res.text;
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).toMatch(/<testsuites [^>]*tests="6" failures="1" skipped="5"/);
    expect(xml.match(/<testcase /g)).toHaveLength(6);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml.match(/<skipped /g)).toHaveLength(5);
    // The failing check is retried-429-5xx, with the 429's request_id in its evidence.
    const failing = /<testcase [^>]*name="([^"]*)">\s*<failure message="([^"]*)">([^<]*)<\/failure>/.exec(
      xml,
    );
    expect(failing).not.toBeNull();
    expect(failing![1]).toBe('429 and 5xx answers retried (429 after Retry-After)');
    expect(failing![3]).toContain(rid(limited));
    expect(failing![2]).toContain('-&gt; 429 rate_limited');
    // Escaping: the parent ID appears only escaped; no bare & or < outside markup.
    expect(xml).toContain('pa_&lt;acme&gt;&amp;&quot;co&quot;');
    expect(xml).not.toContain('<acme>');
    expect(xml).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
    const text = xml.replace(/<[^<>]*>/g, '');
    expect(text).not.toContain('<');
    expect(text).not.toContain('>');
  });

  it('format=junit holds only characters XML 1.0 allows, whatever an API value carried (U+FFFF is a valid external_account_id)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = registerBody({ external_account_id: 'merchant\uffff\ufffe-7' });
    for (let i = 0; i < 2; i++) expectOk(await partner.register(body));
    const res = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}&format=junit`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('merchant-7');
    expect(res.text).not.toMatch(/[\uFFFE\uFFFF]/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting there are none
    expect(res.text).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
  });

  it('missing parent_account_id is 400; an unknown parent is 404; format=csv is 400', async () => {
    const h = createHarness();
    const missing = expectErrorEnvelope(await h.request('GET', '/__sandbox/report'), 400, 'validation_error');
    expect(missing.error.details.fields).toEqual([
      { field: 'query.parent_account_id', message: 'is required' },
    ]);
    const unknown = expectErrorEnvelope(
      await h.request('GET', '/__sandbox/report?parent_account_id=pa_nobody'),
      404,
      'not_found',
    );
    expect(unknown.message).toContain('pa_nobody');
    const csv = expectErrorEnvelope(
      await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}&format=csv`),
      400,
      'validation_error',
    );
    expect(csv.error.details.fields).toEqual([
      { field: 'query.format', message: 'must be "json" or "junit"' },
    ]);
  });

  it("one partner's report never includes another partner's requests", async () => {
    const h = createHarness();
    const demo = await h.client();
    const other = await h.client(UNSEEDED);

    const demoLimited = await demo.get(MAPPINGS, { [SCENARIO]: 'rate-limited=1' });
    expect(demoLimited.status).toBe(429);
    // The other partner's calls in between must not count as the demo partner's retry.
    const otherRetry = await other.get(MAPPINGS);
    expect(otherRetry.status).toBe(200);
    const otherFailure = await other.get(MAPPINGS, { [SCENARIO]: 'server-error=503' });
    expect(otherFailure.status).toBe(503);
    await advance(h, 1);
    const demoRetry = await demo.get(MAPPINGS);
    expectOk(demoRetry);

    const demoReport = await report(h, DEMO.parent);
    const demoJson = JSON.stringify(demoReport.body);
    expect(demoReport.checks['retried-429-5xx']!.outcome).toBe('passed');
    expect(demoJson).toContain(rid(demoRetry));
    expect(demoJson).not.toContain(rid(otherRetry));
    expect(demoJson).not.toContain(rid(otherFailure));
    const demoJournal = await h.request(
      'GET',
      `/__sandbox/requests?parent_account_id=${DEMO.parent}&path=/v1/`,
    );
    expect(demoReport.body.requests_analyzed).toBe(demoJournal.body.requests.length);
    expect(demoReport.body.requests_analyzed).toBe(2);

    const otherReport = await report(h, UNSEEDED.parent);
    const otherJson = JSON.stringify(otherReport.body);
    expect(otherReport.checks['retried-429-5xx']!.outcome).toBe('failed');
    expect(otherJson).toContain(rid(otherFailure));
    expect(otherJson).not.toContain(rid(demoLimited));
    expect(otherJson).not.toContain(rid(demoRetry));
    expect(otherReport.body.requests_analyzed).toBe(2);
  });
});
