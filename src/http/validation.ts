/**
 * Turns zod issues into the one validation error: every field named the way the client
 * sent it, unknown fields listed, and a hint where a snake_case name was sent for a
 * camelCase field (or the other way round). Query parameters a route does not document
 * are unknown too, with a hint for a near miss (`dryRun`, `dry-run`, `DRY_RUN`): ignoring
 * `?dryRun=true` made a dry run write for real.
 */
import type { RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ZodObject, ZodType, z } from 'zod';
import { type FieldIssue, validationError } from '../contract/api/errors.js';
import { issuesToFields, MAX_ISSUES } from '../contract/api/issues.js';
import { UNKNOWN_QUERY_PARAMETER_MESSAGE, unknownQueryParameterHint } from '../contract/api/messages.js';
import type { AppEnv } from './env.js';
import { requestHeader } from './request-headers.js';

type Target = 'query' | 'param' | 'header' | 'json';

/** The query of a route that documents no parameter: any one sent is unknown. */
const NO_QUERY = z.object({});

/** How a field is named in the 400 for each part of the request (the body's fields bare). */
const FIELD_PREFIX: Record<Target, string> = { query: 'query', header: 'header', param: 'path', json: '' };

/**
 * The route's own zod schemas (the ones the OpenAPI document is generated from) applied
 * in the order @hono/zod-openapi applies them (query, path, headers, JSON body), each
 * synchronously, the parsed values handed to `c.req.valid()`. A query parameter the route
 * does not document is a 400 (every route checks its query, documented or not); values
 * repeated in the URL arrive as arrays (and fail a string schema); headers are looked up by the
 * schema's names only; the body is the one `jsonBody` parsed.
 */
export function validateRequest(request: RouteConfig['request']): (c: Context<AppEnv>) => void {
  const checks: [Target, z.ZodType, (c: Context<AppEnv>) => unknown][] = [];
  const query = request?.query ?? NO_QUERY;
  if (!(query instanceof ZodObject)) throw new Error('route query must be one z.object');
  const documented = Object.keys(query.shape);
  // What the query parses to when the URL has none (most calls): parsed once, not per call,
  // and without zod's compiled fast path, which a call with a query builds when it comes.
  const none = query.safeParse({}, { jitless: true });
  const noQuery = none.success ? Object.freeze(none.data as object) : undefined;
  checks.push(['query', query, (c) => queryValues(c, documented)]);
  if (request?.params) checks.push(['param', request.params, (c) => c.req.param()]);
  if (request?.headers) {
    if (!(request.headers instanceof ZodObject)) throw new Error('route headers must be one z.object');
    const names = Object.keys(request.headers.shape);
    checks.push(['header', request.headers, (c) => headerValues(c, names)]);
  }
  const media = request?.body?.content?.['application/json'];
  if (media && 'schema' in media) {
    const body = media.schema;
    if (!(body instanceof ZodType)) throw new Error('route JSON body schema must be a zod schema');
    checks.push(['json', body, (c) => c.get('jsonBody')]);
  }
  return function validate(c) {
    for (const [target, schema, read] of checks) {
      if (target === 'query' && noQuery && !c.req.url.includes('?')) {
        c.req.addValidatedData('query', noQuery);
        continue;
      }
      const result = schema.safeParse(read(c));
      if (!result.success) throw validationError(issuesToFields(result.error.issues, FIELD_PREFIX[target]));
      else c.req.addValidatedData(target, result.data as object);
    }
  };
}

/**
 * The query's values by name; a parameter the route does not document is a 400 naming
 * it (an unknown one is never ignored), with a hint when it is a near miss of one it does.
 */
function queryValues(c: Context, documented: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!c.req.url.includes('?')) return out;
  const unknown: FieldIssue[] = [];
  for (const [k, v] of Object.entries(c.req.queries())) {
    if (documented.includes(k)) out[k] = v.length === 1 ? v[0]! : v;
    else unknown.push(unknownQueryParameter(k, documented));
  }
  if (unknown.length) throw validationError(unknown.slice(0, MAX_ISSUES));
  return out;
}

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const MAX_NAME = 100;

function unknownQueryParameter(name: string, documented: readonly string[]): FieldIssue {
  const hint = documented.find((d) => squash(d) === squash(name));
  const shown = name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}…` : name;
  return {
    field: `${FIELD_PREFIX.query}.${shown}`,
    message: hint ? unknownQueryParameterHint(hint) : UNKNOWN_QUERY_PARAMETER_MESSAGE,
  };
}

function headerValues(c: Context, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = requestHeader(c, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
