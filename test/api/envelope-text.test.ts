/**
 * A cached controls read's answer is written as text around the list's JSON, serialised once
 * (http/answer-writer.ts `ok`): its bytes are what JSON.stringify of the envelope gives, keys in the
 * envelope's order, with and without dry_run.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLS, createHarness } from '../helpers/harness.js';

describe('the envelope of a cached read', () => {
  it('is JSON.stringify of the envelope, byte for byte, with and without dry_run', async () => {
    const h = createHarness();
    const partner = await h.client();
    const id = await partner.account();
    const keys = ['status', 'error', 'message', 'request_id', 'data'];
    const reads = [await partner.get(CONTROLS(id)), await partner.get(CONTROLS(id))];
    const hash = reads[0]!.body.data.marketplace_controls_list.content_hash;
    const body = { blockedVerticals: [], domains: [], contentHash: hash };
    const dryRuns = [
      await partner.put(`${CONTROLS(id)}?dry_run=true`, body),
      await partner.put(`${CONTROLS(id)}?dry_run=true`, body),
    ];
    for (const [res, expected] of [
      ...reads.map((r) => [r, keys] as const),
      ...dryRuns.map((r) => [r, [...keys, 'dry_run']] as const),
    ]) {
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body)).toEqual(expected);
      expect(res.text).toBe(JSON.stringify(res.body));
      expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    }
    const [a, b] = reads as [(typeof reads)[0], (typeof reads)[0]];
    expect(b.text.replace(b.body.request_id, '')).toBe(a.text.replace(a.body.request_id, ''));
  });
});
