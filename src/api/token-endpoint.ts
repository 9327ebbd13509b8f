/**
 * POST /oauth/token: the client-credentials grant (RFC 6749 §4.4). Form-encoded or JSON
 * body, or HTTP Basic client authentication; errors in RFC 6749 §5.2 bodies, because
 * OAuth client libraries parse those, injected faults included (docs/fault-injection.md). Also the
 * authorization-server metadata (RFC 8414) that OAuth libraries discover it by.
 *
 * Order: scenario header (400) → body (413) → parameters (400) → the partner's fair share
 * (429, docs/hosting.md) → client authentication (401) → injected faults (reset, latency, 429, 5xx) → the token.
 */
import { type Context, Hono } from 'hono';
import { ApiError, storeNotWritable } from '../contract/api/errors.js';
import { tokenRoute } from '../contract/api/oauth.js';
import { NO_PARTNER } from '../core/rate-limit.js';
import { MAX_JSON_DEPTH, tooDeepAt } from '../domain/json-depth.js';
import { setOwn } from '../domain/own.js';
import { json } from '../http/answer-writer.js';
import { bind, type StepsDeclaration } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { injectFaults } from '../http/faults.js';
import { bodyCodingProblem, isJsonMediaType, jsonMediaTypeProblem } from '../http/json.js';
import { overLimit } from '../http/rate-limit-check.js';
import { readBody } from '../http/read-body.js';
import { requestHeader } from '../http/request-headers.js';
import { FaultPlan } from '../scenarios/fault-plan.js';
import { parseScenarioHeader, SCENARIO_HEADER } from '../scenarios/header.js';
import {
  authenticateClient,
  clientMatching,
  issueToken,
  OAuthError,
  type Principal,
  TOKEN_SCOPE,
  type TokenRequest,
} from '../services/tokens.js';
import type { Sandbox } from '../state/index.js';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const MALFORMED_BASIC = 'malformed HTTP Basic credentials';
export const TOKEN_PATH = tokenRoute.path;

/** RFC 6749 §2.3.1 and what a client that skipped the form-encoding should be told. */
export const BASIC_NOT_FORM_ENCODED =
  'the HTTP Basic credentials were not form-encoded before Base64 (RFC 6749 section 2.3.1), and the value as sent matches this client: encode client_id and client_secret with application/x-www-form-urlencoded before Base64 (a "+" as %2B, "%" as %25, ":" as %3A), or send them in the body (client_secret_post)';

interface Basic {
  /** Form-decoded (RFC 6749 §2.3.1), or undefined when the decoding failed. */
  decoded?: { id: string; secret: string };
  /** As sent, without the form-decoding. */
  raw: { id: string; secret: string };
}

function basicCredentials(header: string | undefined): Basic | undefined {
  if (!header || !/^Basic(?:\s|$)/i.test(header)) return undefined;
  // HTTP Basic was sent: a value that is no base64 (or none) is malformed, as a pair without a colon is.
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) throw new OAuthError('invalid_request', MALFORMED_BASIC, 400);
  const text = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon === -1) throw new OAuthError('invalid_request', MALFORMED_BASIC, 400);
  const raw = { id: text.slice(0, colon), secret: text.slice(colon + 1) };
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { decoded: { id: decode(raw.id), secret: decode(raw.secret) }, raw };
  } catch {
    return { raw };
  }
}

