/**
 * A typed partner client for the Partnership Accounts API, built on openapi-fetch with
 * types generated from the sandbox's OpenAPI document (schema.d.ts). It gets a token
 * once and reuses it until it expires, and sends the parent account header on every call.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type Schemas = components['schemas'];

export interface PartnerConfig {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  parentAccountId: string;
}

export function partnerClient(config: PartnerConfig) {
  const api = createClient<paths>({ baseUrl: config.baseUrl });
  let token: { value: string; expiresAt: number } | undefined;

  async function accessToken(): Promise<string> {
    if (token && token.expiresAt > Date.now() + 30_000) return token.value;
    const { data, error } = await api.POST('/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: config.clientId,
        client_secret: config.clientSecret,
      },
      bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    if (!data) throw new Error(`token request failed: ${JSON.stringify(error)}`);
    token = { value: data.access_token, expiresAt: Date.now() + data.expires_in * 1000 };
    return token.value;
  }

  /** Forgets the token (after a 401 token_expired) so the next call gets a new one. */
  const dropToken = () => {
    token = undefined;
  };

  const auth: Middleware = {
    async onRequest({ request, schemaPath }) {
      if (schemaPath === '/oauth/token') return request;
      request.headers.set('Authorization', `Bearer ${await accessToken()}`);
      request.headers.set('X-Platform-Parent-Account-Id', config.parentAccountId);
      return request;
    },
  };
  api.use(auth);
  return Object.assign(api, { dropToken, parentAccountId: config.parentAccountId });
}

export type PartnerClient = ReturnType<typeof partnerClient>;
