/**
 * The MCP server's tools (docs/coding-agents.md), derived from the control plane's declarations
 * (contract/control/control-routes*.ts): a tool is an operation, named by its operationId, described by
 * its summary and description, its input schema the operation's path and query parameters and
 * body fields by the control plane's own names (parent_account_id, account_id, trace_id, ...),
 * each with the schema and description the control-plane document gives it. The schemas are
 * read from that document as the declarations generate it (contract/control/openapi-control.ts), so the
 * tools say what `/__sandbox/openapi.json` says. Which operations are tools, and in what order,
 * their declarations say (`tool`); written here is the one view of an operation's answer: the
 * coaching warnings of the journal.
 */

import type { JournalView } from '../client/control-client.js';
import { CONTROL_OPERATIONS, type ControlOperationId } from '../client/control-operations.js';
import { headerComponents } from '../contract/api/headers.js';
import { CONTROL_ROUTES } from '../contract/control/control-routes-all.js';
import { controlPlaneDocument } from '../contract/control/openapi-control.js';

/** A JSON Schema, as the control-plane document has it. */
type Schema = Record<string, unknown>;

/** Where each input of a tool goes in the control-plane call. */
export interface ToolParts {
  path: string[];
  query: string[];
  body: string[];
  /** Whether the operation takes a JSON body (sent even when no field of it is given). */
  hasBody: boolean;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; idempotentHint: boolean; openWorldHint: false };
  operation: ControlOperationId;
  parts: ToolParts;
  /** Values sent when the caller gives none (a query parameter's). */
  defaults?: Record<string, string>;
  /** The answer as the tool gives it, when it is a view of the operation's answer. */
  view?: (answer: unknown) => unknown;
}

/** How many journal entries listRequests answers when `limit` is not given: an agent's context is small. */
export const JOURNAL_DEFAULT_LIMIT = 20;

/**
 * The operations a coding agent may call, in the order the tools are listed: those whose
 * declaration gives them a place (`tool`, contract/control/control-routes.ts says which and why).
 */
export const EXPOSED: readonly ControlOperationId[] = CONTROL_ROUTES.filter(
  (route) => route.tool !== undefined,
)
  .sort((a, b) => a.tool! - b.tool!)
  .map((route) => route.operationId as ControlOperationId);

/** The journal's entries that carry a coaching warning, each with what identifies its call. */
function warningsOf(answer: unknown): unknown {
  const { requests } = answer as JournalView;
  return {
    warnings: requests
      .filter((e) => e.warnings.length > 0)
      .map((e) => ({
        time: e.time,
        method: e.method,
        path: e.path,
        status: e.status,
        request_id: e.request_id,
        trace_id: e.trace_id,
        account_id: e.account_id,
        warnings: e.warnings,
      })),
  };
}

/** Every exposed tool, from the control-plane document generated from the declarations. */
export function controlTools(origin: string): ToolDefinition[] {
  const doc = controlPlaneDocument(origin) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, Schema> };
  };
  const components = doc.components?.schemas ?? {};
  const tools = EXPOSED.map((id) => {
    const { method, path } = CONTROL_OPERATIONS[id];
    const operation = doc.paths[path]?.[method];
    if (!operation) throw new Error(`the control-plane document has no ${method} ${path} (${id})`);
    return toolOf(id, operation, components);
  });
  const journal = tools.find((t) => t.name === 'listRequests')!;
  journal.defaults = { limit: String(JOURNAL_DEFAULT_LIMIT) };
  journal.description += ` (Here at most ${JOURNAL_DEFAULT_LIMIT} entries unless limit says otherwise.)`;
  // The coaching warnings: the journal's calls that drew one (X-Sandbox-Warning), by the same filters.
  tools.push({
    ...journal,
    name: 'listWarnings',
    title: 'Coaching warnings of the journal',
    annotations: { ...journal.annotations, title: 'Coaching warnings of the journal' },
    description: `X-Sandbox-Warning: ${headerComponents.XSandboxWarning.description} The journal's calls that drew one, newest first, each with its request_id, trace_id and account, by the filters of listRequests (GET /__sandbox/requests): limit counts the calls looked at, not the warnings.`,
    defaults: undefined,
    view: warningsOf,
  });
  return tools;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

