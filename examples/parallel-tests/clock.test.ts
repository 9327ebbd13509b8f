import { expect, it } from 'vitest';
import { control, tenant } from './sandbox.js';

it('an expired token after 25 h, then a clean slate', async () => {
  const me = await tenant();
  const account = (await me.register('clock-merchant')).body.data.account_id;

  await control('POST', `/__sandbox/partners/${me.parent}/clock/advance`, { seconds: 25 * 3600 });
  const late = await me.call('GET', `/v1/partnership/accounts/${account}/status`);
  expect(late.status).toBe(401);
  expect(late.body.error.code).toBe('token_expired');

  await control('POST', `/__sandbox/partners/${me.parent}/reset`);
  expect((await control('GET', `/__sandbox/accounts/${account}`)).status).toBe(404);
  expect((await control('GET', `/__sandbox/partners/${me.parent}/clock`)).body.offset_seconds).toBe(0);
});
