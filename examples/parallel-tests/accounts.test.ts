import { expect, it } from 'vitest';
import { control, tenant } from './sandbox.js';

it('my account, token and clock stay mine while other files run', async () => {
  const me = await tenant();
  const account = (await me.register('steady-merchant')).body.data.account_id;

  for (let i = 0; i < 20; i++) {
    const res = await me.call('GET', `/v1/partnership/accounts/${account}/status`);
    expect(res.status).toBe(200);
    expect((await control('GET', `/__sandbox/partners/${me.parent}/clock`)).body.offset_seconds).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
  }
  const calls = await control('POST', '/__sandbox/requests/count', {
    parent_account_id: me.parent,
    path: `/accounts/${account}/status`,
  });
  expect(calls.body.count).toBe(20);
});