function toolOf(id: ControlOperationId, op: Operation, components: Record<string, Schema>): ToolDefinition {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const parts: ToolParts = { path: [], query: [], body: [], hasBody: false };
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    properties[p.name] = portable({
      ...p.schema,
      ...(p.description ? { description: p.description } : {}),
    });
    if (p.required) required.push(p.name);
    parts[p.in].push(p.name);
  }
  const declared = op.requestBody?.content?.['application/json']?.schema;
  if (declared) {
    parts.hasBody = true;
    const body = resolve(declared, components) as {
      properties?: Record<string, Schema>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(body.properties ?? {})) {
      if (name in properties) throw new Error(`${id}: ${name} is both a parameter and a body field`);
      properties[name] = portable(resolve(schema, components));
      parts.body.push(name);
    }
    required.push(...(body.required ?? []));
  }
  const title = op.summary ?? id;
  const method = CONTROL_OPERATIONS[id].method;
  return {
    name: id,
    title,
    description: [op.summary, op.description]
      .filter((part): part is string => Boolean(part))
      .map((part) => (/[.!?]$/.test(part) ? part : `${part}.`))
      .join(' '),
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    },
    annotations: {
      title,
      readOnlyHint: method === 'get',
      idempotentHint: method !== 'post',
      openWorldHint: false,
    },
    operation: id,
    parts,
  };
}

/** A schema with every `$ref` to the document's components put in its place. */
function resolve(schema: unknown, components: Record<string, Schema>, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => resolve(s, components, seen));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    if (seen.includes(name)) return {}; // a recursive schema (none today): anything
    const { $ref: _, ...rest } = schema as Schema;
    return resolve({ ...components[name], ...rest }, components, [...seen, name]);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolve(v, components, seen)]));
}

/**
 * A property's schema as every MCP client reads it (the MCP inspector's --strict rules): plain
 * JSON Schema (jsonSchema), one `type` per schema, no `anyOf`/`oneOf`, an object's
 * `additionalProperties` said. The control plane accepts `null` for an optional body field (as
 * Python's None and Go's nil send one) and, for a scenario's value, digits in a string too: a
 * tool shows the first form the declaration gives (a number), which the control plane takes.
 */
export function portable(schema: unknown): Schema {
  const plain = jsonSchema(schema);
  const out: Schema = { ...plain };
  const alternatives = (out.anyOf ?? out.oneOf) as Schema[] | undefined;
  if (alternatives) {
    delete out.anyOf;
    delete out.oneOf;
    const first = alternatives.find((alt) => alt.type !== 'null') ?? {};
    Object.assign(
      out,
      portable(first),
      ...['description', 'examples'].filter((k) => k in plain).map((k) => ({ [k]: plain[k] })),
    );
  }
  if (Array.isArray(out.type)) out.type = out.type.find((t) => t !== 'null');
  if (out.type === 'object') {
    out.additionalProperties ??= false;
    if (out.properties)
      out.properties = Object.fromEntries(
        Object.entries(out.properties as Record<string, Schema>).map(([name, s]) => [name, portable(s)]),
      );
  }
  if (out.type === 'array' && out.items) out.items = portable(out.items);
  return out;
}

/** Keywords whose value is a schema, a list of schemas, or a map of names to schemas. */
const SUBSCHEMA = new Set(['items', 'not', 'additionalProperties', 'propertyNames', 'contains']);
const SUBSCHEMAS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs']);

/** An OpenAPI 3.1 schema as plain JSON Schema: `example` (OpenAPI's keyword) becomes `examples`. */
function jsonSchema(schema: unknown): Schema {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema as Schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'example') out.examples = [v];
    else if (SUBSCHEMA.has(k)) out[k] = jsonSchema(v);
    else if (SUBSCHEMAS.has(k) && Array.isArray(v)) out[k] = v.map(jsonSchema);
    else if (SCHEMA_MAPS.has(k) && v && typeof v === 'object')
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, jsonSchema(s)]));
    else out[k] = v;
  }
  return out;
}
