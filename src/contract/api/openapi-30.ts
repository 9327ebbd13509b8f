/**
 * The partner document rendered as OpenAPI 3.0.3, by code, from the 3.1 one: for
 * generators that read no 3.1 (Go's oapi-codegen and kin-openapi, and others). There is
 * no second hand-written document; what changes is the JSON Schema dialect:
 *
 * - `type: [T, "null"]` -> `type: T, nullable: true`;
 * - a oneOf/anyOf of `X` and `{type: "null"}` -> X inline (a $ref resolved) with
 *   `nullable: true` beside its type (kin-openapi wants a type next to nullable, and no
 *   nullable oneOf; an allOf would still reject null under 3.0.3's nullable);
 * - `type: "null"` alone (the error envelope's data) -> a nullable object with no properties;
 * - `const` -> a one-value `enum` (with its type); `examples: [..]` -> `example`;
 * - numeric `exclusiveMinimum`/`exclusiveMaximum` -> `minimum`/`maximum` plus the boolean;
 * - 3.1-only keywords dropped (`$schema`, `$id`, `$defs`, `prefixItems`, `propertyNames`,
 *   `contentMediaType`, `contentEncoding`, `unevaluatedProperties`, `dependentRequired`,
 *   `dependentSchemas`, `patternProperties`, `if`/`then`/`else`, `contains`, ...);
 * - `$ref` with siblings -> `allOf: [{$ref}]` with the siblings (3.0 ignores ref siblings);
 * - no `webhooks`, no `jsonSchemaDialect`, no `info.summary`, no `license.identifier` (its
 *   SPDX page as `url` instead).
 */
import type { OpenApiDocument } from './openapi-parts.js';

type Schema = OpenApiDocument;

/** Keywords of JSON Schema 2020-12 that OpenAPI 3.0's schema object does not have. */
const DROPPED = new Set([
  '$schema',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$defs',
  '$comment',
  'prefixItems',
  'propertyNames',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'if',
  'then',
  'else',
  'contains',
  'minContains',
  'maxContains',
]);

/** Keywords whose value is a map of schemas, a schema, or a list of schemas. */
const SCHEMA_MAPS = ['properties'];
const SCHEMA_VALUES = ['items', 'not', 'additionalProperties'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];

const isNullSchema = (s: unknown) =>
  typeof s === 'object' && s !== null && (s as Schema).type === 'null' && Object.keys(s).length === 1;

function typeOfValue(v: unknown): string | undefined {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  if (v !== null && typeof v === 'object') return 'object';
  return undefined;
}

/**
 * The keywords 3.0 spells otherwise, rewritten in place: a type list, `type: "null"`, `const`,
 * `examples`, numeric exclusive bounds.
 */
function rewriteKeywords(s: Schema): void {
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t: string) => t !== 'null');
    if (types.length !== s.type.length) s.nullable = true;
    if (types.length === 1) s.type = types[0];
    else {
      delete s.type;
      s.anyOf = types.map((t: string) => ({ type: t }));
    }
  } else if (s.type === 'null') {
    // Only null: an object that may be null and has no properties (the error envelope's data).
    s.type = 'object';
    s.nullable = true;
    s.maxProperties = 0;
  }

  if ('const' in s) {
    const value = s.const;
    delete s.const;
    s.enum = [value];
    s.type ??= typeOfValue(value);
  }
  if (Array.isArray(s.examples)) {
    if (s.examples.length > 0 && s.example === undefined) s.example = s.examples[0];
    delete s.examples;
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof s[exclusive] === 'number') {
      s[bound] = s[exclusive];
      s[exclusive] = true;
    }
  }
}

