/**
 * The served OpenAPI documents: valid OpenAPI 3.1 (checked by an independent validator),
 * generated from the same schemas, listing every endpoint, header and error row; the
 * partner document free of sandbox-only items, the sandbox document with them; error
 * codes typed per response, response headers declared, names fit for code generators.
 */
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  CONTROL_OPERATIONS_FILE,
  DEFAULT_CHAOS_FILE,
  renderControlOperations,
  renderDefaultChaos,
} from '../../scripts/generate-control-operations.js';
import { ORIGINS_KEPT } from '../../src/api/docs.js';
import { createApp } from '../../src/app.js';
import { BoundedCache } from '../../src/base/bounded-cache.js';
import { CONTROL_OPERATIONS } from '../../src/client/control-operations.js';
import { recordOf } from '../../src/contract/api/error-records.js';
import { errorCodes } from '../../src/contract/api/errors.js';
import { DOMAIN_PATTERN, domainProblem, TEXT_PATTERN, textProblem } from '../../src/contract/api/fields.js';
import { operations as declared } from '../../src/contract/api/operations.js';
import { CONTROL_ROUTES } from '../../src/contract/control/control-routes-all.js';
import { createSandbox } from '../../src/state/index.js';
import { createHarness, DEMO, expectErrorEnvelope, MAPPINGS, testConfig } from '../helpers/harness.js';

/** What the documents list: every declared partnership operation (by path, its methods) and the token endpoint. */
const PARTNERSHIP_PATHS: Record<string, string[]> = { '/oauth/token': ['post'] };
for (const { route } of Object.values(declared)) {
  PARTNERSHIP_PATHS[route.path] = [...(PARTNERSHIP_PATHS[route.path] ?? []), route.method].sort();
}
const CONTROLS_PATH = declared.putControls.route.path;
const STATUS_PATH = declared.putStatus.route.path;
const REGISTER_PATH = declared.registerAccount.route.path;
const MAPPINGS_PATH = declared.listVerticalMappings.route.path;

// biome-ignore lint/suspicious/noExplicitAny: documents are asserted field by field
type Doc = any;

async function documents() {
  const h = createHarness();
  const partnership: Doc = (await h.request('GET', '/openapi.json')).body;
  const sandbox: Doc = (await h.request('GET', '/openapi.sandbox.json')).body;
  const control: Doc = (await h.request('GET', '/__sandbox/openapi.json')).body;
  return { h, partnership, sandbox, control };
}

/** Every operation of a document as [path, method, operation]. */
const operations = (doc: Doc): [string, string, Doc][] =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as Doc).map(([method, op]) => [path, method, op] as [string, string, Doc]),
  );

/** The header names declared on a response, resolved through components.headers. */
const headerNames = (response: Doc) => Object.keys(response.headers ?? {}).sort();
const resolveHeader = (doc: Doc, h: Doc) =>
  h.$ref ? doc.components.headers[h.$ref.replace('#/components/headers/', '')] : h;
/** The error codes an error response can carry (its envelopes' error.code enums). */
function codesOf(doc: Doc, response: Doc): string[] {
  const schema = response.content['application/json'].schema;
  const members: Doc[] = schema.anyOf ?? [schema];
  return members.map((m) => {
    const envelope = doc.components.schemas[m.$ref.replace('#/components/schemas/', '')];
    const error = doc.components.schemas[envelope.properties.error.$ref.replace('#/components/schemas/', '')];
    return error.properties.code.enum[0];
  });
}

