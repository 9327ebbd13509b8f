/**
 * The journal's filters (docs/control-plane.md): GET /__sandbox/requests's query and the count's
 * body (POST /__sandbox/requests/count), with the descriptions the control-plane document and
 * the MCP server's tools give them, said once for both.
 */
import { z } from '@hono/zod-openapi';

/**
 * The journal's filters (docs/control-plane.md), one set for GET /__sandbox/requests and the count
 * of §10. A filter that cannot match anything by its form (a method that is no HTTP method, a
 * time that is no time, a status outside 0-599) is a 400, never a silent "nothing matched":
 * "this call was never made" must not pass because of a typo.
 */
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const journalFilterFields = {
  account_id: z.string().min(1).max(128).optional(),
  parent_account_id: z.string().min(1).max(128).optional(),
  // Any case. The document spells the words out: a JSON Schema pattern has no flags (zod's
  // rendering of /.../i would be a pattern nothing matches).
  method: z
    .string()
    .regex(
      new RegExp(`^(?:${HTTP_METHODS.join('|')})$`, 'i'),
      `must be an HTTP method: ${HTTP_METHODS.slice(0, -1).join(', ')} or ${HTTP_METHODS.at(-1)}`,
    )
    .optional()
    .openapi({
      pattern: `^(?:${HTTP_METHODS.map((m) => [...m].map((ch) => `[${ch}${ch.toLowerCase()}]`).join('')).join('|')})$`,
    }),
  path: z.string().min(1).max(2048).optional(),
  since: z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. "2026-01-31T12:00:00Z"' })
    .transform((v) => new Date(v).toISOString())
    .optional(),
  // A W3C trace-id (domain/trace-context.ts) in any case, as a tracing UI may show it; all
  // zeros is no trace-id, so it could match nothing.
  trace_id: z
    .string()
    .regex(/^[0-9A-Fa-f]{32}$/, 'must be a W3C trace-id: 32 hex digits')
    .refine((v) => !/^0+$/.test(v), 'must be a W3C trace-id: 32 hex digits, not all zero')
    .transform((v) => v.toLowerCase())
    .optional(),
};
const journalStatus = z
  .int()
  .min(0, 'must be an HTTP status, or 0 for a reset connection')
  .max(599, 'must be an HTTP status, or 0 for a reset connection');

/** The filters as a client sends them (GET /__sandbox/requests query, typed). */
export const JournalFilters = z.object({
  ...journalFilterFields,
  status: journalStatus.optional(),
  limit: z.int().min(1).optional(),
});

/** The same filters as they arrive in a query string: digits become numbers; nothing else is allowed. */
const digits = (schema: z.ZodInt, documented: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(schema)
    .optional()
    // the document states the range too: digits it would refuse are not a pattern match
    .openapi({ pattern: documented, maxLength: 15 });
/** An optional query parameter or body field as the control-plane document describes it. */
export const about = <T extends z.ZodType>(schema: T, description: string, example?: string | number) =>
  schema.openapi({ description, ...(example === undefined ? {} : { example }) });
/** The journal's filters as the document describes them: once for its list and its count. */
const FILTER_ABOUT = {
  account_id: 'Only calls about this account.',
  parent_account_id: 'Only calls of this parent account.',
  method: 'Only calls with this HTTP method (any case).',
  path: 'Only calls whose path contains this text: a part of the path, such as /status or an account ID.',
  status: 'Only answers with this HTTP status (0: a reset connection).',
  since: 'Only calls at or after this time (ISO 8601).',
  trace_id:
    "Only calls that carried this W3C trace-id in their traceparent (any case): a failing test's trace, found again.",
} as const;
/** The filters both carry, described. */
const describedFilters = {
  account_id: about(journalFilterFields.account_id, FILTER_ABOUT.account_id),
  parent_account_id: about(
    journalFilterFields.parent_account_id,
    FILTER_ABOUT.parent_account_id,
    'pa_demo_platform',
  ),
  method: about(journalFilterFields.method, FILTER_ABOUT.method, 'PUT'),
  path: about(journalFilterFields.path, FILTER_ABOUT.path, '/marketplacecontrolslists'),
  since: about(journalFilterFields.since, FILTER_ABOUT.since),
  trace_id: about(journalFilterFields.trace_id, FILTER_ABOUT.trace_id, '4bf92f3577b34da6a3ce929d0e0e4736'),
};
export const JournalQuery = z.strictObject({
  account_id: describedFilters.account_id,
  parent_account_id: describedFilters.parent_account_id,
  method: describedFilters.method,
  path: describedFilters.path,
  status: about(digits(journalStatus, '^0*(?:[1-5][0-9]{2}|[1-9]?[0-9])$'), FILTER_ABOUT.status, '409'),
  since: describedFilters.since,
  trace_id: describedFilters.trace_id,
  limit: about(
    digits(z.int().min(1, 'must be a positive integer'), '^0*[1-9][0-9]*$'),
    'At most this many entries.',
    '50',
  ),
});

/** A header name as RFC 9110 allows it (a token). */
export const headerName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');

export const CountRequest = z.strictObject({
  ...describedFilters,
  status: about(journalStatus.optional(), FILTER_ABOUT.status, 409),
  header: about(
    z
      .strictObject({
        name: about(headerName, 'A request header name (any case).', 'Idempotency-Key'),
        value: about(
          z.string().max(8192).optional(),
          'Its value exactly as sent (repeated headers joined with ", "); without it, any value.',
        ),
      })
      .optional(),
    'Only calls that carried this request header (with this value, when given).',
  ),
  body_contains: z.string().min(1).max(65_536).optional().openapi({
    description:
      'A substring of the request body as the journal shows it (redacted, JSON compact). Only what the journal kept is searched: a body cut at SANDBOX_JOURNAL_BODY_BYTES is not searched past the cut (the answer says how many were cut).',
  }),
});
export const CountAnswer = z
  .object({
    count: z.int(),
    bodies_truncated: z.int().optional().openapi({
      description:
        'With body_contains only: how many entries the other filters match had their request body cut (request_body_truncated), so body_contains searched only the part kept of them.',
    }),
  })
  .openapi('RequestCount');