/** The 3.0 schema of a 3.1 one, in a document whose component schemas are `schemas`. */
function schemaConverter(schemas: Record<string, Schema>): (input: Schema) => Schema {
  /** The type of a schema, following one $ref (for the type beside a nullable allOf). */
  function typeOf(s: Schema): string | undefined {
    if (typeof s.$ref === 'string') {
      const name = s.$ref.replace('#/components/schemas/', '');
      return schemas[name] ? typeOf(schemas[name]) : undefined;
    }
    if (typeof s.type === 'string' && s.type !== 'null') return s.type;
    if (Array.isArray(s.type)) return s.type.find((t: string) => t !== 'null');
    if (s.const !== undefined) return typeOfValue(s.const);
    if (s.properties) return 'object';
    for (const key of SCHEMA_LISTS) {
      const list = s[key] as Schema[] | undefined;
      const types = new Set(list?.map(typeOf));
      if (list && types.size === 1) return [...types][0];
    }
    return undefined;
  }

  function schema(input: Schema): Schema {
    if (typeof input !== 'object' || input === null) return input;
    let s: Schema = { ...input };

    // `$ref` with siblings: 3.0 ignores the siblings, so keep them beside an allOf.
    if (typeof s.$ref === 'string' && Object.keys(s).length > 1) {
      const { $ref, ...rest } = s;
      s = { ...rest, allOf: [{ $ref }] };
    }

    for (const key of Object.keys(s)) if (DROPPED.has(key)) delete s[key];

    // a oneOf/anyOf with {type: "null"}: the other member(s), nullable
    for (const key of ['oneOf', 'anyOf']) {
      const list = s[key] as Schema[] | undefined;
      if (!list?.some(isNullSchema)) continue;
      const rest = list.filter((m) => !isNullSchema(m));
      delete s[key];
      if (rest.length === 1) {
        // One other member: its schema inline, with nullable beside its own type. (An allOf
        // would still reject null: in 3.0.3 nullable widens only the type of its own object.)
        const only = rest[0]!;
        const target =
          typeof only.$ref === 'string' ? schemas[only.$ref.replace('#/components/schemas/', '')] : only;
        Object.assign(s, schema(target ?? only));
      } else s[key] = rest;
      s.nullable = true;
      s.type ??= typeOf(rest.length === 1 ? rest[0]! : { [key]: rest });
    }

    rewriteKeywords(s);

    for (const key of SCHEMA_MAPS) {
      if (s[key] && typeof s[key] === 'object') {
        s[key] = Object.fromEntries(Object.entries(s[key] as Schema).map(([k, v]) => [k, schema(v)]));
      }
    }
    for (const key of SCHEMA_VALUES) {
      if (s[key] && typeof s[key] === 'object') s[key] = schema(s[key]);
    }
    for (const key of SCHEMA_LISTS) {
      if (Array.isArray(s[key])) s[key] = (s[key] as Schema[]).map(schema);
    }
    return s;
  }
  return schema;
}

export function toOpenApi30(doc: OpenApiDocument): OpenApiDocument {
  const schema = schemaConverter(doc.components?.schemas ?? {});

  /** Every `schema` of parameters, headers and media types, anywhere outside components.schemas. */
  function walk(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === 'schema' ? schema(value as Schema) : walk(value);
    }
    return out;
  }

  const { webhooks: _webhooks, jsonSchemaDialect: _dialect, components, ...rest } = doc;
  const out = walk(rest) as OpenApiDocument;
  out.openapi = '3.0.3';
  if (out.info) {
    delete out.info.summary;
    const license = out.info.license;
    if (license?.identifier) {
      // 3.0 has no SPDX identifier: its url names the same license (SPDX's page for it)
      out.info.license = { name: license.name, url: `https://spdx.org/licenses/${license.identifier}.html` };
    }
  }
  if (components) {
    const { pathItems: _pathItems, schemas: componentSchemas, ...others } = components as Schema;
    out.components = walk(others) as Schema;
    if (componentSchemas) {
      out.components.schemas = Object.fromEntries(
        Object.entries(componentSchemas as Record<string, Schema>).map(([k, v]) => [k, schema(v)]),
      );
      // A schema used only where it was nullable is inline there now: drop it rather than
      // leave an unused component (linters flag those). Components unused in 3.1 stay.
      const before = referenced(doc);
      let after = referenced(out);
      for (let dropped = true; dropped; ) {
        dropped = false;
        for (const name of Object.keys(out.components.schemas)) {
          if (before.has(name) && !after.has(name)) {
            delete out.components.schemas[name];
            dropped = true;
          }
        }
        after = referenced(out);
      }
    }
  }
  return out;
}

/** The names of the component schemas a document refers to (outside their own definitions). */
function referenced(doc: OpenApiDocument): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown, owner?: string) => {
    if (Array.isArray(node)) for (const item of node) visit(item, owner);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
          const name = value.slice('#/components/schemas/'.length);
          if (name !== owner) names.add(name);
        } else visit(value, owner);
      }
    }
  };
  const { components, ...rest } = doc as Schema;
  visit(rest);
  const { schemas, ...others } = (components ?? {}) as Schema;
  visit(others);
  for (const [name, value] of Object.entries((schemas ?? {}) as Record<string, unknown>)) visit(value, name);
  return names;
}
