/**
 * The OpenAPI documents, generated from the same zod schemas that validate requests:
 *
 * - the sandbox document (`/openapi.sandbox.json`): the partnership API (the seven
 *   endpoints and the token endpoint) with the sandbox's own additions: the
 *   X-Sandbox-Scenario parameter and the X-Sandbox-* response headers;
 * - the partner document (`/openapi.json`): the same without any sandbox-only item, so
 *   clients generated from it are production clients;
 * - the partner document rendered as OpenAPI 3.0.3 (`/openapi-3.0.json`), by code
 *   (openapi-30.ts), for generators that read no 3.1;
 * - the control plane (`/__sandbox/openapi.json`), in openapi-control.ts.
 *
 * Generated once per origin, on first request.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { SANDBOX_ONLY_CODES, SANDBOX_ONLY_SCHEMAS } from './envelope.js';
import { recordOf } from './error-records.js';
import { headerComponents, SANDBOX_HEADER_COMPONENTS, SANDBOX_PARAMETER } from './headers.js';
import { tokenRoute } from './oauth.js';
import { toOpenApi30 } from './openapi-30.js';
import type { OpenApiDocument } from './openapi-parts.js';

export const VERSION = '1.0.0';

/**
 * The package's license (LICENSE, package.json), by its SPDX identifier as OpenAPI 3.1 asks
 * (swagger-parser and Redocly require `identifier` or `url`). The 3.0.3 rendering has no
 * `identifier` field: it names the license's SPDX page as its url (openapi-30.ts).
 */
export const LICENSE = { name: 'Apache-2.0', identifier: 'Apache-2.0' };
export const CONTACT = { name: 'Partnership sandbox maintainers' };

/**
 * `{base_url}` as in the spec's conventions table, its default the origin the document
 * was fetched from: generators and "Try it out" use the default, a partner can point the
 * same document at its own sandbox.
 */
export const servers = (origin: string) => [
  {
    url: '{base_url}',
    description:
      'The sandbox that served this document; base_url is the base address of the API (spec: {base_url}).',
    // No description on the variable: swagger-parser's 3.1 schema refuses one there
    // ("must NOT have unevaluated properties"), so the server's description says it.
    variables: { base_url: { default: origin } },
  },
];

/** Adds the token endpoint, the security schemes and the response headers to the partnership app's registry. */
export function registerPartnershipExtras(app: Pick<OpenAPIHono, 'openAPIRegistry'>): void {
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An access token from POST /oauth/token (client credentials).',
  });
  registry.registerComponent('securitySchemes', 'clientSecretBasic', {
    type: 'http',
    scheme: 'basic',
    description:
      'client_secret_basic (RFC 6749 §2.3.1): client_id and client_secret, each form-urlencoded, as HTTP Basic credentials. The alternative, client_secret_post, sends them as client_id and client_secret in the body (the empty security requirement of POST /oauth/token).',
  });
  for (const [name, component] of Object.entries(headerComponents)) {
    registry.registerComponent('headers', name, component as never);
  }
  registry.registerPath(tokenRoute);
}

const INFO_DESCRIPTION =
  'The partner-facing Partnership Accounts API. Every response of the seven partnership endpoints is the envelope {status, error, message, request_id, data} (plus dry_run: true when dry_run=true was sent); error is {code, details?}, one schema per code. A query parameter an operation does not list, and a body field its schema does not list, is a 400 validation_error naming it.';

/**
 * The partnership documents: the sandbox one (generated), the partner one (the sandbox
 * one without its sandbox-only parameter and headers) and the partner one in OpenAPI 3.0.3.
 */
export function partnershipDocuments(app: Pick<OpenAPIHono, 'getOpenAPI31Document'>, origin: string) {
  const generated = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Partnership Accounts API (sandbox)',
      version: VERSION,
      description: `${INFO_DESCRIPTION} This is the sandbox document: it adds the sandbox-only X-Sandbox-Scenario parameter (fault injection, see GET /__sandbox/scenarios) and the X-Sandbox-Warning and X-Sandbox-Scenario-Applied response headers. The partner document without them: /openapi.json (OpenAPI 3.0.3: /openapi-3.0.json). Control plane: /__sandbox/openapi.json.`,
      contact: CONTACT,
      license: LICENSE,
    },
    servers: servers(origin),
    tags: [
      {
        name: 'Authentication',
        description: 'Token exchange (the sandbox contract; the spec leaves it open).',
      },
      { name: 'Partnership', description: 'The seven endpoints of the spec.' },
    ],
  }) as OpenApiDocument;
  const sandbox = finish(generated);
  const partner = withoutSandboxItems(sandbox);
  return { sandbox, partner, partner30: toOpenApi30(partner) };
}

/** What the generator leaves to tidy: the empty webhooks object. */
export function finish(doc: OpenApiDocument): OpenApiDocument {
  const out = structuredClone(doc);
  if (out.webhooks && Object.keys(out.webhooks).length === 0) delete out.webhooks;
  for (const [kind, map] of Object.entries(out.components ?? {})) {
    if (map && typeof map === 'object' && Object.keys(map).length === 0) delete out.components[kind];
  }
  return out;
}

/**
 * The partner document: no X-Sandbox-Scenario parameter, no X-Sandbox-* header, no error only
 * the sandbox answers, partner wording.
 */
export function withoutSandboxItems(doc: OpenApiDocument): OpenApiDocument {
  const out = structuredClone(doc);
  out.info.title = 'Partnership Accounts API';
  out.info.description = `${INFO_DESCRIPTION} Served by the sandbox: this document in OpenAPI 3.0.3 is /openapi-3.0.json; the sandbox document (with its fault-injection parameter, headers and sandbox-only errors) is /openapi.sandbox.json.`;
  const sandboxSchemas = new Set(SANDBOX_ONLY_SCHEMAS.map((n) => `#/components/schemas/${n}`));
  const sandboxNotes = SANDBOX_ONLY_CODES.flatMap((code) => recordOf(code).note ?? []);
  const sandboxRefs = new Set(SANDBOX_HEADER_COMPONENTS.map((n) => `#/components/headers/${n}`));
  for (const item of Object.values(out.paths ?? {}) as OpenApiDocument[]) {
    for (const op of Object.values(item) as OpenApiDocument[]) {
      if (Array.isArray(op.parameters)) {
        op.parameters = op.parameters.filter(
          (p: OpenApiDocument) => !(p.in === 'header' && String(p.name).toLowerCase() === SANDBOX_PARAMETER),
        );
      }
      for (const response of Object.values(op.responses ?? {}) as OpenApiDocument[]) {
        for (const [name, h] of Object.entries(response.headers ?? {}) as [string, OpenApiDocument][]) {
          if (sandboxRefs.has(h.$ref)) delete response.headers[name];
        }
        // The error codes only the sandbox answers: their notes, then their schemas.
        response.description = sandboxNotes.reduce(
          (text, note) => text.replace(note, ''),
          String(response.description),
        );
        for (const media of Object.values(response.content ?? {}) as OpenApiDocument[]) {
          const members = media.schema?.anyOf as OpenApiDocument[] | undefined;
          if (!members) continue;
          const kept = members.filter((m) => !sandboxSchemas.has(m.$ref));
          media.schema = kept.length === 1 ? kept[0] : { ...media.schema, anyOf: kept };
        }
      }
    }
  }
  for (const name of SANDBOX_HEADER_COMPONENTS) delete out.components?.headers?.[name];
  for (const name of SANDBOX_ONLY_SCHEMAS) delete out.components?.schemas?.[name];
  return out;
}
