/**
 * The whole happy path of a partner integration, with the documented recoveries:
 * - registration, idempotent on external_account_id;
 * - the auth-propagation race on a new account: retry every 20 s for up to 2 minutes;
 * - adding one blocked vertical (spec rule 5) with a 409 stale-hash recovery:
 *   re-read, re-apply, retry (the same Idempotency-Key may be reused after a 409);
 * - a dry run, then the real write with a FRESH key (a dry run caches its key);
 * - pausing the partnership.
 * The sandbox drills are triggered with X-Sandbox-Scenario, as a partner's CI would.
 */
import { randomUUID } from 'node:crypto';
import type { PartnerClient, Schemas } from './client.js';

export interface Hooks {
  /** Waits between retries: real time in production, the sandbox clock in tests. */
  wait(seconds: number): Promise<void>;
  log?(line: string): void;
}

type BlockedVertical = Schemas['BlockedVerticalWrite'];
const PROPAGATION_RETRY_SECONDS = 20;
const PROPAGATION_GIVE_UP_SECONDS = 120;

function isPropagation(status: number, body: unknown): boolean {
  const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
  return (status === 401 || status === 403) && code === 'auth_propagation_pending';
}

/** Spec §5.5: a new account's controls and status calls can answer 401/403 for 1-2 minutes. */
async function withPropagationRetry<T extends { response: Response; error?: unknown }>(
  hooks: Hooks,
  call: () => Promise<T>,
): Promise<{ result: T; retries: number }> {
  for (let waited = 0, retries = 0; ; retries++) {
    const result = await call();
    if (!isPropagation(result.response.status, result.error)) return { result, retries };
    if (waited >= PROPAGATION_GIVE_UP_SECONDS) throw new Error('token authentication never propagated');
    hooks.log?.(`propagation ${result.response.status}; retrying in ${PROPAGATION_RETRY_SECONDS} s`);
    await hooks.wait(PROPAGATION_RETRY_SECONDS);
    waited += PROPAGATION_RETRY_SECONDS;
  }
}

/** Maps each partner sub-vertical ID back to its parent vertical ID (the partner's own taxonomy). */
async function parentVerticals(client: PartnerClient): Promise<Map<number, number>> {
  const { data } = await client.GET('/v1/partnership/vertical-mappings');
  return new Map(
    (data?.data.vertical_mappings ?? []).map((m) => [m.partner_sub_vertical_id, m.partner_vertical_id]),
  );
}

/** The write shape of what a read shows blocked. */
function blockedFromList(
  list: Schemas['ControlsData'],
  parentOf: Map<number, number>,
  except?: number,
): BlockedVertical[] {
  return list.translated_verticals
    .filter((v) => v.policy === 'Block' && v.vertical_id !== except)
    .map((v) => ({
      partnerVerticalId: parentOf.get(v.vertical_id)!,
      partnerSubVerticalId: v.vertical_id,
      policy: 'Block',
      position1Policy: 'Block',
    }));
}

async function readControls(client: PartnerClient, accountId: string) {
  const { data, error } = await client.GET('/v1/partnership/accounts/{account_id}/marketplacecontrolslists', {
    params: { path: { account_id: accountId } },
  });
  if (!data) throw new Error(`controls GET failed: ${JSON.stringify(error)}`);
  return data.data;
}

/** Spec rule 5: GET, rebuild from the Block entries, add one, keep domains, pass the hash, PUT. */
export async function addBlockedVertical(
  client: PartnerClient,
  accountId: string,
  add: { partnerVerticalId: number; partnerSubVerticalId: number },
  options: { firstAttemptScenario?: string } = {},
) {
  const parentOf = await parentVerticals(client);
  const key = randomUUID();
  let conflicts = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    const list = await readControls(client, accountId);
    const blockedVerticals = blockedFromList(list, parentOf, add.partnerSubVerticalId);
    blockedVerticals.push({ ...add, policy: 'Block', position1Policy: 'Block' });
    const scenario = attempt === 0 ? options.firstAttemptScenario : undefined;
    const { data, error, response } = await client.PUT(
      '/v1/partnership/accounts/{account_id}/marketplacecontrolslists',
      {
        params: {
          path: { account_id: accountId },
          header: {
            'x-platform-parent-account-id': client.parentAccountId,
            'idempotency-key': key, // reusable after a 409: nothing was stored for it
            ...(scenario ? { 'x-sandbox-scenario': scenario } : {}),
          },
        },
        body: {
          blockedVerticals,
          domains: list.marketplace_controls_list.domains.map((d) => ({
            domain: d.domain,
            policy: 'Block' as const,
          })),
          contentHash: list.marketplace_controls_list.content_hash,
        },
      },
    );
    if (data) return { list: data.data, conflicts };
    if (response.status === 409 && error?.error.code === 'content_hash_mismatch') {
      conflicts++;
      continue; // someone wrote in between: re-read and re-apply
    }
    throw new Error(`controls PUT failed: ${JSON.stringify(error)}`);
  }
  throw new Error('controls PUT kept conflicting');
}