function readFields(raw: string, type: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  // The media type itself (parameters such as charset aside): `…-urlencodedx` is not a form.
  if (/^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(type)) {
    const params = new URLSearchParams(raw);
    const fields: Record<string, unknown> = {};
    for (const [name, value] of params) {
      // RFC 6749 §3.2: parameters MUST NOT be included more than once.
      if (Object.hasOwn(fields, name))
        throw new OAuthError('invalid_request', `${name} is sent more than once`, 400);
      setOwn(fields, name, value);
    }
    return fields;
  }
  if (isJsonMediaType(type)) {
    // The partnership API's rule (http/json.ts): JSON is read as UTF-8 only.
    const problem = jsonMediaTypeProblem(type);
    if (problem) throw new OAuthError('invalid_request', problem, 400);
    if (tooDeepAt(raw, MAX_JSON_DEPTH) !== -1) {
      throw new OAuthError(
        'invalid_request',
        `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
        400,
      );
    }
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      return parsed as Record<string, unknown>;
    } catch {
      throw new OAuthError('invalid_request', 'the request body is not a valid JSON object', 400);
    }
  }
  throw new OAuthError(
    'invalid_request',
    'send the request as application/x-www-form-urlencoded or application/json',
    400,
  );
}

function readTokenRequest(
  fields: Record<string, unknown>,
  basic: Basic | undefined,
): TokenRequest & { basicRaw?: Basic['raw'] } {
  const text = (name: string): string | undefined => {
    const v = fields[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new OAuthError('invalid_request', `${name} must be a string`, 400);
    return v;
  };
  if (basic && text('client_secret') !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'use one client authentication method: HTTP Basic or body credentials, not both',
      400,
    );
  }
  return {
    grant_type: text('grant_type'),
    client_id: basic ? basic.decoded?.id : text('client_id'),
    client_secret: basic ? basic.decoded?.secret : text('client_secret'),
    scope: text('scope'),
    basic: basic !== undefined,
    basicRaw: basic?.raw,
  };
}

/** An injected fault or a body over the limit, as RFC 6749 §5.2 error bodies. */
function oauthErrorOf(e: ApiError): OAuthError {
  const status = e.status as OAuthError['status'];
  if (status === 429 || status === 503) {
    return new OAuthError('temporarily_unavailable', e.message, status, e.headers);
  }
  if (status >= 500) return new OAuthError('server_error', e.message, status, e.headers);
  return new OAuthError('invalid_request', e.message, status === 413 ? 413 : 400, e.headers);
}

/** What a token call records as it goes, for the error it may answer (RFC 6749 §5.2). */
interface TokenAttempt {
  /** Whether the client sent HTTP Basic credentials. */
  usedBasic: boolean;
  /** Whether the client authenticated in the body (client_secret_post), read from the parsed request. */
  bodyCredentials: boolean;
  /** The Basic credentials as sent, without the form-decoding. */
  basicRaw?: Basic['raw'];
}

/**
 * The token endpoint's steps, in order: scenario header (400) → body (413) → parameters
 * (400) → fair share (429) → client authentication (401) → injected faults (reset, latency, 429, 5xx). They give
 * the handler the authenticated client, or answer themselves (a reset connection).
 */
const tokenEndpoint: StepsDeclaration<{ principal: Principal }, TokenAttempt> = {
  route: tokenRoute,
  begin: (c) => ({
    usedBasic: /^Basic\s/i.test(requestHeader(c, 'authorization') ?? ''),
    bodyCredentials: false,
  }),
  async steps(c, attempt) {
    const s = c.get('sandbox');
    const effects = parseScenarioHeader(requestHeader(c, SCENARIO_HEADER), s.presets);
    const plan = new FaultPlan(effects, s.armed, s.chaos);
    plan.endpoint = 'token';
    c.set('faultPlan', plan);
    const raw = await readBody(c);
    const coding = bodyCodingProblem(
      requestHeader(c, 'content-encoding'),
      requestHeader(c, 'transfer-encoding'),
    );
    if (coding) throw new OAuthError('invalid_request', coding.message, 400);
    const basic = basicCredentials(requestHeader(c, 'authorization'));
    const request = readTokenRequest(readFields(raw, requestHeader(c, 'content-type') ?? ''), basic);
    attempt.basicRaw = request.basicRaw;
    attempt.bodyCredentials =
      !basic && (request.client_id !== undefined || request.client_secret !== undefined);
    if (basic && !basic.decoded) {
      throw new OAuthError('invalid_request', MALFORMED_BASIC, 400);
    }
    // Its partner's fair share (docs/hosting.md), by client_id, before the secret is checked.
    if (s.rateLimit) {
      const limited = overLimit(s.rateLimit, partnerOfClient(s, request.client_id));
      if (limited) throw limited;
    }
    let principal = await authenticateClient(s, request);
    c.set('principal', principal);
    // Faults apply once the client is known: the header's, those armed for its parent, and
    // its chaos profile's (a token call of a known client is one of its partner's calls).
    plan.parentId = principal.parent_account_id;
    plan.drawChaos(false, 'POST', TOKEN_PATH);
    const epoch = s.epoch;
    const fault = injectFaults(c);
    if (fault instanceof Response) return fault;
    await fault;
    // A reset during the latency drill: the client is authenticated again, against the new state.
    if (s.epoch !== epoch) principal = await authenticateClient(s, request);
    return { principal };
  },
  async fail(e, c, attempt) {
    const error = await asOAuthError(e, c, attempt);
    if (!(error instanceof OAuthError)) throw error;
    const headers: Record<string, string> = { ...NO_STORE, ...error.headers };
    // RFC 6749 §5.2: the Basic challenge to a client that authenticated with Basic, or that
    // sent no credentials at all; never to one that authenticated in the body (OAuth
    // libraries read a challenge there as a protocol error of their own).
    if (error.status === 401 && (attempt.usedBasic || !attempt.bodyCredentials))
      headers['WWW-Authenticate'] = 'Basic realm="partnership-sandbox"';
    return json(c, { error: error.code, error_description: error.description }, error.status, headers);
  },
};

/** The partner a token call's client_id names, for its fair share (NO_PARTNER when none). */
function partnerOfClient(s: Sandbox, clientId: string | undefined): string {
  return (clientId && s.store.partners.byClient(clientId)?.parent_account_id) || NO_PARTNER;
}

/** What a token call threw, as the OAuth error it answers (anything else stays as it is: a 500). */
async function asOAuthError(e: unknown, c: Context<AppEnv>, attempt: TokenAttempt): Promise<unknown> {
  const s = c.get('sandbox');
  if (e instanceof ApiError) return oauthErrorOf(e);
  // A token the store cannot record (a full disk): 503 temporarily_unavailable naming SANDBOX_DB.
  const refused = s.storeHealth.refused(e);
  if (refused) return oauthErrorOf(storeNotWritable(refused));
  // Basic credentials that only match without the form-decoding: say exactly that.
  const credentialError =
    e instanceof OAuthError && (e.code === 'invalid_client' || e.description === MALFORMED_BASIC);
  if (credentialError && attempt.basicRaw) {
    if (await clientMatching(s, attempt.basicRaw.id, attempt.basicRaw.secret)) {
      c.get('warnings').push(BASIC_NOT_FORM_ENCODED);
      return new OAuthError(e.code, `${e.description}: ${BASIC_NOT_FORM_ENCODED}`, e.status);
    }
  }
  return e;
}

export function oauthApi() {
  const api = new Hono<AppEnv>();

  bind(api, tokenEndpoint, ({ principal }, c) => {
    const s = c.get('sandbox');
    const grant = issueToken(s, principal);
    const burst = s.diagnostics.tokenGranted(principal.client_id, s.clock.now(principal.parent_account_id));
    if (burst) c.get('warnings').push(burst);
    return json(c, grant, 200, NO_STORE);
  });

  // RFC 8414 authorization-server metadata (and the OpenID discovery path that
  // openid-client asks first): where the token endpoint is and how to authenticate.
  const metadata = (origin: string) => ({
    issuer: origin,
    token_endpoint: `${origin}${TOKEN_PATH}`,
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    grant_types_supported: ['client_credentials'],
    response_types_supported: [],
    scopes_supported: [TOKEN_SCOPE],
  });
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    api.get(path, (c) => c.json(metadata(new URL(c.req.url).origin), 200, { 'Cache-Control': 'no-store' }));
  }
  return api;
}
