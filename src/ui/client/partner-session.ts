/**
 * The dashboard signed in as one partner (docs/dashboard.md, docs/hosting.md): its client
 * credentials are exchanged at POST /oauth/token, the access token is sent to the control
 * plane, which acts for that partner alone and names it in X-Sandbox-Partner. The client the
 * views use is the same typed one, its global clock read as the partner's own and its partners
 * list made of that one partner, so every view shows that partner only.
 */
import type {
  ClockState,
  ControlClient,
  PartnerClockState,
  PartnerListView,
} from '../../client/control-client.js';
import { exchange, operationTarget } from '../../client/http.js';
import { PARTNER_HEADER } from '../../contract/control/access.js';

const PARTNER_KEY = 'partnership-sandbox.partner';

export interface PartnerSession {
  parent: string;
  clientId: string;
  clientSecret: string;
}

/** The partner this tab is signed in as, if any. */
export function storedPartner(): PartnerSession | undefined {
  const text = sessionStorage.getItem(PARTNER_KEY);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as PartnerSession;
  } catch {
    return undefined;
  }
}

export function forgetPartner(): void {
  sessionStorage.removeItem(PARTNER_KEY);
}

/**
 * Exchanges a partner's client credentials for an access token and learns its partner: the
 * token and the session, or the reason it failed (shown in the sign-in form).
 */
export async function signIn(
  clientId: string,
  clientSecret: string,
): Promise<{ token: string; session: PartnerSession } | { problem: string }> {
  const grant = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  if (!grant.ok) return { problem: `Those client credentials were refused (${grant.status}). Try again.` };
  const { access_token: token } = (await grant.json()) as { access_token: string };
  // Any route a partner may call names it: the scenario catalogue, by the client's own exchange.
  const { method, path } = operationTarget('listScenarios');
  const { res: probe } = await exchange('', method, path, undefined, { token });
  const parent = probe.headers.get(PARTNER_HEADER);
  if (!probe.ok || !parent)
    return { problem: `The control plane did not take that partner's token (${probe.status}).` };
  const session = { parent, clientId, clientSecret };
  sessionStorage.setItem(PARTNER_KEY, JSON.stringify(session));
  return { token, session };
}

/** The partner's clock as the views read the sandbox clock: its whole offset. */
const asClock = (clock: PartnerClockState): ClockState => ({
  now: clock.now,
  offset_seconds: clock.offset_seconds + clock.global_offset_seconds,
});

/** The partners list of one partner, from its own bundle (the one route that lists its accounts). */
async function ownPartner(control: ControlClient, parent: string): Promise<PartnerListView> {
  const bundle = await control.bundles.export(parent);
  const accounts = bundle.accounts
    .map((a) => ({
      account_id: a.account_id,
      external_account_id: a.external_account_id,
      brand: a.brand,
      created_at: a.created_at,
    }))
    .reverse()
    .slice(0, 200);
  return {
    partners: [
      {
        parent_account_id: parent,
        name: bundle.partner.name,
        client_id: bundle.partner.client_id,
        seeded: bundle.vertical_mappings.length > 0,
        accounts,
      },
    ],
  };
}

/** The client the views use when signed in as a partner: the same routes, that partner's view of them. */
export function asPartner(control: ControlClient, parent: string): ControlClient {
  return {
    ...control,
    clock: {
      get: async () => asClock(await control.partners.clock.get(parent)),
      advance: async (seconds) => asClock(await control.partners.clock.advance(parent, seconds)),
    },
    partners: { ...control.partners, list: () => ownPartner(control, parent) },
  };
}
