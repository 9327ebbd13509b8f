/**
 * A Pact V4 file from a partner's calls (docs/contracts.md): one interaction per distinct call
 * (method, path shape, dry run, status, scenario), the first of each kept, with the provider
 * states (contract/control/pact.ts) that reproduce it on a fresh sandbox, identifiers and
 * timestamps as matching rules (matchers.ts), and no secret: the client secret and the bearer
 * token are placeholders that the states `a partner` makes valid.
 */
import { createHash } from 'node:crypto';
import type { PactStateName } from '../contract/control/pact.js';
import { isSecretKey } from '../domain/secret-names.js';
import { pathIdentifiers, routeOf, TOKEN_PATH } from '../drift/api.js';
import type { Exchange } from './exchange.js';
import { bodyRules, headerRule, type Rules } from './matchers.js';

/** What stands for the secret and the token in an exported pact: the states make them valid. */
export const PLACEHOLDER_SECRET = 'pact-placeholder-secret';
export const PLACEHOLDER_TOKEN = 'pact-placeholder-token';
/** A token no state sets up: a recorded 401 for a token the service did not know. */
export const UNKNOWN_TOKEN = 'pact-unknown-token';
/** A secret no state sets up: a recorded 401 invalid_client. */
export const WRONG_SECRET = 'pact-wrong-secret';
/** The hash `an account` holds when the recorded write was refused as stale (409). */
export const CURRENT_HASH = 'pact-current-content-hash';
export const DEFAULT_PROVIDER = 'partnership-accounts-api';

export interface PactOptions {
  consumer: string;
  provider?: string;
  /** The partner's parent account, when the caller knows it (else read from the calls). */
  parent?: string;
  /** The partner's client_id, when the caller knows it (else read from the token calls). */
  clientId?: string;
  /** Whether the partner's taxonomy is unseeded (else read from the calls). */
  unseeded?: boolean;
  /** Written into the metadata. */
  sandboxVersion?: string;
}

interface State {
  name: PactStateName;
  params: Record<string, unknown>;
}

/** Scenarios that change nothing of an answer: neither a state nor part of what makes a call distinct. */
const NOT_IN_ANSWER = new Set(['latency', 'connection-reset']);

/** A provider-state injected value: `${name}`, filled from the state's answer by the verifier. */
const injected = (name: string) => `\${${name}}`;

/** A body with every secret-named field (the journal's and recordings' rule) a placeholder, at any depth: a browser's HAR holds them in clear. */
function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      isSecretKey(k) ? (k === 'client_secret' ? PLACEHOLDER_SECRET : PLACEHOLDER_TOKEN) : scrub(v),
    ]),
  );
}

