/**
 * POST /oauth/token: the client-credentials grant (RFC 6749 §4.4). Form-encoded or JSON
 * body, or HTTP Basic client authentication; errors in RFC 6749 §5.2 bodies, because
 * OAuth client libraries parse those.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import { json } from '../http/envelope.js';
import { requestHeader } from '../http/headers.js';
import { readBody } from '../http/read-body.js';
import { grantToken, OAuthError, type TokenRequest } from '../services/auth.js';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header ? /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) throw new OAuthError('invalid_request', 'malformed HTTP Basic credentials', 400);
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_request', 'malformed HTTP Basic credentials', 400);
  }
}

async function readTokenRequest(
  raw: string,
  type: string,
  authorization: string | undefined,
): Promise<TokenRequest> {
  let fields: Record<string, unknown> = {};
  if (raw.trim() !== '') {
    if (/^application\/x-www-form-urlencoded/i.test(type)) {
      fields = Object.fromEntries(new URLSearchParams(raw));
    } else if (/^application\/(?:[a-z0-9.+-]*\+)?json/i.test(type)) {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        fields = parsed as Record<string, unknown>;
      } catch {
        throw new OAuthError('invalid_request', 'the request body is not a valid JSON object', 400);
      }
    } else {
      throw new OAuthError(
        'invalid_request',
        'send the request as application/x-www-form-urlencoded or application/json',
        400,
      );
    }
  }
  const text = (name: string): string | undefined => {
    const v = fields[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new OAuthError('invalid_request', `${name} must be a string`, 400);
    return v;
  };
  const basic = basicCredentials(authorization);
  if (basic && text('client_secret') !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'use one client authentication method: HTTP Basic or body credentials, not both',
      400,
    );
  }
  return {
    grant_type: text('grant_type'),
    client_id: basic?.id ?? text('client_id'),
    client_secret: basic?.secret ?? text('client_secret'),
    scope: text('scope'),
    basic: basic !== undefined,
  };
}

export function oauthApi() {
  const api = new Hono<AppEnv>();
  api.post('/oauth/token', async (c) => {
    const raw = await readBody(c);
    try {
      const request = await readTokenRequest(
        raw,
        requestHeader(c, 'content-type') ?? '',
        requestHeader(c, 'authorization'),
      );
      const s = c.get('sandbox');
      const { grant, principal } = grantToken(s, request);
      c.set('principal', principal);
      const burst = s.diagnostics.tokenGranted(principal.client_id, s.clock.now());
      if (burst) c.get('warnings').push(burst);
      return json(c, grant, 200, NO_STORE);
    } catch (e) {
      if (!(e instanceof OAuthError)) throw e;
      const headers: Record<string, string> = { ...NO_STORE };
      if (e.status === 401) headers['WWW-Authenticate'] = 'Basic realm="partnership-sandbox"';
      const body = { error: e.code, error_description: e.description };
      return json(c, body, e.status, headers);
    }
  });
  return api;
}
