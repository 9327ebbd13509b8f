import { describe, expect, it } from 'vitest';
import { CONTROLS, createHarness, expectOk } from '../helpers/harness.js';

describe('smoke', () => {
  it('grants a token, registers and reads controls through HTTP', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const data = expectOk(await partner.get(CONTROLS(accountId)));
    expect(data.account_id).toBe(accountId);
    expect(data.translated_verticals.length).toBeGreaterThan(0);
  });
});
