/**
 * Test tenants (docs/parallel-tests.md): a partner of its own, created and seeded through the
 * control plane, with a client bound to a token of its own.
 */
import type { Harness } from './harness.js';

let counter = 0;

/** Creates a partner with the demo partner's mapping and returns a client for it. */
export async function newTenant(h: Harness, name = 'tenant') {
  const parent = `pa_${name}_${++counter}_${Date.now()}`;
  const created = await h.request('POST', '/__sandbox/partners', { body: { parent_account_id: parent } });
  if (created.status !== 201) throw new Error(`partner create failed: ${created.status} ${created.text}`);
  const mapping = h.sandbox.fixtures.partners[0]!.mapping.map((m) => ({
    partner_vertical_id: m.partner_vertical_id,
    partner_vertical_name: m.partner_vertical_name,
    partner_sub_vertical_id: m.partner_sub_vertical_id,
    partner_sub_vertical_name: m.partner_sub_vertical_name,
    vertical_name: m.vertical_name,
  }));
  const seeded = await h.request('PUT', `/__sandbox/partners/${parent}/vertical-mappings`, {
    body: { vertical_mappings: mapping },
  });
  if (seeded.status !== 200) throw new Error(`seed failed: ${seeded.status} ${seeded.text}`);
  const creds = { parent, clientId: created.body.client_id, clientSecret: created.body.client_secret };
  return { ...creds, creds, client: await h.client(creds) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `POST /__sandbox/requests/count` */
export async function count(h: Harness, filter: Record<string, unknown>): Promise<number> {
  const res = await h.request('POST', '/__sandbox/requests/count', { body: filter });
  if (res.status !== 200) throw new Error(`count failed: ${res.status} ${res.text}`);
  return res.body.count;
}

/** The journal's length for these filters (GET /__sandbox/requests). */
export async function journalLength(h: Harness, filter: Record<string, string> = {}): Promise<number> {
  const res = await h.request('GET', `/__sandbox/requests?${new URLSearchParams(filter)}`);
  if (res.status !== 200) throw new Error(`journal failed: ${res.status} ${res.text}`);
  return res.body.requests.length;
}
