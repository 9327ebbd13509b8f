/**
 * What one partnership operation is declared with (operations.ts), and what follows from
 * it: its route contract (createRoute: method, path, parameters, body, every documented
 * response) and its pipeline needs, which the HTTP layer runs (src/http/pipeline.ts).
 * The documented error responses are derived from the same needs the pipeline runs, so
 * a check and the errors it can answer are stated once.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { errorBody } from './envelope.js';
import { ANSWERED_ON, type AnsweredOn, recordOf } from './error-records.js';
import { type ErrorCode, errorCodes } from './errors.js';
import { commonHeaders, header, json } from './openapi-parts.js';
import { DryRunQuery } from './schemas.js';

/** The parent account of the default fixtures: examples that work against a fresh sandbox. */
export const DEMO_PARENT = 'pa_demo_platform';

export const security = [{ bearerAuth: [] }];

type Headers = Record<string, { $ref: string }>;
const success = <T extends z.ZodType>(description: string, schema: T, headers: Headers = {}) => ({
  description,
  headers: { ...commonHeaders, ...headers },
  ...json(schema),
});
const failure = (description: string, codes: readonly ErrorCode[], headers: Headers = {}) => ({
  description,
  headers: { ...commonHeaders, ...headers },
  ...json(errorBody(codes)),
});

/**
 * What an operation's pipeline runs (src/http/pipeline.ts) and what else it can answer:
 * the one statement from which the pipeline's stages, the request's documented headers
 * and query, and every documented error response follow.
 */
export interface Needs {
  /**
   * A write: X-Platform-Parent-Account-Id required (422), a JSON body (415, 413, 400
   * malformed_json), the dry_run query, 503 store_not_writable. Without it, a read: the
   * parent header optional (403 when it names another parent).
   */
  write?: boolean;
  /** An Idempotency-Key required (400), claimed and settled (409 in progress, 422 reused, replay). */
  idempotent?: boolean;
  /** The path's account_id is loaded for the token's parent: 404 account_not_found. */
  account?: boolean;
  /** A newly registered account's token propagation is checked: 401/403 auth_propagation_pending. */
  propagation?: boolean;
  /** Translates partner verticals (register, controls PUT): 400 vertical_not_mapped / not seeded. */
  mapping?: boolean;
  /** Takes a parent_account_id query (mappings GET): 403 forbidden. */
  parentQuery?: boolean;
  /** 404s the handler answers beyond account_not_found. */
  notFound?: ErrorCode[];
  /** 409 content_hash_mismatch (controls PUT). */
  contentHash?: boolean;
}

/** The 400 of an operation, in words: what its needs let it answer. */
function badRequestDescription(o: Needs): string {
  if (!o.write) return 'Validation error naming the query or path parameter.';
  const causes = ['Validation error naming the field', 'malformed JSON'];
  if (o.idempotent) causes.push('a missing Idempotency-Key');
  if (o.mapping) causes.push('an unmapped partner vertical or an unseeded mapping');
  return `${causes.slice(0, -1).join(', ')}, or ${causes.at(-1)}.`;
}

/**
 * What an error response of an operation says before the notes of its codes (ErrorRecord.note).
 * A status without one, or a response that would say nothing, says what its codes mean.
 */
const leads: Record<number, (o: Needs, codes: readonly ErrorCode[]) => string> = {
  400: badRequestDescription,
  401: () => 'Missing, invalid or expired bearer token.',
  403: () =>
    "X-Platform-Parent-Account-Id (or the parent_account_id query) names another parent than the token's.",
  404: (_, codes) =>
    codes.includes('layout_not_found')
      ? "No such account for this parent account (another parent's account is answered the same), or no such layout on this account."
      : "No such account for this parent account (another parent's account is answered the same).",
  405: () => 'The path does not serve this method: Allow names the ones it serves.',
  409: () => '',
  413: () => 'Request body larger than the limit.',
  415: () => 'Content-Type is not application/json in UTF-8, or the body is compressed (Content-Encoding).',
  422: (o) =>
    o.idempotent
      ? 'X-Platform-Parent-Account-Id missing; or an Idempotency-Key first used on another operation (or, in strict mode, with another payload).'
      : 'X-Platform-Parent-Account-Id missing.',
  429: () => 'Too many requests: wait Retry-After seconds; nothing was applied.',
  500: () => 'Internal error: quote request_id.',
  502: () => 'Bad gateway; nothing was applied.',
  503: () => 'Service unavailable; nothing was applied.',
};

/** Whether the operation of this endpoint and needs answers a code (ErrorRecord.on). */
function answers(endpoint: string, o: Needs, code: ErrorCode): boolean {
  const on = recordOf(code).on;
  if (on === undefined) return false;
  if (typeof on === 'object') return on.endpoints.includes(endpoint);
  if (on === 'every' || on === 'scenario' || on === 'parser') return true;
  if (on === 'notFound') return o.notFound?.includes(code) ?? false;
  return o[on] === true;
}

/**
 * Every error response of an operation, each with the error codes it can carry (in the
 * order of ANSWERED_ON, then of the records), its description and its headers: all from
 * the records of the codes its needs let it answer.
 */
