/**
 * GET /openapi-3.0.json: the partner document rendered as OpenAPI 3.0.3 by code
 * (src/contract/api/openapi-30.ts), for generators that read no 3.1 (oapi-codegen,
 * kin-openapi). Valid 3.0 (independent validator), the same operations as the 3.1
 * document, nothing 3.1-only, and the sandbox's answers validate against it (Ajv, with
 * OpenAPI 3.0's `nullable`). Spectral and Redocly: test/openapi-lint.test.ts.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { toOpenApi30 } from '../../src/contract/api/openapi-30.js';
import type { Operation } from '../../src/contract/api/operation.js';
import { operations as declared } from '../../src/contract/api/operations.js';
import { CONTROLS, createHarness, MAPPINGS, pair, type Reply, STATUS } from '../helpers/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: documents are asserted field by field
type Doc = any;

async function documents() {
  const h = createHarness();
  const v30: Doc = (await h.request('GET', '/openapi-3.0.json')).body;
  const v31: Doc = (await h.request('GET', '/openapi.json')).body;
  return { h, v30, v31 };
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.entries(item as Doc).map(([method, op]) => `${method} ${path} ${(op as Doc).operationId}`),
    )
    .sort();

/** Every schema-ish node of a document with its JSON pointer. */
function* nodes(node: unknown, path = ''): Generator<[string, Doc]> {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) yield* nodes(v, `${path}/${i}`);
  } else if (node && typeof node === 'object') {
    yield [path, node];
    for (const [k, v] of Object.entries(node)) yield* nodes(v, `${path}/${k}`);
  }
}

