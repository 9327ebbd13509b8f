/**
 * Traces (docs/journal-and-report.md#traces, SANDBOX.md §9 "Traces"): the journal keeps a
 * partner's W3C traceparent as trace_id and span_id and its tracestate as sent; a traceparent
 * that breaks W3C Trace Context is no trace, never an error to the partner API; the journal and
 * the count filter by trace_id; bundles and snapshots carry the fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import {
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  MAPPINGS,
  STATUS,
} from '../helpers/harness.js';
import { demoToken } from '../helpers/raw-http.js';
import { count, newTenant } from '../helpers/tenants.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${SPAN}-01`;
const OTHER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const OTHER_TRACEPARENT = `00-${OTHER_TRACE}-b7ad6b7169203331-00`;

type Entry = {
  request_id: string;
  path: string;
  trace_id: string | null;
  span_id: string | null;
  tracestate: string | null;
};

async function journal(h: Harness, query = ''): Promise<Entry[]> {
  const res = await h.request('GET', `/__sandbox/requests${query}`);
  expect(res.status).toBe(200);
  return res.body.requests;
}

async function entryOf(h: Harness, requestId: string | null): Promise<Entry> {
  const found = (await journal(h)).find((e) => e.request_id === requestId);
  if (!found) throw new Error(`no journal entry for request ${requestId}`);
  return found;
}

describe('traces: the journal keeps a valid traceparent', () => {
  it('trace_id, span_id and tracestate as sent; the partner answer is the same as without them', async () => {
    const h = createHarness();
    const partner = await h.client();
    const tracestate = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
    const traced = await partner.get(MAPPINGS, { traceparent: TRACEPARENT, tracestate });
    const plain = await partner.get(MAPPINGS);
    expectOk(traced);
    expect(traced.body.data).toEqual(plain.body.data);
    // Nothing of the trace leaks into the answer (SANDBOX.md §8).
    expect(traced.text).not.toContain(TRACE);
    expect([...traced.headers.keys()].filter((k) => k.startsWith('trace'))).toEqual([]);

    const entry = await entryOf(h, traced.headers.get('x-request-id'));
    expect(entry).toMatchObject({ trace_id: TRACE, span_id: SPAN, tracestate });
    const untraced = await entryOf(h, plain.headers.get('x-request-id'));
    expect(untraced).toMatchObject({ trace_id: null, span_id: null, tracestate: null });
  });

  it('a traceparent without tracestate: tracestate null', async () => {
    const h = createHarness();
    const res = await (await h.client()).get(MAPPINGS, { traceparent: TRACEPARENT });
    const entry = await entryOf(h, res.headers.get('x-request-id'));
    expect(entry).toMatchObject({ trace_id: TRACE, span_id: SPAN, tracestate: null });
  });

  it('the token call is traced too', async () => {
    const h = createHarness();
    const res = await h.request('POST', '/oauth/token', {
      raw: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: DEMO.clientId,
        client_secret: DEMO.clientSecret,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', traceparent: TRACEPARENT },
    });
    expect(res.status).toBe(200);
    expect((await entryOf(h, res.headers.get('x-request-id'))).trace_id).toBe(TRACE);
  });

  it('a later version is read by its first four fields when more follow after a "-" (W3C §4.3)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.get(MAPPINGS, { traceparent: `cc-${TRACE}-${SPAN}-01-what-the-future-adds` });
    expect(await entryOf(h, res.headers.get('x-request-id'))).toMatchObject({
      trace_id: TRACE,
      span_id: SPAN,
    });
  });
});

describe('traces: a traceparent that breaks W3C Trace Context is no trace, never an error', () => {
  const invalid: [string, string][] = [
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['an all-zero trace-id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero parent-id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace-id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['version 00 with more after it', `${TRACEPARENT}-extra`],
    ['a later version followed by no "-"', `01-${TRACE}-${SPAN}-01x`],
    ['flags of one digit', `00-${TRACE}-${SPAN}-1`],
    ['not hex', `00-${TRACE.replace('4', 'g')}-${SPAN}-01`],
    ['no dashes', `00${TRACE}${SPAN}01`],
    ['garbage', 'not a trace'],
    ['empty', ''],
  ];
  for (const [what, traceparent] of invalid) {
    it(`${what}: the call answers as without it, the entry has no trace (tracestate dropped too)`, async () => {
      const h = createHarness();
      const partner = await h.client();
      const res = await partner.get(MAPPINGS, { traceparent, tracestate: 'rojo=00f067aa0ba902b7' });
      expectOk(res);
      expect(await entryOf(h, res.headers.get('x-request-id'))).toMatchObject({
        trace_id: null,
        span_id: null,
        tracestate: null,
      });
    });
  }

  it('two traceparent headers (joined with ", "): no trace', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.get(MAPPINGS, { traceparent: `${TRACEPARENT}, ${OTHER_TRACEPARENT}` });
    expectOk(res);
    expect((await entryOf(h, res.headers.get('x-request-id'))).trace_id).toBeNull();
  });

  it('a write with a malformed traceparent is written as without it', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const res = await partner.put(STATUS(accountId), { status: 'paused' }, { traceparent: '00-zz' });
    expectOk(res);
    expect(res.body.data.status).toBe('paused');
  });
});

describe('traces: trace_id filters the journal and the count', () => {
  async function twoTraces(h: Harness) {
    const t = await newTenant(h, 'traces');
    const accountId = await t.client.account();
    await t.client.get(MAPPINGS, { traceparent: TRACEPARENT });
    await t.client.get(STATUS(accountId), { traceparent: OTHER_TRACEPARENT });
    await t.client.put(STATUS(accountId), { status: 'active' }, { traceparent: TRACEPARENT });
    await t.client.get(MAPPINGS);
    return { ...t, accountId };
  }

  it('GET /__sandbox/requests?trace_id= answers that trace’s calls only, newest first, with the other filters', async () => {
    const h = createHarness();
    const { accountId } = await twoTraces(h);
    const traced = await journal(h, `?trace_id=${TRACE}`);
    expect(traced.map((e) => e.path)).toEqual([STATUS(accountId), MAPPINGS]);
    expect(traced.every((e) => e.trace_id === TRACE)).toBe(true);
    // any case, as a tracing UI may show it
    expect(await journal(h, `?trace_id=${TRACE.toUpperCase()}`)).toEqual(traced);
    expect((await journal(h, `?trace_id=${TRACE}&method=PUT`)).map((e) => e.path)).toEqual([
      STATUS(accountId),
    ]);
    expect(await journal(h, `?trace_id=${TRACE}&limit=1`)).toEqual(traced.slice(0, 1));
    expect((await journal(h, `?trace_id=${OTHER_TRACE}`)).map((e) => e.path)).toEqual([STATUS(accountId)]);
    expect(await journal(h, `?trace_id=${'1'.repeat(32)}`)).toEqual([]);
  });

  it('POST /__sandbox/requests/count counts by trace_id, with the other filters', async () => {
    const h = createHarness();
    const { parent } = await twoTraces(h);
    expect(await count(h, { trace_id: TRACE })).toBe(2);
    expect(await count(h, { trace_id: TRACE.toUpperCase(), method: 'GET' })).toBe(1);
    expect(await count(h, { trace_id: OTHER_TRACE, parent_account_id: parent })).toBe(1);
    expect(await count(h, { trace_id: OTHER_TRACE, parent_account_id: 'pa_demo_platform' })).toBe(0);
    expect(await count(h, { trace_id: TRACE, body_contains: 'active' })).toBe(1);
  });

  for (const [value, message] of [
    ['xyz', 'must be a W3C trace-id: 32 hex digits'],
    [TRACE.slice(2), 'must be a W3C trace-id: 32 hex digits'],
    [`00-${TRACE}-${SPAN}-01`, 'must be a W3C trace-id: 32 hex digits'],
    ['0'.repeat(32), 'must be a W3C trace-id: 32 hex digits, not all zero'],
  ] as const) {
    it(`trace_id=${value}: 400 naming the filter, on both routes`, async () => {
      const h = createHarness();
      const listed = await h.request('GET', `/__sandbox/requests?trace_id=${value}`);
      const body = expectErrorEnvelope(listed, 400, 'validation_error');
      expect(body.error.details.fields).toEqual([{ field: 'query.trace_id', message }]);
      const counted = await h.request('POST', '/__sandbox/requests/count', { body: { trace_id: value } });
      const countBody = expectErrorEnvelope(counted, 400, 'validation_error');
      expect(countBody.error.details.fields).toEqual([{ field: 'trace_id', message }]);
    });
  }

  it('the control-plane document declares trace_id on both routes', async () => {
    const h = createHarness();
    const doc = (await h.request('GET', '/__sandbox/openapi.json')).body;
    const query = doc.paths['/__sandbox/requests'].get.parameters.find(
      (p: { name: string }) => p.name === 'trace_id',
    );
    expect(query).toMatchObject({ in: 'query', required: false, schema: { type: 'string' } });
    expect(query.description).toContain('trace-id');
    const countBody =
      doc.paths['/__sandbox/requests/count'].post.requestBody.content['application/json'].schema;
    const resolved = countBody.$ref ? doc.components.schemas[countBody.$ref.split('/').at(-1)] : countBody;
    expect(resolved.properties.trace_id).toMatchObject({ type: 'string' });
    const entry = doc.components.schemas.JournalEntry;
    for (const field of ['trace_id', 'span_id', 'tracestate']) expect(entry.required).toContain(field);
  });
});

describe('traces travel with the journal', () => {
  it('a bundle carries trace_id, span_id and tracestate; imported, the filter finds them', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'trace-bundle');
    await t.client.get(MAPPINGS, { traceparent: TRACEPARENT, tracestate: 'vendor=x' });
    await t.client.get(MAPPINGS);
    const bundle = (await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`)).body;
    const traced = bundle.journal.filter((e: Entry) => e.trace_id !== null);
    expect(traced).toHaveLength(1);
    expect(traced[0]).toMatchObject({ trace_id: TRACE, span_id: SPAN, tracestate: 'vendor=x' });

    const other = createHarness();
    expect((await other.request('POST', '/__sandbox/bundles', { body: bundle })).status).toBe(200);
    const found = await journal(other, `?trace_id=${TRACE}`);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ trace_id: TRACE, span_id: SPAN, tracestate: 'vendor=x' });
    expect(await count(other, { trace_id: TRACE })).toBe(1);
    // ...and exported again, the same entries
    const again = (await other.request('GET', `/__sandbox/partners/${t.parent}/bundle`)).body;
    expect(again.journal).toEqual(bundle.journal);
  });

  it('a bundle written before traces (no trace fields) loads, its entries without a trace', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'trace-old');
    await t.client.get(MAPPINGS, { traceparent: TRACEPARENT });
    const bundle = (await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`)).body;
    for (const e of bundle.journal) {
      delete e.trace_id;
      delete e.span_id;
      delete e.tracestate;
    }
    const other = createHarness();
    expect((await other.request('POST', '/__sandbox/bundles', { body: bundle })).status).toBe(200);
    const entries = await journal(other, `?parent_account_id=${t.parent}`);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.trace_id === null && e.span_id === null && e.tracestate === null)).toBe(
      true,
    );
  });

  for (const [what, change, field, message] of [
    [
      'a trace_id without a span_id',
      (e: Record<string, unknown>) => (e.span_id = null),
      'journal[0].span_id',
      'trace_id and span_id come together (both null without a trace)',
    ],
    [
      'a tracestate without a trace',
      (e: Record<string, unknown>) => Object.assign(e, { trace_id: null, span_id: null }),
      'journal[0].tracestate',
      'must be null without a trace_id (a tracestate is kept only with a valid traceparent)',
    ],
    [
      'an upper-case trace_id',
      (e: Record<string, unknown>) => (e.trace_id = TRACE.toUpperCase()),
      'journal[0].trace_id',
      'must be 32 lower-case hex digits, not all zero',
    ],
    [
      'an all-zero span_id',
      (e: Record<string, unknown>) => (e.span_id = '0'.repeat(16)),
      'journal[0].span_id',
      'must be 16 lower-case hex digits, not all zero',
    ],
  ] as const) {
    it(`a bundle with ${what}: 400 naming ${field}, nothing loaded`, async () => {
      const h = createHarness();
      const t = await newTenant(h, 'trace-bad');
      await t.client.get(MAPPINGS, { traceparent: TRACEPARENT, tracestate: 'vendor=x' });
      const bundle = (await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`)).body;
      change(bundle.journal[0]);
      const other = createHarness();
      const res = await other.request('POST', '/__sandbox/bundles', { body: bundle });
      const body = expectErrorEnvelope(res, 400, 'validation_error');
      expect(body.error.details.fields).toContainEqual({ field, message });
      expect((await other.request('GET', '/__sandbox/partners')).text).not.toContain(t.parent);
    });
  }

  it('a snapshot keeps them: restored, the filter finds the trace again', async () => {
    const h = createHarness();
    const partner = await h.client();
    await partner.get(MAPPINGS, { traceparent: TRACEPARENT });
    expect((await h.request('POST', '/__sandbox/snapshots', { body: { name: 'traced' } })).status).toBe(201);
    await h.request('DELETE', '/__sandbox/requests');
    expect(await journal(h, `?trace_id=${TRACE}`)).toEqual([]);
    expect((await h.request('POST', '/__sandbox/snapshots/traced/restore')).status).toBe(200);
    const found = await journal(h, `?trace_id=${TRACE}`);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ trace_id: TRACE, span_id: SPAN });
  });
});

describe('traces over a real socket, with the control client', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it('headers read from the socket (a repeated tracestate joined) and the client’s trace_id filter', async () => {
    const token = await demoToken(sandbox.url);
    const headers = new Headers({ Authorization: `Bearer ${token}`, traceparent: TRACEPARENT });
    headers.append('tracestate', 'rojo=1');
    headers.append('tracestate', 'congo=2');
    const res = await fetch(`${sandbox.url}${MAPPINGS}?parent_account_id=${DEMO.parent}`, { headers });
    expect(res.status).toBe(200);

    const listed = await sandbox.control.requests.list({ trace_id: TRACE });
    expect(listed.requests).toHaveLength(1);
    expect(listed.requests[0]).toMatchObject({
      request_id: res.headers.get('x-request-id'),
      trace_id: TRACE,
      span_id: SPAN,
      tracestate: 'rojo=1, congo=2',
    });
    expect(await sandbox.control.requests.count({ trace_id: TRACE })).toBe(1);
    expect(await sandbox.control.requests.count({ trace_id: OTHER_TRACE })).toBe(0);
  });
});