function errors(endpoint: string, o: Needs) {
  const rank = (code: ErrorCode) => {
    const on = recordOf(code).on;
    return ANSWERED_ON.indexOf(typeof on === 'object' ? 'endpoints' : (on as AnsweredOn));
  };
  const codes = errorCodes.filter((code) => answers(endpoint, o, code)).sort((a, b) => rank(a) - rank(b));
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const record = recordOf(code);
    for (const status of [record.status, ...(record.alsoStatus ?? [])]) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
  }
  const responses: Record<number, ReturnType<typeof failure>> = {};
  for (const [status, listed] of byStatus) {
    const records = listed.map(recordOf);
    const meanings = records.map((r) => r.meaning).join(' ');
    const lead = leads[status]?.(o, listed) ?? meanings;
    const notes = records.map((r) => r.note ?? '').join('');
    responses[status] = failure(
      `${lead}${notes}`.trimStart() || meanings,
      listed,
      Object.assign({}, ...records.map((r) => r.headers ?? {})),
    );
  }
  return responses;
}

const scenarioHeader = z.string().optional().openapi({
  description:
    'Sandbox only: fault-injection scenarios, comma separated, each name or name=value (GET /__sandbox/scenarios lists them). Only in the sandbox document (/openapi.sandbox.json).',
  example: 'latency=100',
});

const parentHeader = (required: boolean) =>
  z.object({
    'x-sandbox-scenario': scenarioHeader,
    'x-platform-parent-account-id': required
      ? z.string().openapi({
          description: "The partner platform's parent account ID. Required on every write; missing: 422.",
          example: DEMO_PARENT,
        })
      : z.string().optional().openapi({
          description: "The partner platform's parent account ID (recommended on reads).",
          example: DEMO_PARENT,
        }),
  });

/** The request headers an operation documents and validates: the parent header (required on writes) and the key. */
const requestHeaders = (o: Needs) =>
  !o.write
    ? parentHeader(false)
    : o.idempotent
      ? parentHeader(true).extend({
          'idempotency-key': z.string().openapi({
            // http/idempotency.ts: 1 to 255 visible ASCII characters
            minLength: 1,
            maxLength: 255,
            pattern: '^[!-~]+$',
            description:
              'A fresh UUID per logical retry group (retries of one write reuse it; a new write, or the real write after a dry run, takes a fresh one). Missing: 400.',
            example: '5f0c6a2e-8d1b-4f3a-9c7e-2b4d6f8a1c3e',
          }),
        })
      : parentHeader(true);

/** Idempotent writes' 2xx: Idempotent-Replayed: true when the stored answer was replayed. */
const replayed = { 'Idempotent-Replayed': header('IdempotentReplayed') };

/** One partnership operation, as operations.ts writes it. */
export interface Declaration {
  /** Its name in the scenario catalogue (scenarios/catalogue.ts, docs/fault-injection.md): fixed, partners script against it. */
  endpoint: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  description: string;
  needs: Needs;
  params?: z.ZodObject;
  /** A read's own query parameters (a write's is the dry_run query, from `needs.write`). */
  query?: z.ZodObject;
  /** The JSON body (required). */
  body?: z.ZodType;
  /** The 200 answer: its description and envelope. */
  ok: { description: string; schema: z.ZodType };
}

/** The request part of the route contract of a declaration, typed for its handler. */
type RequestOf<D extends Declaration> = (D['params'] extends z.ZodObject ? { params: D['params'] } : object) &
  (D['query'] extends z.ZodObject ? { query: D['query'] } : object) &
  (D['body'] extends z.ZodType
    ? { body: { required: true; content: { 'application/json': { schema: D['body'] } } } }
    : object) & { headers: ReturnType<typeof requestHeaders> };

type ResponsesOf<D extends Declaration> = {
  200: ReturnType<typeof success<D['ok']['schema']>>;
} & ReturnType<typeof errors>;

/**
 * An operation from its declaration: its scenario endpoint name, its pipeline needs, and
 * its route contract (what the OpenAPI documents are generated from and the request is
 * validated by).
 */
export function operation<const D extends Declaration>(d: D) {
  const o = d.needs;
  const request = {
    ...(d.params ? { params: d.params } : {}),
    ...(o.write ? { query: DryRunQuery } : d.query ? { query: d.query } : {}),
    headers: requestHeaders(o),
    ...(d.body ? { body: { required: true, ...json(d.body) } } : {}),
  } as RequestOf<D>;
  const route = createRoute({
    method: d.method,
    path: d.path as D['path'],
    operationId: d.operationId,
    tags: ['Partnership'],
    summary: d.summary,
    description: d.description,
    security,
    request,
    responses: {
      200: success(d.ok.description, d.ok.schema as D['ok']['schema'], o.idempotent ? replayed : {}),
      ...errors(d.endpoint, o),
    } as ResponsesOf<D>,
  });
  return { endpoint: d.endpoint as D['endpoint'], needs: o as D['needs'], route };
}

export type Operation = ReturnType<typeof operation<Declaration>>;
