/**
 * A tenant of its own on a shared sandbox (docs/parallel-tests.md): a
 * partner created for this test file, seeded with the default mapping, and a token.
 */
const url = process.env.SANDBOX_URL ?? 'http://localhost:4010';
// biome-ignore lint/suspicious/noExplicitAny: answers are asserted field by field
type Json = any;

export async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

export async function token(clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  return ((await res.json()) as Json).access_token;
}

export async function tenant() {
  const { body: partner } = await control('POST', '/__sandbox/partners', {});
  await control('PUT', `/__sandbox/partners/${partner.parent_account_id}/vertical-mappings`, {
    vertical_mappings: [
      {
        partner_vertical_id: 10,
        partner_vertical_name: 'Apparel & Accessories',
        partner_sub_vertical_id: 1001,
        partner_sub_vertical_name: "Women's Clothing",
        vertical_name: 'Apparel > Womenswear',
      },
    ],
  });
  const bearer = await token(partner.client_id, partner.client_secret);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: {
        Authorization: `Bearer ${bearer}`,
        'X-Platform-Parent-Account-Id': partner.parent_account_id,
        'Content-Type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const register = (external: string) =>
    call('POST', '/v1/accounts/register/partnership', {
      brand: 'Acme',
      vertical_id: 10,
      sub_vertical_id: 1001,
      country_code: 'US',
      platform_parent_account_id: partner.parent_account_id,
      store_identifier: 'https://acme.example.com',
      external_account_id: external,
    });
  return { parent: partner.parent_account_id as string, call, register };
}