describe('GET /openapi-3.0.json', () => {
  it('is a valid OpenAPI 3.0.3 document (independent validator)', async () => {
    const { v30 } = await documents();
    expect(v30.openapi).toBe('3.0.3');
    const result = await new Validator().validate(v30);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has exactly the operations of the 3.1 partner document, and its components', async () => {
    const { v30, v31 } = await documents();
    expect(operations(v30)).toEqual(operations(v31));
    expect(operations(v30)).toHaveLength(8);
    for (const kind of Object.keys(v31.components)) {
      // PartialFailureError is used only where it may be null: inline there in 3.0 (see below).
      const expected = Object.keys(v31.components[kind]).filter((n) => n !== 'PartialFailureError');
      expect(Object.keys(v30.components[kind]).sort(), kind).toEqual(expected.sort());
    }
    expect(JSON.stringify(v30)).not.toMatch(
      /x-sandbox-scenario"|X-Sandbox-Warning|X-Sandbox-Scenario-Applied|XSandbox/i,
    );
  });

  it('uses no 3.1-only construct, in the strict form kin-openapi accepts; every $ref resolves', async () => {
    const { v30 } = await documents();
    expect(v30).not.toHaveProperty('webhooks');
    const problems: string[] = [];
    for (const [at, n] of nodes(v30)) {
      if (Array.isArray(n.type) || n.type === 'null') problems.push(`${at}: type ${JSON.stringify(n.type)}`);
      if (n.nullable && typeof n.type !== 'string') problems.push(`${at}: nullable without a type`);
      if (n.nullable && (n.oneOf || n.anyOf)) problems.push(`${at}: nullable oneOf/anyOf`);
      for (const k of ['const', '$schema', 'prefixItems', 'contentMediaType', 'propertyNames', '$defs']) {
        if (k in n && !at.endsWith('/properties')) problems.push(`${at}: ${k}`);
      }
      if (Array.isArray(n.examples)) problems.push(`${at}: examples array`);
      for (const k of ['exclusiveMinimum', 'exclusiveMaximum']) {
        if (k in n && typeof n[k] !== 'boolean') problems.push(`${at}: numeric ${k}`);
      }
      if (typeof n.$ref === 'string') {
        if (Object.keys(n).length > 1) problems.push(`${at}: $ref with siblings`);
        const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(n.$ref) ?? [];
        if (!kind || !v30.components[kind]?.[name!]) problems.push(`${at}: unresolved ${n.$ref}`);
      }
    }
    expect(problems).toEqual([]);
    // The nullable forms it uses.
    const s = v30.components.schemas;
    // A nullable $ref is inlined: in 3.0.3 nullable widens only its own object's type, so a
    // nullable allOf would still reject null (the envelope's error on every success).
    expect(s.StatusWriteEnvelope.properties.error).toMatchObject({
      type: 'object',
      nullable: true,
      properties: { code: { type: 'string', enum: ['partial_failure'] } },
    });
    expect(s.StatusWriteEnvelope.properties.error).not.toHaveProperty('allOf');
    expect(s.ContentHashMismatchEnvelope.properties.data).toEqual({
      type: 'object',
      nullable: true,
      maxProperties: 0,
    });
    expect(s.ContentHashMismatchError.properties.details.properties.sent_content_hash).toMatchObject({
      type: 'string',
      nullable: true,
    });
    expect(s.ContentHashMismatchError.properties.code).toEqual({
      type: 'string',
      enum: ['content_hash_mismatch'],
    });
  });

  it("the sandbox's answers validate against the 3.0 document (Ajv's own nullable: it widens only the type beside it, as OpenAPI 3.0.3 says)", async () => {
    const { h, v30 } = await documents();
    const ajv = new Ajv({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    const { openapi: _o, ...rest } = v30;
    ajv.addSchema({ ...(rest as Doc), $id: 'v30' });
    const validators = new Map<string, ValidateFunction>();
    const check = (res: Reply, { route: { path, method } }: Operation) => {
      const pointer = `v30#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${res.status}/content/application~1json/schema`;
      let validate = validators.get(pointer);
      if (!validate) {
        validate = ajv.compile({ $ref: pointer });
        validators.set(pointer, validate);
      }
      const ok = validate(res.body);
      expect(validate.errors ?? [], `${method} ${path} ${res.status}`).toEqual([]);
      expect(ok).toBe(true);
    };
    const partner = await h.client();
    const accountId = await partner.account();
    check(await partner.get(MAPPINGS), declared.listVerticalMappings);
    const controls = await partner.get(CONTROLS(accountId));
    check(controls, declared.getControls);
    const body = {
      blockedVerticals: [pair(10, 1001)],
      domains: [],
      contentHash: controls.body.data.marketplace_controls_list.content_hash,
    };
    check(await partner.put(`${CONTROLS(accountId)}?dry_run=true`, body), declared.putControls);
    check(
      await partner.put(CONTROLS(accountId), { ...body, contentHash: 'f'.repeat(40) }),
      declared.putControls,
    );
    check(
      await partner.put(CONTROLS(accountId), { ...body, blockedVerticals: [pair(9, 9)] }),
      declared.putControls,
    );
    check(await partner.get(STATUS(accountId)), declared.getStatus);
    check(await partner.put(STATUS(accountId), { status: 'paused' }), declared.putStatus);
    const partial = await partner.put(
      STATUS(accountId),
      { status: 'active' },
      { 'X-Sandbox-Scenario': 'status-partial-failure' },
    );
    expect(partial.body.error.code).toBe('partial_failure');
    check(partial, declared.putStatus);
    check(await partner.get(STATUS('acct_nosuchaccount0000000')), declared.getStatus);
  });
});

describe('toOpenApi30 (the converter, on 3.1 constructs the partner document does not use today)', () => {
  it('rewrites JSON Schema 2020-12 into the 3.0 schema object', () => {
    const doc = {
      openapi: '3.1.0',
      jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
      info: { title: 't', version: '1', summary: 's', license: { name: 'MIT', identifier: 'MIT' } },
      paths: {
        '/x': {
          get: {
            parameters: [
              { name: 'q', in: 'query', schema: { type: ['integer', 'null'], exclusiveMinimum: 0 } },
            ],
            responses: {
              200: {
                description: 'ok',
                content: {
                  'application/json': { schema: { $ref: '#/components/schemas/A', description: 'd' } },
                },
              },
            },
          },
        },
      },
      webhooks: { w: {} },
      components: {
        schemas: {
          A: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: {
              kind: { const: 'a' },
              tuple: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'string' } },
              ref: { anyOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
              map: {
                type: 'object',
                propertyNames: { type: 'string' },
                additionalProperties: { type: 'number', exclusiveMaximum: 5 },
              },
              note: { type: 'string', examples: ['first', 'second'], contentMediaType: 'text/plain' },
              nothing: { type: 'null' },
            },
          },
          B: { type: 'object', properties: { n: { type: 'integer' } } },
        },
        pathItems: {},
      },
    };
    const out = toOpenApi30(doc);
    expect(out.openapi).toBe('3.0.3');
    expect(out).not.toHaveProperty('webhooks');
    expect(out).not.toHaveProperty('jsonSchemaDialect');
    expect(out.info).toEqual({
      title: 't',
      version: '1',
      license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
    });
    expect(out.components).not.toHaveProperty('pathItems');
    expect(out.paths['/x'].get.parameters[0].schema).toEqual({
      type: 'integer',
      nullable: true,
      minimum: 0,
      exclusiveMinimum: true,
    });
    expect(out.paths['/x'].get.responses[200].content['application/json'].schema).toEqual({
      description: 'd',
      allOf: [{ $ref: '#/components/schemas/A' }],
    });
    const a = out.components.schemas.A;
    expect(a).not.toHaveProperty('$schema');
    expect(a.properties.kind).toEqual({ enum: ['a'], type: 'string' });
    expect(a.properties.tuple).toEqual({ type: 'array', items: { type: 'string' } });
    expect(a.properties.ref).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' } },
      nullable: true,
    });
    expect(out.components.schemas).not.toHaveProperty('B'); // used only there: inline now
    expect(a.properties.map).toEqual({
      type: 'object',
      additionalProperties: { type: 'number', maximum: 5, exclusiveMaximum: true },
    });
    expect(a.properties.note).toEqual({ type: 'string', example: 'first' });
    expect(a.properties.nothing).toEqual({ type: 'object', nullable: true, maxProperties: 0 });
    // The input is left as it was.
    expect(doc.components.schemas.A.properties.kind).toEqual({ const: 'a' });
  });
});