describe('GET /openapi.json (the partner document)', () => {
  it('is a valid OpenAPI 3.1 document (independent validator), and so is the sandbox document', async () => {
    const { partnership, sandbox } = await documents();
    for (const doc of [partnership, sandbox]) {
      expect(doc.openapi).toBe('3.1.0');
      const result = await new Validator().validate(doc);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    }
  });

  it('lists the seven partnership endpoints and the token endpoint, and nothing else; so does the sandbox document', async () => {
    const { partnership, sandbox } = await documents();
    for (const doc of [partnership, sandbox]) {
      const listed = Object.fromEntries(
        Object.entries(doc.paths).map(([p, ops]) => [p, Object.keys(ops as object).sort()]),
      );
      expect(listed).toEqual(PARTNERSHIP_PATHS);
    }
    expect(Object.keys(declared)).toHaveLength(7);
  });

  it('documents the headers: parent account (required on writes), Idempotency-Key, dry_run; X-Sandbox-Scenario only in the sandbox document', async () => {
    const { partnership, sandbox } = await documents();
    const params = (doc: Doc, path: string, method: string) =>
      Object.fromEntries(
        (doc.paths[path][method].parameters as { name: string; in: string; required?: boolean }[]).map(
          (p) => [`${p.in}:${p.name.toLowerCase()}`, p.required === true],
        ),
      );
    const put = params(partnership, CONTROLS_PATH, 'put');
    expect(put).toEqual({
      'header:x-platform-parent-account-id': true,
      'header:idempotency-key': true,
      'query:dry_run': false,
      'path:account_id': true,
    });
    expect(params(sandbox, CONTROLS_PATH, 'put')).toEqual({ ...put, 'header:x-sandbox-scenario': false });
    const register = params(partnership, REGISTER_PATH, 'post');
    expect(register['header:x-platform-parent-account-id']).toBe(true);
    expect(register['header:idempotency-key']).toBeUndefined();
    const read = params(partnership, STATUS_PATH, 'get');
    expect(read['header:x-platform-parent-account-id']).toBe(false);
  });

  it('the partner document has no sandbox-only item: no X-Sandbox-* parameter or header anywhere, no error only the sandbox answers', async () => {
    const { h, partnership, sandbox } = await documents();
    const partner30 = (await h.request('GET', '/openapi-3.0.json')).body;
    for (const doc of [partnership, partner30]) {
      const text = JSON.stringify(doc);
      expect(text).not.toMatch(/x-sandbox-scenario"|X-Sandbox-Warning|X-Sandbox-Scenario-Applied|XSandbox/i);
      // unknown_scenario (a scenario header) and store_not_writable (the sandbox's own store)
      expect(text).not.toMatch(
        /unknown_scenario|store_not_writable|UnknownScenario|StoreNotWritable|SANDBOX_|sandbox only|sandbox scenario/i,
      );
    }
    // The sandbox document keeps them, on the same responses.
    const sandboxText = JSON.stringify(sandbox);
    for (const name of ['UnknownScenarioEnvelope', 'StoreNotWritableEnvelope'])
      expect(sandboxText).toContain(name);
    const badRequest = (doc: Doc) => doc.paths['/v1/partnership/vertical-mappings'].get.responses['400'];
    expect(JSON.stringify(badRequest(sandbox))).toContain('UnknownScenarioEnvelope');
    expect(JSON.stringify(badRequest(partnership))).toContain('ValidationErrorEnvelope');
    for (const [path, method, op] of operations(sandbox)) {
      if (path === '/oauth/token') continue;
      expect(
        op.parameters.some((p: Doc) => p.name === 'x-sandbox-scenario'),
        `${method} ${path}`,
      ).toBe(true);
      for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
        expect(headerNames(response), `${method} ${path} ${status}`).toEqual(
          expect.arrayContaining(['X-Sandbox-Scenario-Applied', 'X-Sandbox-Warning']),
        );
      }
    }
  });

  it('carries the spec enums and lengths from the schemas', async () => {
    const { partnership } = await documents();
    const s = partnership.components.schemas;
    expect(s.PageRequest.properties.surface.enum).toEqual(['confirmation', 'tracking', 'returns']);
    expect(s.PageRequest.properties.layout_type.enum).toEqual(['Overlay', 'Embedded']);
    expect(s.RegisterRequest.properties.store_identifier).toMatchObject({ minLength: 3, maxLength: 400 });
    expect(s.StatusWriteRequest.properties.status.enum).toEqual(['active', 'paused']);
    expect(s.StatusData.properties.status.enum).toEqual(['active', 'paused', 'mixed']);
    expect(s.Variant.required.sort()).toEqual(['name', 'page_id', 'status']);
    expect(Object.keys(s.Variant.properties).sort()).toEqual(['name', 'page_id', 'status']);
    expect(
      s.BlockedVerticalWrite.properties.policy.enum ?? [s.BlockedVerticalWrite.properties.policy.const],
    ).toEqual(['Block']);
    expect(s.ControlsWriteRequest.required).toEqual(
      expect.arrayContaining(['blockedVerticals', 'domains', 'contentHash']),
    );
  });

  it('documents the error rows of spec §7 on each route', async () => {
    const { partnership } = await documents();
    const responses = (path: string, method: string) =>
      Object.keys(partnership.paths[path][method].responses);
    expect(responses(REGISTER_PATH, 'post')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '422']),
    );
    expect(responses(CONTROLS_PATH, 'put')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409', '422']),
    );
    expect(responses(STATUS_PATH, 'put')).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '422']),
    );
    expect(responses('/oauth/token', 'post')).toEqual(expect.arrayContaining(['200', '400', '401']));
  });
});

