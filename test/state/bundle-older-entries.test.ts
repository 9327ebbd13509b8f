/**
 * A bundle's journal entry is the journal entry's own fields with the limits of a file from
 * outside laid over them (src/contract/control/bundle.ts), so a field added to the entry travels
 * in bundles with no edit there. What that must not break: a bundle written before the field
 * existed still imports (CI jobs upload bundles that are replayed later, on a newer sandbox).
 * This test holds the fields the earliest bundles' entries carry; an entry stripped to them
 * must import. A new field of the entry therefore comes optional, nullable with a default, or
 * with a default (as trace_id, response_headers and chaos did), or this test fails.
 */
import { describe, expect, it } from 'vitest';
import { createHarness, MAPPINGS } from '../helpers/harness.js';
import { newTenant } from '../helpers/tenants.js';

/** The fields of a journal entry in the first bundles (before *_truncated, headers of the answer, traces, chaos). */
const EARLIEST_FIELDS = [
  'time',
  'partner_time',
  'method',
  'path',
  'query',
  'request_headers',
  'request_body',
  'status',
  'response_body',
  'request_id',
  'parent_account_id',
  'account_id',
  'scenarios_applied',
  'warnings',
  'duration_ms',
];

describe('a bundle written before the journal entry grew', () => {
  it('imports with its entries stripped to the earliest fields, and shows them', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'older-entries');
    expect((await t.client.get(MAPPINGS)).status).toBe(200);
    const exported = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
    expect(exported.status).toBe(200);
    const bundle = exported.body;
    expect(bundle.journal.length).toBeGreaterThan(0);
    const entries = bundle.journal as Record<string, unknown>[];
    // The entry today carries more than the earliest fields: the strip takes something away.
    expect(Object.keys(entries[0]!).length).toBeGreaterThan(EARLIEST_FIELDS.length);
    for (const e of entries) {
      for (const key of Object.keys(e)) if (!EARLIEST_FIELDS.includes(key)) delete e[key];
    }
    const other = createHarness();
    const imported = await other.request('POST', '/__sandbox/bundles', { body: bundle });
    expect(imported.status).toBe(200);
    const journal = await other.request('GET', `/__sandbox/requests?parent_account_id=${t.parent}`);
    expect(journal.status).toBe(200);
    const shown: { path: string; request_id: string }[] = journal.body.requests;
    expect(shown.map((e) => [e.path, e.request_id])).toEqual(entries.map((e) => [e.path, e.request_id]));
  });
});