export interface HappyPathResult {
  accountId: string;
  matchedOnRetry: boolean;
  propagationRetries: number;
  conflictsRecovered: number;
  dryRunWasNotStored: boolean;
  blockedSubVerticals: number[];
  domains: string[];
  status: string;
}

export async function runHappyPath(client: PartnerClient, hooks: Hooks): Promise<HappyPathResult> {
  const register = {
    brand: 'Acme Outfitters',
    vertical_id: 10,
    sub_vertical_id: 1001,
    country_code: 'US',
    platform_parent_account_id: client.parentAccountId,
    store_identifier: 'https://acme.example.com',
    external_account_id: `acme-${randomUUID()}`,
  };
  const headers = { 'x-platform-parent-account-id': client.parentAccountId };
  // 1. register (drill: the new account's token authentication takes 60 s to propagate)
  const first = await client.POST('/v1/accounts/register/partnership', {
    params: { header: { ...headers, 'x-sandbox-scenario': 'auth-propagation=60' } },
    body: register,
  });
  if (!first.data) throw new Error(`register failed: ${JSON.stringify(first.error)}`);
  const accountId = first.data.data.account_id;
  // a retry of the same registration matches the same account
  const again = await client.POST('/v1/accounts/register/partnership', {
    params: { header: headers },
    body: register,
  });
  const matchedOnRetry = again.data?.data.account_id === accountId;

  // 2. the first controls read: retry the propagation 401/403s, spaced
  const { retries } = await withPropagationRetry(hooks, () =>
    client.GET('/v1/partnership/accounts/{account_id}/marketplacecontrolslists', {
      params: { path: { account_id: accountId } },
    }),
  );

  // 3. add one blocked vertical; the first attempt loses a race to a concurrent writer (drill)
  const added = await addBlockedVertical(
    client,
    accountId,
    { partnerVerticalId: 20, partnerSubVerticalId: 2002 },
    { firstAttemptScenario: 'stale-content-hash' },
  );

  // 4. a dry run of adding a domain, then the real write with a fresh key
  const current = await readControls(client, accountId);
  const body = {
    blockedVerticals: blockedFromList(current, await parentVerticals(client)),
    domains: [{ domain: 'competitor.example', policy: 'Block' as const }],
    contentHash: current.marketplace_controls_list.content_hash,
  };
  const path = { account_id: accountId };
  const dry = await client.PUT('/v1/partnership/accounts/{account_id}/marketplacecontrolslists', {
    params: { path, query: { dry_run: 'true' }, header: { ...headers, 'idempotency-key': randomUUID() } },
    body,
  });
  const afterDry = await readControls(client, accountId);
  const dryRunWasNotStored =
    dry.data?.dry_run === true && afterDry.marketplace_controls_list.content_hash === body.contentHash;
  const real = await client.PUT('/v1/partnership/accounts/{account_id}/marketplacecontrolslists', {
    params: { path, header: { ...headers, 'idempotency-key': randomUUID() } }, // fresh key after a dry run
    body,
  });
  if (!real.data) throw new Error(`controls PUT failed: ${JSON.stringify(real.error)}`);

  // 5. pause the partnership
  const paused = await client.PUT('/v1/partnership/accounts/{account_id}/status', {
    params: { path, header: { ...headers, 'idempotency-key': randomUUID() } },
    body: { status: 'paused' },
  });
  if (!paused.data) throw new Error(`status PUT failed: ${JSON.stringify(paused.error)}`);

  const final = real.data.data;
  return {
    accountId,
    matchedOnRetry,
    propagationRetries: retries,
    conflictsRecovered: added.conflicts,
    dryRunWasNotStored,
    blockedSubVerticals: final.translated_verticals
      .filter((v) => v.policy === 'Block')
      .map((v) => v.vertical_id),
    domains: final.marketplace_controls_list.domains.map((d) => d.domain),
    status: paused.data.data.status,
  };
}
