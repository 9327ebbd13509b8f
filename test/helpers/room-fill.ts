/**
 * Filling a partner's room through the partnership API (docs/guarantees-and-limits.md): controls
 * lists of long domains, written straight to the app (the harness checks every answer against
 * the OpenAPI document, seconds for lists this long).
 */
import { expect } from 'vitest';
import { CONTROLS, type createHarness, expectOk, pair } from './harness.js';

type Harness = ReturnType<typeof createHarness>;
type Client = Awaited<ReturnType<Harness['client']>>;

/** A controls list of `count` domains of 240 characters (900: about 230 KB, under the 256 KB body limit). */
export function fatList(contentHash: string | null, tag: string, count = 900) {
  const label = (n: number) => `${tag}${n}`.padEnd(60, 'x');
  return {
    blockedVerticals: [pair(10, 1001)],
    domains: Array.from({ length: count }, (_, i) => ({
      domain: `${label(i)}.${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(50)}.example`,
      policy: 'Block',
    })),
    contentHash,
  };
}

/**
 * Writes lists of `count` domains, each on a new account, until one is refused with 403
 * (at most `most` writes); the refused write's account and its list's hash.
 */
export async function fillWith(h: Harness, client: Client, count: number, tag: string, most = 200) {
  const json = { ...client.headers, 'Content-Type': 'application/json' };
  for (let i = 0; i < most; i++) {
    const account = await client.account();
    const hash = expectOk(await client.get(CONTROLS(account))).marketplace_controls_list.content_hash;
    const res = await h.app.request(CONTROLS(account), {
      method: 'PUT',
      headers: { ...json, 'Idempotency-Key': `${tag}-${i}` },
      body: JSON.stringify(fatList(hash, `${tag}${i}`, count)),
    });
    await res.arrayBuffer();
    if (res.status === 200) continue;
    expect(res.status).toBe(403);
    return { account, hash, key: `${tag}-${i}` };
  }
  throw new Error(`no write of ${count} domains was refused in ${most}`);
}
