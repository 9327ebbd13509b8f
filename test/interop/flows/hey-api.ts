/**
 * The partner flow on the SDK that @hey-api/openapi-ts generates from the sandbox's served
 * /openapi.json (./generated/hey-api: types, SDK functions and the bundled fetch client,
 * written by the test). Type-checked with `tsc --strict`, then run against a listening
 * sandbox.
 */
import { randomUUID } from 'node:crypto';
import { createClient, createConfig } from './generated/hey-api/client/index.js';
import {
  type BlockedVerticalWrite,
  type ClientOptions,
  type ControlsData,
  getMarketplaceControlsList,
  getPartnershipStatus,
  listVerticalMappings,
  registerPartnershipAccount,
  replaceMarketplaceControlsList,
  requestAccessToken,
  setPartnershipStatus,
} from './generated/hey-api/index.js';
import {
  type Attempt,
  dryRunKeyTrap,
  type FlowConfig,
  type PartnerFlow,
  type WriteSeen,
} from './partner-flow.js';

export function createFlow(config: FlowConfig): PartnerFlow {
  let token: string | undefined;
  // the SDK's bearer security scheme asks `auth` for the token on every call that needs one
  const client = createClient(createConfig<ClientOptions>({ baseUrl: config.baseUrl, auth: () => token }));

  async function connect() {
    const { data, error } = await requestAccessToken({
      client,
      body: {
        grant_type: 'client_credentials',
        client_id: config.clientId,
        client_secret: config.clientSecret,
      },
    });
    if (!data) throw new Error(`token request failed: ${JSON.stringify(error)}`);
    token = data.access_token;
    return { tokenType: data.token_type, expiresIn: data.expires_in, scope: data.scope };
  }

  const parent = { 'x-platform-parent-account-id': config.parentAccountId };
  const writeHeaders = (key: string) => ({ ...parent, 'idempotency-key': key });

  async function readControls(accountId: string): Promise<ControlsData> {
    const { data, error } = await getMarketplaceControlsList({
      client,
      path: { account_id: accountId },
      headers: parent,
    });
    if (!data) throw new Error(`controls GET failed: ${JSON.stringify(error)}`);
    return data.data;
  }

  async function readStatus(accountId: string): Promise<string> {
    const { data, error } = await getPartnershipStatus({
      client,
      path: { account_id: accountId },
      headers: parent,
    });
    if (!data) throw new Error(`status GET failed: ${JSON.stringify(error)}`);
    return data.data.status;
  }

  async function putStatus(accountId: string, status: 'active' | 'paused', key: string, dryRun: boolean) {
    const { data, error, response } = await setPartnershipStatus({
      client,
      path: { account_id: accountId },
      headers: writeHeaders(key),
      ...(dryRun ? { query: { dry_run: 'true' as const } } : {}),
      body: { status },
    });
    if (!response) throw new Error(`status PUT got no answer: ${String(error)}`);
    if (!data) throw new Error(`status PUT failed: ${response.status} ${JSON.stringify(error)}`);
    const seen: WriteSeen = {
      replayed: response.headers.get('Idempotent-Replayed'),
      dryRun: data.dry_run,
      requestId: data.request_id,
      status: data.data.status,
    };
    return seen;
  }

  return {
    connect,
    readStatus,

    async register(externalAccountId) {
      const { data, error } = await registerPartnershipAccount({
        client,
        headers: parent,
        body: {
          brand: 'Acme Outfitters',
          vertical_id: 10,
          sub_vertical_id: 1001,
          country_code: 'US',
          platform_parent_account_id: config.parentAccountId,
          store_identifier: 'https://acme.example.com',
          external_account_id: externalAccountId,
        },
      });
      if (!data) throw new Error(`register failed: ${JSON.stringify(error)}`);
      const pages = data.data.pages ?? [];
      return {
        accountId: data.data.account_id,
        pageIds: pages.map((p) => p.page_id),
        surfaces: pages.map((p) => p.surface),
      };
    },

    async addBlockedVertical(accountId, add, firstAttemptScenario) {
      const mappings = await listVerticalMappings({
        client,
        query: { parent_account_id: config.parentAccountId },
        headers: parent,
      });
      if (!mappings.data) throw new Error(`mappings GET failed: ${JSON.stringify(mappings.error)}`);
      const parentOf = new Map<number, number>(
        mappings.data.data.vertical_mappings.map((m) => [m.partner_sub_vertical_id, m.partner_vertical_id]),
      );
      const key = randomUUID(); // reusable after a 409: nothing was stored for it
      const attempts: Attempt[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const list = await readControls(accountId);
        const blockedVerticals: BlockedVerticalWrite[] = list.translated_verticals
          .filter((v) => v.policy === 'Block' && v.vertical_id !== add.partnerSubVerticalId)
          .map((v) => {
            const partnerVerticalId = parentOf.get(v.vertical_id);
            if (partnerVerticalId === undefined)
              throw new Error(`sub-vertical ${v.vertical_id} is not mapped`);
            return {
              partnerVerticalId,
              partnerSubVerticalId: v.vertical_id,
              policy: 'Block',
              position1Policy: 'Block',
            };
          });
        blockedVerticals.push({ ...add, policy: 'Block', position1Policy: 'Block' });
        const { data, error, response } = await replaceMarketplaceControlsList({
          client,
          path: { account_id: accountId },
          // a sandbox drill: an extra header, whether or not the document declares it
          headers: {
            ...writeHeaders(key),
            ...(attempt === 0 && firstAttemptScenario ? { 'X-Sandbox-Scenario': firstAttemptScenario } : {}),
          },
          body: {
            blockedVerticals,
            domains: list.marketplace_controls_list.domains.map((d) => ({
              domain: d.domain,
              policy: 'Block' as const,
            })),
            contentHash: list.marketplace_controls_list.content_hash,
          },
        });
        if (!response) throw new Error(`controls PUT got no answer: ${String(error)}`);
        attempts.push({ status: response.status, code: error ? error.error.code : null });
        if (data) {
          return {
            attempts,
            blocked: data.data.translated_verticals
              .filter((v) => v.policy === 'Block')
              .map((v) => v.vertical_id)
              .sort((a, b) => a - b),
            domains: data.data.marketplace_controls_list.domains.map((d) => d.domain),
          };
        }
        if (response.status === 409 && error?.error.code === 'content_hash_mismatch') continue;
        throw new Error(`controls PUT failed: ${response.status} ${JSON.stringify(error)}`);
      }
      throw new Error(`controls PUT kept conflicting: ${JSON.stringify(attempts)}`);
    },

    dryRunThenFreshKey: (accountId, status) => dryRunKeyTrap(putStatus, readStatus, accountId, status),

    async setStatus(accountId, status, scenario) {
      const { data, error, response } = await setPartnershipStatus({
        client,
        path: { account_id: accountId },
        headers: { ...writeHeaders(randomUUID()), ...(scenario ? { 'X-Sandbox-Scenario': scenario } : {}) },
        body: { status },
      });
      if (!response) throw new Error(`status PUT got no answer: ${String(error)}`);
      if (!data) throw new Error(`status PUT failed: ${response.status} ${JSON.stringify(error)}`);
      return {
        httpStatus: response.status,
        code: data.error ? data.error.code : null,
        details: data.error?.details,
        message: data.message,
        status: data.data.status,
        variants: data.data.variants.map((v) => ({ name: v.name, status: v.status })),
      };
    },
  };
}