function parseJson(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const errorCode = (body: unknown) =>
  (body as { error?: { code?: unknown } | string | null } | undefined)?.error &&
  typeof (body as { error: unknown }).error === 'object'
    ? String((body as { error: { code?: unknown } }).error.code)
    : typeof (body as { error?: unknown } | undefined)?.error === 'string'
      ? String((body as { error: string }).error)
      : undefined;

/** The path with its identifiers named: `/v1/partnership/accounts/{account_id}/status`. */
export function pathShape(path: string): string {
  return routeOf(path) ?? path;
}

/** The scenarios a call met that shape its answer, as `[name, value]`, in a stable order. */
function scenariosOf(x: Exchange, body: unknown): [string, string | undefined][] {
  const found = new Map<string, string | undefined>();
  for (const label of x.scenarios) {
    const [name, value] = label.split('=') as [string, string | undefined];
    if (!NOT_IN_ANSWER.has(name)) found.set(name, value);
  }
  const code = errorCode(body);
  // A propagation window a register drill opened answers without a scenario on the call itself.
  if (code === 'auth_propagation_pending' && x.status === 401) found.set('auth-propagation', undefined);
  // An expired token (the clock moved) is drilled by its scenario on a fresh sandbox.
  if (code === 'token_expired') found.set('token-expired', undefined);
  return [...found].sort(([a], [b]) => a.localeCompare(b));
}

/** Why a call is not made an interaction, or undefined when it is. */
function skipReason(x: Exchange, body: unknown): string | undefined {
  if (x.status === 0) return 'no answer (a reset connection)';
  if (x.truncated) return 'the answer was cut in the journal';
  if (body === undefined) return 'the answer is not JSON';
  if (x.scenarios.some((s) => s.split('=')[0] === 'additive-changes'))
    return 'an answer reshaped by additive-changes (fields no contract holds)';
  if (errorCode(body) === 'auth_propagation_pending' && x.status === 403)
    return 'a propagation 403 (the auth-propagation drill answers the 401, which stands for both)';
  return undefined;
}

export interface PactBuild {
  pact: Record<string, unknown> & { interactions: Record<string, unknown>[] };
  skipped: { call: string; reason: string }[];
}

/** The pact of these calls. */
export function buildPact(exchanges: readonly Exchange[], o: PactOptions): PactBuild {
  const parent = o.parent ?? exchanges.find((x) => x.parent)?.parent ?? 'pa_demo_platform';
  const clientId = o.clientId ?? clientIdOf(exchanges) ?? 'pact-client';
  const unseeded = o.unseeded ?? looksUnseeded(exchanges);
  const seen = new Set<string>();
  const interactions: Record<string, unknown>[] = [];
  const skipped: PactBuild['skipped'] = [];
  for (const x of exchanges) {
    const body = scrub(parseJson(x.responseBody));
    const call = `${x.method} ${x.path} -> ${x.status}`;
    const reason = skipReason(x, body);
    if (reason) {
      skipped.push({ call, reason });
      continue;
    }
    const scenarios = scenariosOf(x, body);
    const dryRun = x.query.dry_run === 'true';
    const shape = pathShape(x.path);
    const key = [x.method, shape, dryRun, x.status, scenarios.map(([n]) => n).join('+')].join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    interactions.push(
      interaction(x, body, { parent, clientId, unseeded, scenarios, dryRun, shape, code: errorCode(body) }),
    );
  }
  const pact = {
    consumer: { name: o.consumer },
    provider: { name: o.provider ?? DEFAULT_PROVIDER },
    interactions,
    metadata: {
      pactSpecification: { version: '4.0' },
      'partnership-sandbox': {
        ...(o.sandboxVersion ? { version: o.sandboxVersion } : {}),
        skipped,
      },
    },
  };
  return { pact, skipped };
}

function clientIdOf(exchanges: readonly Exchange[]): string | undefined {
  for (const x of exchanges) {
    if (x.path !== TOKEN_PATH || !x.body) continue;
    const form = new URLSearchParams(x.body).get('client_id');
    const json = (parseJson(x.body) as { client_id?: unknown } | undefined)?.client_id;
    const id = typeof json === 'string' ? json : form;
    if (id && !id.startsWith('[')) return id;
  }
  return undefined;
}

/** The partner's mapping answered empty, or a write said it is not seeded, without the drill. */
function looksUnseeded(exchanges: readonly Exchange[]): boolean {
  return exchanges.some((x) => {
    if (x.scenarios.some((s) => s.startsWith('unseeded-mappings'))) return false;
    const body = parseJson(x.responseBody) as { data?: { vertical_mappings?: unknown[] } } | undefined;
    return (
      errorCode(body) === 'vertical_mapping_not_seeded' ||
      (x.status === 200 &&
        Array.isArray(body?.data?.vertical_mappings) &&
        body.data.vertical_mappings.length === 0)
    );
  });
}

interface Context {
  parent: string;
  clientId: string;
  unseeded: boolean;
  scenarios: [string, string | undefined][];
  dryRun: boolean;
  shape: string;
  code: string | undefined;
}

function interaction(x: Exchange, body: unknown, ctx: Context): Record<string, unknown> {
  const token = x.path === TOKEN_PATH;
  const states = token ? tokenStates(x, ctx) : callStates(x, body, ctx);
  const request = token ? tokenRequest(x, ctx) : callRequest(x, ctx);
  const scenario = ctx.scenarios.map(([n, v]) => (v === undefined ? n : `${n}=${v}`)).join(', ');
  const description = `${x.method} ${ctx.shape}${ctx.dryRun ? ' (dry run)' : ''} -> ${x.status}${
    ctx.code ? ` ${ctx.code}` : ''
  }${scenario ? ` with ${scenario}` : ''}`;
  const response: Record<string, unknown> = {
    status: x.status,
    headers: responseHeaders(x),
    body: { content: body, contentType: 'application/json', encoded: false },
  };
  const rules = bodyRules(body);
  if (Object.keys(rules).length) response.matchingRules = { body: rules };
  return {
    type: 'Synchronous/HTTP',
    key: createHash('sha256').update(description).digest('hex').slice(0, 16),
    description,
    providerStates: states,
    request,
    response,
    pending: false,
  };
}

function partnerState(ctx: Context, extra: Record<string, unknown>): State {
  return {
    name: 'a partner',
    params: { parent_account_id: ctx.parent, ...extra, ...(ctx.unseeded ? { taxonomy: 'empty' } : {}) },
  };
}

function scenarioStates(ctx: Context, target: Record<string, string>): State[] {
  return ctx.scenarios.map(([scenario, value]) => ({
    name: 'a scenario',
    params: { scenario, ...(value === undefined ? {} : { value }), times: 1, ...target },
  }));
}

function tokenStates(x: Exchange, ctx: Context): State[] {
  const credentials =
    x.status === 401 && ctx.code === 'invalid_client' && !sentCredentials(x)
      ? {}
      : {
          client_id: ctx.clientId,
          client_secret: PLACEHOLDER_SECRET,
        };
  return [partnerState(ctx, credentials), ...scenarioStates(ctx, { parent_account_id: ctx.parent })];
}

const sentCredentials = (x: Exchange) =>
  /^basic /i.test(x.headers.authorization ?? '') || /client_secret/.test(x.body ?? '');

function callStates(x: Exchange, body: unknown, ctx: Context): State[] {
  const states: State[] = [];
  const unknownToken = x.status === 401 && ctx.code === 'unauthorized';
  states.push(
    partnerState(ctx, x.headers.authorization && !unknownToken ? { access_token: PLACEHOLDER_TOKEN } : {}),
  );
  const { account } = pathIdentifiers(x.path);
  const exists =
    account !== undefined &&
    ctx.code !== 'account_not_found' &&
    !(x.status === 400 && ctx.code === 'validation_error' && /account_id/.test(JSON.stringify(body)));
  if (account !== undefined && exists) {
    states.push({
      name: 'an account',
      params: { account_id: account, parent_account_id: ctx.parent, ...accountFacts(x, body, ctx) },
    });
  }
  states.push(
    ...scenarioStates(
      ctx,
      account !== undefined && exists ? { account_id: account } : { parent_account_id: ctx.parent },
    ),
  );
  return states;
}

/** What the account must hold for the recorded answer: its status, its current content hash. */
function accountFacts(x: Exchange, body: unknown, ctx: Context): Record<string, string> {
  const data = (body as { data?: { status?: unknown } } | undefined)?.data;
  if (ctx.shape.endsWith('/status')) {
    if (x.method === 'GET' && typeof data?.status === 'string') return { status: data.status };
    const asked = (parseJson(x.body) as { status?: unknown } | undefined)?.status;
    if (data?.status === 'mixed' && (asked === 'active' || asked === 'paused'))
      return { status: asked === 'active' ? 'paused' : 'active' };
    return {};
  }
  if (ctx.shape.endsWith('/marketplacecontrolslists') && x.method === 'PUT') {
    const sent = (parseJson(x.body) as { contentHash?: unknown } | undefined)?.contentHash;
    const stale = x.status === 409 && !ctx.scenarios.some(([n]) => n === 'stale-content-hash');
    if (stale) return { content_hash: CURRENT_HASH };
    if (typeof sent === 'string' && /^[\x21-\x7e]{1,512}$/.test(sent)) return { content_hash: sent };
  }
  return {};
}

/** The request headers a pact keeps: the partner's own, credentials as placeholders. */
function callRequest(x: Exchange, ctx: Context): Record<string, unknown> {
  const headers: Record<string, string[]> = {};
  const generators: Record<string, unknown> = {};
  const rules: Record<string, Rules> = {};
  const unknownToken = x.status === 401 && ctx.code === 'unauthorized';
  if (x.headers.authorization) {
    headers.Authorization = [`Bearer ${unknownToken ? UNKNOWN_TOKEN : PLACEHOLDER_TOKEN}`];
    if (!unknownToken) {
      generators.header = {
        Authorization: {
          type: 'ProviderState',
          expression: `Bearer ${injected('access_token')}`,
          dataType: 'STRING',
        },
      };
      rules.header = { Authorization: headerRule('^Bearer \\S+$') };
    }
  }
  if (x.headers['x-platform-parent-account-id'] !== undefined)
    headers['X-Platform-Parent-Account-Id'] = [x.headers['x-platform-parent-account-id']];
  if (x.headers['idempotency-key'] !== undefined) headers['Idempotency-Key'] = [x.headers['idempotency-key']];
  const request: Record<string, unknown> = { method: x.method, path: x.path };
  const { layout } = pathIdentifiers(x.path);
  // A layout ID is issued by register: the state `an account` answers its first as layout_id.
  if (layout !== undefined && ctx.code !== 'account_not_found')
    generators.path = {
      type: 'ProviderState',
      expression: x.path.replace(/[^/]+$/, injected('layout_id')),
      dataType: 'STRING',
    };
  if (Object.keys(x.query).length)
    request.query = Object.fromEntries(Object.entries(x.query).map(([k, v]) => [k, [v]]));
  const json = parseJson(x.body);
  if (x.body !== null && x.body !== '') {
    headers['Content-Type'] = [x.headers['content-type'] ?? 'application/json'];
    request.body =
      json === undefined
        ? { content: x.body, contentType: x.headers['content-type'] ?? 'text/plain', encoded: false }
        : { content: scrub(json), contentType: 'application/json', encoded: false };
  }
  request.headers = headers;
  if (Object.keys(generators).length) request.generators = generators;
  if (Object.keys(rules).length) request.matchingRules = rules;
  return request;
}

/**
 * A token call: the grant as sent, the client's credentials as the placeholders `a partner`
 * sets. Its body is written as JSON, which the token endpoint takes as it takes a form: Pact
 * JS's verifier proxy re-encodes a form body as JSON and keeps the form's length, so a form
 * body never reaches the provider whole there.
 */
function tokenRequest(x: Exchange, ctx: Context): Record<string, unknown> {
  const secret = x.status === 401 && ctx.code === 'invalid_client' ? WRONG_SECRET : PLACEHOLDER_SECRET;
  const headers: Record<string, string[]> = { 'Content-Type': ['application/json'] };
  const json = parseJson(x.body);
  const fields =
    json && typeof json === 'object'
      ? new URLSearchParams(Object.entries(json).map(([k, v]): [string, string] => [k, String(v)]))
      : new URLSearchParams(x.body ?? '');
  const out: Record<string, string> = {};
  for (const name of ['grant_type', 'scope']) {
    const value = fields.get(name);
    if (value !== null) out[name] = value;
  }
  if (/^basic /i.test(x.headers.authorization ?? '')) {
    const pair = `${encodeURIComponent(ctx.clientId)}:${encodeURIComponent(secret)}`;
    headers.Authorization = [`Basic ${Buffer.from(pair).toString('base64')}`];
  } else if (fields.has('client_id') || fields.has('client_secret')) {
    out.client_id = ctx.clientId;
    out.client_secret = secret;
  }
  return {
    method: 'POST',
    path: TOKEN_PATH,
    headers,
    body: { content: out, contentType: 'application/json', encoded: false },
  };
}

/** The answer headers a pact checks: the media type, and those a client acts on. */
function responseHeaders(x: Exchange): Record<string, string[]> {
  const out: Record<string, string[]> = { 'Content-Type': ['application/json'] };
  for (const [name, spelled] of [
    ['retry-after', 'Retry-After'],
    ['idempotent-replayed', 'Idempotent-Replayed'],
  ] as const) {
    const value = x.responseHeaders[name];
    if (value !== undefined) out[spelled] = [value];
  }
  return out;
}