describe('error codes typed per response (issue 14 A5, A7)', () => {
  it('the 409 of the controls PUT is one of two envelopes: content_hash_mismatch or idempotency_key_in_progress, told apart by error.code', async () => {
    const { partnership } = await documents();
    const conflict = partnership.paths[CONTROLS_PATH].put.responses['409'];
    expect(conflict.content['application/json'].schema.anyOf).toEqual([
      { $ref: '#/components/schemas/ContentHashMismatchEnvelope' },
      { $ref: '#/components/schemas/IdempotencyKeyInProgressEnvelope' },
    ]);
    expect(codesOf(partnership, conflict)).toEqual(['content_hash_mismatch', 'idempotency_key_in_progress']);
    expect(conflict.description).toMatch(/re-read/);
    expect(conflict.description).toMatch(/Retry-After/);
    expect(headerNames(conflict)).toContain('Retry-After');
    const s = partnership.components.schemas;
    expect(s.ContentHashMismatchError.description).toMatch(/re-read it \(GET\), re-apply/);
    expect(s.IdempotencyKeyInProgressError.description).toMatch(
      /wait Retry-After seconds and send the same request again with the same key/,
    );
    expect(s.ContentHashMismatchError.properties.details.properties.sent_content_hash.type).toEqual([
      'string',
      'null',
    ]);
    expect(s.IdempotencyKeyInProgressError.properties.details.properties).toHaveProperty(
      'retry_after_seconds',
    );
    // The status PUT and layout PATCH have no content hash: in progress only.
    expect(codesOf(partnership, partnership.paths[STATUS_PATH].put.responses['409'])).toEqual([
      'idempotency_key_in_progress',
    ]);
  });

  it('each error response lists the codes its route can answer', async () => {
    const { partnership, sandbox } = await documents();
    const put = partnership.paths[CONTROLS_PATH].put.responses;
    const badRequest = [
      'malformed_json',
      'malformed_request',
      'missing_idempotency_key',
      'validation_error',
      'vertical_mapping_not_seeded',
      'vertical_not_mapped',
    ];
    expect(codesOf(partnership, put['400']).sort()).toEqual(badRequest.sort());
    // The sandbox document adds the code only a scenario header can cause.
    expect(codesOf(sandbox, sandbox.paths[CONTROLS_PATH].put.responses['400']).sort()).toEqual(
      [...badRequest, 'unknown_scenario'].sort(),
    );
    expect(codesOf(partnership, put['401']).sort()).toEqual([
      'auth_propagation_pending',
      'token_expired',
      'unauthorized',
    ]);
    expect(codesOf(partnership, put['404'])).toEqual(['account_not_found']);
    expect(codesOf(partnership, put['422']).sort()).toEqual([
      'idempotency_key_reused',
      'missing_parent_account_header',
    ]);
    expect(codesOf(partnership, put['429'])).toEqual(['rate_limited']);
    const mappings = partnership.paths[MAPPINGS_PATH].get.responses;
    expect(codesOf(partnership, mappings['403']).sort()).toEqual(['forbidden', 'parent_account_mismatch']);
    expect(mappings).not.toHaveProperty('409');
  });

  it("every code has its own error schema ({code: one-value enum, details typed}), and the control plane's ApiErrorObject discriminates on code", async () => {
    const { partnership, control } = await documents();
    const union = control.components.schemas.ApiErrorObject;
    expect(union.discriminator.propertyName).toBe('code');
    expect(Object.keys(union.discriminator.mapping).sort()).toEqual([...errorCodes].sort());
    for (const code of errorCodes) {
      const name = union.discriminator.mapping[code].replace('#/components/schemas/', '');
      expect(control.components.schemas[name].properties.code.enum).toEqual([code]);
    }
    const s = partnership.components.schemas;
    const detail = (name: string) => Object.keys(s[name].properties.details.properties).sort();
    expect(detail('VerticalNotMappedError')).toEqual(['sub_vertical_id', 'unmapped_pairs', 'vertical_id']);
    expect(s.VerticalNotMappedError.properties.details.properties.unmapped_pairs.items.$ref).toBe(
      '#/components/schemas/UnmappedPair',
    );
    expect(detail('ValidationError')).toEqual(['fields']);
    expect(detail('MethodNotAllowedError')).toEqual(['allowed']);
    expect(detail('RateLimitedError')).toEqual(['retry_after_seconds']);
    expect(detail('MissingIdempotencyKeyError')).toEqual(['header']);
    expect(detail('PartialFailureError')).toEqual(['failed_count', 'variant_count']);
    expect(s.UnauthorizedError.properties.details).toBeUndefined();
  });

  it('documents each code where its record says (error-records.ts): under its statuses, with its note; the partner document leaves out the sandbox-only ones', async () => {
    const { partnership, sandbox } = await documents();
    const documented = (doc: Doc) => {
      const found = new Map<string, { statuses: Set<string>; descriptions: string[] }>();
      for (const [path, item] of Object.entries(doc.paths) as [string, Doc][]) {
        if (path === '/oauth/token') continue; // its own OAuth errors (RFC 6749), no envelope
        for (const op of Object.values(item) as Doc[]) {
          for (const [status, response] of Object.entries(op.responses) as [string, Doc][]) {
            if (status === '200' || !response.content) continue;
            for (const code of codesOf(doc, response)) {
              const entry = found.get(code) ?? { statuses: new Set(), descriptions: [] };
              entry.statuses.add(status);
              entry.descriptions.push(response.description);
              found.set(code, entry);
            }
          }
        }
      }
      return found;
    };
    const inSandbox = documented(sandbox);
    const inPartner = documented(partnership);
    for (const code of errorCodes) {
      const record = recordOf(code);
      if (record.on === undefined) {
        expect(inSandbox.has(code), code).toBe(false);
        continue;
      }
      const statuses = [record.status, ...(record.alsoStatus ?? [])].map(String).sort();
      expect([...inSandbox.get(code)!.statuses].sort(), code).toEqual(statuses);
      if (record.note) {
        for (const d of inSandbox.get(code)!.descriptions) expect(d, code).toContain(record.note.trim());
      }
      expect(inPartner.has(code), code).toBe(!record.sandboxOnly);
    }
    expect(JSON.stringify(partnership)).not.toContain('(sandbox only)');
  });

  it('the error envelope has data: null (type null), and no schema is named like a JS/TS global', async () => {
    const { partnership, sandbox, control } = await documents();
    expect(partnership.components.schemas.ContentHashMismatchEnvelope.properties.data).toEqual({
      type: 'null',
    });
    expect(control.components.schemas.ErrorEnvelope.properties.data).toEqual({ type: 'null' });
    const globals = new Set([
      ...Object.getOwnPropertyNames(globalThis),
      // browser globals that generated clients also meet
      ...['Document', 'Element', 'Node', 'Text', 'Location', 'Range', 'Selection', 'Screen', 'History'],
      ...['Navigator', 'Storage', 'Window', 'Image', 'Option', 'Audio', 'Notification', 'Comment', 'Attr'],
    ]);
    for (const doc of [partnership, sandbox, control]) {
      for (const kind of Object.keys(doc.components)) {
        for (const name of Object.keys(doc.components[kind])) expect(globals.has(name), name).toBe(false);
      }
    }
    expect(globals.has('Error')).toBe(true); // the check itself
  });

  it('no anonymous object schema where a generator needs a name: marketplace_controls_list and the partial-failure error', async () => {
    const { partnership } = await documents();
    const s = partnership.components.schemas;
    expect(s.ControlsData.properties.marketplace_controls_list).toEqual({
      $ref: '#/components/schemas/MarketplaceControlsList',
    });
    expect(s.StatusWriteEnvelope.properties.error.oneOf).toEqual([
      { $ref: '#/components/schemas/PartialFailureError' },
      { type: 'null' },
    ]);
  });
});

