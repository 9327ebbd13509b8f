/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) and bearer-token verification
 * (docs/api.md#authentication). Tokens are stored hashed; client secrets as salted hashes, checked off
 * the event loop and compared in constant time (domain/secrets.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ids } from '../domain/ids.js';
import { secretMatches } from '../domain/secrets.js';
import type { Sandbox } from '../state/index.js';
import { secretOf } from '../store/partners-table.js';

export const TOKEN_SCOPE = 'partnership';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'server_error'
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 413 | 429 | 500 | 502 | 503,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export interface TokenGrant {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export interface Principal {
  parent_account_id: string;
  client_id: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
/** How a token is kept: its SHA-256, in hex (the store never holds a token in clear). */
export const tokenHash = (token: string) => sha256(token).toString('hex');

/** Constant-time equality that does not leak the length either (both sides are hashed first). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

export interface TokenRequest {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
  /** Whether the client authenticated with HTTP Basic (RFC 6749 §5.2: then 401 with WWW-Authenticate). */
  basic: boolean;
}

/** Checks a token request and its client's credentials; the principal it would be issued to. */
export async function authenticateClient(s: Sandbox, req: TokenRequest): Promise<Principal> {
  if (!req.grant_type) throw new OAuthError('invalid_request', 'grant_type is required', 400);
  if (req.grant_type !== 'client_credentials') {
    throw new OAuthError(
      'unsupported_grant_type',
      `grant_type "${req.grant_type}" is not supported; use client_credentials`,
      400,
    );
  }
  if (!req.client_id || !req.client_secret) {
    throw new OAuthError(
      'invalid_client',
      'client authentication is required: send client_id and client_secret in the body or with HTTP Basic',
      401,
    );
  }
  if (req.scope?.split(' ').some((sc) => sc && sc !== TOKEN_SCOPE)) {
    throw new OAuthError('invalid_scope', `the only scope is "${TOKEN_SCOPE}"`, 400);
  }
  const partner = await clientMatching(s, req.client_id, req.client_secret);
  if (!partner) throw new OAuthError('invalid_client', 'client authentication failed', 401);
  return { parent_account_id: partner.parent_account_id, client_id: partner.client_id };
}

/**
 * The partner whose credentials these are, if any. An unknown client is checked against a
 * dummy hash, so timing does not tell which part was wrong. The hash is computed off the
 * event loop: if the state was replaced meanwhile (a reset, a restore, a bundle import),
 * the credentials are checked again against the new state.
 */
export async function clientMatching(s: Sandbox, clientId: string, secret: string) {
  for (;;) {
    const epoch = s.epoch;
    const partner = s.store.partners.byClient(clientId);
    const ok = await secretMatches(partner && secretOf(partner), secret);
    if (s.epoch === epoch) return ok ? partner : undefined;
  }
}

/** Issues a token to an authenticated client. */
export function issueToken(s: Sandbox, principal: Principal): TokenGrant {
  const token = ids.accessToken();
  const ttl = s.config.tokenTtlSeconds;
  const now = s.clock.now(principal.parent_account_id); // the partner's clock
  s.store.partners.insertToken(
    tokenHash(token),
    principal.parent_account_id,
    principal.client_id,
    now + ttl * 1000,
  );
  // Expired tokens are kept a day, so that "expired" can be told apart from "invalid"; then pruned
  // by the global clock (no partner's clock is behind it, so no partner loses a live token).
  s.store.partners.pruneTokens(s.clock.now() - 86_400_000);
  return { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: TOKEN_SCOPE };
}

export type TokenCheck = { ok: true; principal: Principal } | { ok: false; reason: 'invalid' | 'expired' };

export function verifyToken(s: Sandbox, token: string): TokenCheck {
  const row = s.store.partners.token(token, tokenHash);
  if (!row) return { ok: false, reason: 'invalid' };
  if (row.expires_at <= s.clock.now(row.parent_account_id)) return { ok: false, reason: 'expired' };
  return { ok: true, principal: { parent_account_id: row.parent_account_id, client_id: row.client_id } };
}
