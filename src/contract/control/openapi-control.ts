/**
 * The control-plane OpenAPI document (`/__sandbox/openapi.json`, docs/control-plane.md),
 * generated from the declarations the control plane binds its handlers to (control-routes.ts,
 * control-routes-isolation.ts) and the same zod schemas that validate its requests: each
 * operation with the admin token, the errors every route may answer, and the document's info.
 */
import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { headerComponents } from '../api/headers.js';
import { CONTACT, finish, LICENSE, servers, VERSION } from '../api/openapi.js';
import { header, type OpenApiDocument } from '../api/openapi-parts.js';
import { accessOf, PARTNER_HEADER, PARTNER_HEADER_OBJECT } from './access.js';
import { type ControlRoute, err } from './control-routes.js';
import { CONTROL_ROUTES, type ControlOperationId } from './control-routes-all.js';

type Responses = Record<string, { headers?: Record<string, unknown> }>;

/**
 * A route a partner's token opens names the partner in X-Sandbox-Partner on each answer (the
 * 401 excepted: no partner is known then), as http/control-access.ts sets it.
 */
function namingPartner<R extends Responses>(responses: R): R {
  const named = { $ref: '#/components/headers/XSandboxPartner' };
  return Object.fromEntries(
    Object.entries(responses).map(([status, answer]) => [
      status,
      status === '401' ? answer : { ...answer, headers: { ...answer.headers, [PARTNER_HEADER]: named } },
    ]),
  ) as R;
}

export function controlPlaneDocument(origin: string) {
  const doc = new OpenAPIHono();
  const r = doc.openAPIRegistry;
  registerComponents(r);
  const security = [{ adminToken: [] }];
  const partnerSecurity: Record<string, string[]>[] = [{ adminToken: [] }, { partnerToken: [] }];
  const tags = ['Control plane'];
  const responsesOf = routeResponses();
  for (const p of CONTROL_ROUTES) {
    const { operationId, access: _access, tool: _tool, ...declared } = p;
    const access = accessOf(p);
    r.registerPath({
      operationId, // first, as the document always listed it
      ...declared,
      tags,
      // Health is open even when SANDBOX_ADMIN_TOKEN is set: an empty requirement list.
      security: access === 'open' ? [] : access === 'admin' ? security : partnerSecurity,
      responses:
        typeof access === 'object'
          ? (namingPartner(responsesOf(p) as Responses) as RouteConfig['responses'])
          : responsesOf(p),
    });
  }
  const out = doc.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Partnership sandbox control plane',
      version: VERSION,
      description: 'docs/control-plane.md: plain JSON in and out; errors use the partnership error envelope.',
      contact: CONTACT,
      license: LICENSE,
    },
    servers: servers(origin),
    tags: [{ name: 'Control plane', description: 'The sandbox control interface (docs/control-plane.md).' }],
  }) as OpenApiDocument;
  return finish(out);
}

/** The document's security schemes and the headers its answers name. */
function registerComponents(r: OpenAPIHono['openAPIRegistry']): void {
  r.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'SANDBOX_ADMIN_TOKEN, when set (every route but health then requires it).',
  });
  r.registerComponent('securitySchemes', 'partnerToken', {
    type: 'http',
    scheme: 'bearer',
    description:
      "A partner's access token (POST /oauth/token), when SANDBOX_ADMIN_TOKEN is set: the routes that list it act for that partner alone (docs/hosting.md); the others answer 403.",
  });
  r.registerComponent('headers', 'XRequestId', headerComponents.XRequestId as never);
  r.registerComponent('headers', 'Allow', headerComponents.Allow as never);
  r.registerComponent('headers', 'RetryAfter', headerComponents.RetryAfter as never);
  r.registerComponent('headers', 'XSandboxPartner', PARTNER_HEADER_OBJECT as never);
  r.registerComponent('headers', 'WWWAuthenticate', {
    description: 'The Bearer challenge of the control plane.',
    required: true,
    schema: { type: 'string' },
    example: 'Bearer realm="sandbox-control-plane"',
  });
}

/** Each route's answers: its declared ones and the errors every route of its kind may answer. */
function routeResponses(): (p: ControlRoute) => RouteConfig['responses'] {
  const common = {
    401: {
      ...err(
        "SANDBOX_ADMIN_TOKEN is set and neither it nor a partner's valid access token was sent (an expired token: token_expired).",
      ),
      headers: { 'X-Request-Id': header('XRequestId'), 'WWW-Authenticate': header('WWWAuthenticate') },
    },
    403: {
      ...err(
        "A cross-site browser request (by its Origin or Sec-Fetch-Site), or a partner's token on a route that does not take it: refused.",
      ),
      headers: { 'X-Request-Id': header('XRequestId') },
    },
    405: {
      ...err('The path does not serve this method: Allow names the ones it serves.'),
      headers: { 'X-Request-Id': header('XRequestId'), Allow: header('Allow') },
    },
  };
  // Every route that reads a JSON body refuses another media type and an oversized body.
  const bodyErrors = {
    413: err('Body larger than the limit (SANDBOX_BODY_LIMIT_BYTES).'),
    415: err('Not application/json, a charset other than UTF-8, or a compressed body (Content-Encoding).'),
  };
  // A route that declares no query takes none: a parameter is refused naming it (http/bind.ts).
  // Health excepted: a probe or a wait loop that adds a cache-buster must still see it up.
  const queryErrors = {
    400: err('A query parameter this operation does not take (it takes none): 400 naming it, nothing done.'),
  };
  // Every route that writes to the store may find it unable to take the write (the journal,
  // armed scenarios and dropping a snapshot live in memory and never do).
  const inMemoryOnly = new Set<string>([
    'clearRequests',
    'countRequests',
    'armScenario',
    'disarmScenarios',
    'deleteSnapshot',
  ] satisfies ControlOperationId[]);
  const writesStore = (p: ControlRoute) => p.method !== 'get' && !inMemoryOnly.has(p.operationId);
  const storeErrors = {
    503: err(
      "store_not_writable: the sandbox's store (SANDBOX_DB) cannot take writes (a full disk, a read-only store, an I/O error); nothing was written.",
    ),
  };
  // The control-plane writes that add to a partner's rows count in its room (http/room.ts).
  const addsToRoom = new Set<string>([
    'addVariant',
    'seedVerticalMappings',
    'pactStates',
  ] satisfies ControlOperationId[]);
  const roomForbidden = {
    403: {
      ...common[403],
      description: `${common[403].description} Or partner_storage_full: the write would take the partner past what one partner may hold (docs/guarantees-and-limits.md); nothing was written.`,
    },
  };
  return (p) => {
    const isHealth = p.operationId === 'health';
    return {
      ...(p.request?.query || isHealth ? {} : queryErrors),
      ...(p.request?.body ? bodyErrors : {}),
      ...(writesStore(p) ? storeErrors : {}),
      ...p.responses,
      ...(isHealth ? { 405: common[405] } : common),
      ...(addsToRoom.has(p.operationId) ? roomForbidden : {}),
    };
  };
}