describe('response headers (issue 14 A6)', () => {
  it('are reusable components, declared where they occur', async () => {
    const { partnership, sandbox } = await documents();
    expect(Object.keys(sandbox.components.headers).sort()).toEqual(
      [
        'Allow',
        'IdempotentReplayed',
        'RetryAfter',
        'WWWAuthenticate',
        'WWWAuthenticateBasic',
        'XRequestId',
        'XSandboxChaos',
        'XSandboxScenarioApplied',
        'XSandboxWarning',
      ].sort(),
    );
    for (const [path, method, op] of operations(partnership)) {
      const where = `${method} ${path}`;
      for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
        expect(response.headers['X-Request-Id'], `${where} ${status}`).toEqual({
          $ref: '#/components/headers/XRequestId',
        });
      }
      expect(headerNames(op.responses['405']), where).toContain('Allow');
      expect(op.responses['405'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/MethodNotAllowedEnvelope',
      );
      expect(headerNames(op.responses['401']), where).toContain('WWW-Authenticate');
      if (path !== '/oauth/token') expect(headerNames(op.responses['429']), where).toContain('Retry-After');
      const idempotent = (op.parameters ?? []).some((p: Doc) => p.name === 'idempotency-key');
      expect(headerNames(op.responses['200']).includes('Idempotent-Replayed'), where).toBe(idempotent);
    }
    // Integer seconds, declared as the digits that travel (kin-openapi checks raw header text).
    expect(resolveHeader(partnership, { $ref: '#/components/headers/RetryAfter' }).schema).toEqual({
      type: 'string',
      pattern: '^[0-9]+$',
    });
  });

  it('the answers carry them: a 429 Retry-After, a 401 WWW-Authenticate, a 405 Allow (checked against the document by the harness)', async () => {
    const { h } = await documents();
    const partner = await h.client();
    const limited = await partner.get(MAPPINGS, { 'X-Sandbox-Scenario': 'rate-limited=2' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    const anonymous = await h.request('GET', MAPPINGS);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrongMethod = await partner.call('DELETE', MAPPINGS);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('generator friction (issue 14 A7)', () => {
  it('every parameter has a description and an example; the parent examples work against the default fixtures', async () => {
    const { h, partnership } = await documents();
    for (const [path, method, op] of operations(partnership)) {
      for (const p of op.parameters ?? []) {
        expect(p.description, `${method} ${path} ${p.name}`).toBeTruthy();
        expect(p.schema.example ?? p.example, `${method} ${path} ${p.name}`).toBeDefined();
      }
    }
    const get = partnership.paths[MAPPINGS_PATH].get.parameters as Doc[];
    const example = (name: string) => get.find((p) => p.name === name)!.schema.example;
    expect(example('x-platform-parent-account-id')).toBe(DEMO.parent);
    // A tool that sends the examples (Dredd, a Postman import) gets a 200, not a 403.
    const res = await h.request(
      'GET',
      `${MAPPINGS}?parent_account_id=${encodeURIComponent(example('parent_account_id'))}`,
      {
        headers: {
          Authorization: `Bearer ${await h.token()}`,
          'X-Platform-Parent-Account-Id': example('x-platform-parent-account-id'),
        },
      },
    );
    expect(res.status).toBe(200);
  });

  it('POST /oauth/token declares client_secret_basic (HTTP Basic) or client_secret_post (no scheme: the body)', async () => {
    const { partnership } = await documents();
    expect(partnership.paths['/oauth/token'].post.security).toEqual([{ clientSecretBasic: [] }, {}]);
    expect(partnership.components.securitySchemes.clientSecretBasic).toMatchObject({
      type: 'http',
      scheme: 'basic',
    });
    for (const [path, method, op] of operations(partnership)) {
      if (path !== '/oauth/token') expect(op.security, `${method} ${path}`).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('no empty webhooks; the server is {base_url} with the serving origin as its default', async () => {
    const { partnership, control } = await documents();
    for (const doc of [partnership, control]) {
      expect(doc).not.toHaveProperty('webhooks');
      expect(doc.servers).toEqual([
        expect.objectContaining({
          url: '{base_url}',
          variables: { base_url: expect.objectContaining({ default: 'http://localhost' }) },
        }),
      ]);
    }
  });
});

describe('GET /__sandbox/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document of the control plane routes of docs/control-plane.md and docs/parallel-tests.md', async () => {
    const { control } = await documents();
    const result = await new Validator().validate(control);
    expect(result.errors ?? []).toEqual([]);
    // The document lists the declared operations (contract/control/control-routes*.ts), each under its method,
    // and the app serves each of them at that method and path.
    const declared = CONTROL_ROUTES.map((r) => `${r.method} ${r.path}`).sort();
    const listed = Object.entries(control.paths)
      .flatMap(([path, item]) => Object.keys(item as Doc).map((method) => `${method} ${path}`))
      .sort();
    expect(listed).toEqual(declared);
    expect(new Set(CONTROL_ROUTES.map((r) => r.operationId)).size).toBe(CONTROL_ROUTES.length);
    const served = new Set(
      createApp(createSandbox(testConfig())).routes.map((r) => `${r.method.toLowerCase()} ${r.path}`),
    );
    for (const route of CONTROL_ROUTES)
      expect(served, route.operationId).toContain(`${route.method} ${route.getRoutingPath()}`);
    // The client's table of methods and paths is generated from the same declarations.
    expect(readFileSync(CONTROL_OPERATIONS_FILE, 'utf8'), 'run npm run generate').toBe(
      renderControlOperations(CONTROL_ROUTES),
    );
    expect(readFileSync(DEFAULT_CHAOS_FILE, 'utf8'), 'run npm run generate').toBe(renderDefaultChaos());
    expect(Object.keys(CONTROL_OPERATIONS)).toEqual(CONTROL_ROUTES.map((r) => r.operationId));
    const account = control.components.schemas.AccountDetail.properties.last_status_write;
    expect(JSON.stringify(account)).toContain('StatusWriteRecord');
    // The stored rows are typed field by field (the dashboard's account view reads them), not open records.
    const detail = control.components.schemas.AccountDetail.properties;
    for (const [field, schema] of [
      ['account', 'AccountRecord'],
      ['pages', 'PageRecord'],
      ['layouts', 'LayoutRecord'],
      ['controls', 'ControlsRecord'],
    ] as const)
      expect(JSON.stringify(detail[field]), field).toContain(`#/components/schemas/${schema}`);
    expect(control.components.schemas.AccountRecord.required).toContain('auth_ready_at');
    // Every operation that reads a JSON body documents the 413 and 415 it can answer.
    for (const [path, item] of Object.entries(control.paths))
      for (const [method, op] of Object.entries(item as Record<string, Doc>))
        if (op.requestBody)
          expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
            expect.arrayContaining(['413', '415']),
          );
  });

  it('every pattern of the served documents is a regex without flags that its example matches; the journal takes a method in any case', async () => {
    const { partnership, sandbox, control } = await documents();
    const patterns: [string, unknown][] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        const schema = node as Doc;
        if (typeof schema.pattern === 'string') patterns.push([schema.pattern, schema.example]);
        Object.values(schema).forEach(walk);
      }
    };
    for (const doc of [partnership, sandbox, control]) walk(doc);
    expect(patterns.length).toBeGreaterThan(5);
    for (const [pattern, example] of patterns) {
      // A JSON Schema pattern is ECMA-262 with no flags: "^a$/i" would match nothing.
      expect(pattern, pattern).not.toMatch(/\/[dgimsuvy]+$/);
      const re = new RegExp(pattern, 'u');
      if (typeof example === 'string') expect(example, pattern).toMatch(re);
    }
    const query = control.paths['/__sandbox/requests'].get.parameters.find((p: Doc) => p.name === 'method');
    const count =
      control.paths['/__sandbox/requests/count'].post.requestBody.content['application/json'].schema;
    const countSchema = count.$ref ? control.components.schemas[count.$ref.split('/').pop()] : count;
    for (const schema of [query.schema, countSchema.properties.method])
      for (const method of ['PUT', 'put', 'Delete']) expect(method).toMatch(new RegExp(schema.pattern, 'u'));
  });

  it('the patterns the documents state for names, domains and URLs agree with the rules the server applies', () => {
    const samples = [
      'Demo Shop',
      'm-1',
      ' m-1',
      'm-1 ',
      '   ',
      'a\nb',
      'a\u0000b',
      'a\u0085b',
      'Ünïcødé ✓',
      'x',
      'a\tb',
      'shop.example.com',
      'example.com',
      'localhost',
      '-a.com',
      'a-.com',
      '*.example.com',
      'a..com',
      `${'a'.repeat(63)}.com`,
      `${'a'.repeat(64)}.com`,
      'https://shop.example.com',
      'HTTP://x.y/z',
      'ftp://x.y',
      'https://',
      'https:// x',
      'mailto:a@b.com',
      'shop.example.com:8080',
      'xn--bcher-kva.example',
    ];
    const text = new RegExp(TEXT_PATTERN, 'u');
    const domain = new RegExp(DOMAIN_PATTERN, 'u');
    for (const v of samples) {
      expect(text.test(v), JSON.stringify(v)).toBe(textProblem(v) === undefined);
      expect(domain.test(v), JSON.stringify(v)).toBe(domainProblem(v) === undefined);
    }
  });

  it('a control-plane body that is not JSON is the documented 415', async () => {
    const h = createHarness();
    const res = await h.request('POST', '/__sandbox/partners', {
      raw: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expectErrorEnvelope(res, 415, 'unsupported_media_type');
  });
});

describe('GET /docs', () => {
  it('serves the reference page and its assets from the package, with no external URL', async () => {
    const h = createHarness();
    const page = await h.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    for (const src of page.text.match(/(?:src|href)="([^"]+)"/g) ?? []) {
      const url = src.replace(/^(?:src|href)="|"$/g, '');
      if (url === 'data:,') continue; // the empty icon: no request for /favicon.ico
      const asset = await h.request('GET', url);
      expect(asset.status, url).toBe(200);
    }
    const init = await h.request('GET', '/docs/init.js');
    expect(init.text).toContain("url: '/openapi.sandbox.json'");
    // An asset name that every JavaScript object has as a property is no asset: 404, not a 500.
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expectErrorEnvelope(await h.request('GET', `/docs/assets/${name}`), 404, 'not_found');
  });

  it('each origin (the Host a client calls) gets documents naming it; a few origins are kept, not one per Host ever sent', async () => {
    const h = createHarness();
    for (let i = 0; i < 3 * ORIGINS_KEPT; i++) {
      for (const path of ['/openapi.json', '/__sandbox/openapi.json']) {
        const doc = JSON.parse(await (await h.app.request(`http://h${i}.example${path}`)).text());
        expect(doc.servers[0].variables.base_url.default, path).toBe(`http://h${i}.example`);
      }
    }
    const cache = new BoundedCache<number>(ORIGINS_KEPT);
    let made = 0;
    for (let i = 0; i < 3 * ORIGINS_KEPT; i++) cache.get(`o${i}`, () => ++made);
    expect(cache.size).toBe(ORIGINS_KEPT);
    expect(cache.get(`o${3 * ORIGINS_KEPT - 1}`, () => ++made)).toBe(3 * ORIGINS_KEPT); // kept
    expect(cache.get('o0', () => ++made)).toBe(3 * ORIGINS_KEPT + 1); // evicted, made again
    // The least recently used goes: an origin in use stays however many others come.
    for (let i = 0; i < 3 * ORIGINS_KEPT; i++) {
      cache.get(`p${i}`, () => ++made);
      expect(cache.get('o0', () => -1)).toBe(3 * ORIGINS_KEPT + 1);
    }
  });
});
