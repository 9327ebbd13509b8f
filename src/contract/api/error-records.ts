/**
 * Every error code, each declared once as one record: its HTTP status, what it means for
 * the caller, its `details` schema, which partnership operations document it (`on`), the
 * sentence it adds to those operations' response descriptions, the response headers it
 * comes with, whether only the sandbox answers it, and its message when it has one.
 * Everything else follows: `errorStatus` and `ErrorCode` (errors.ts), the error objects and
 * envelopes of the documents (envelope.ts), each operation's error responses (operation.ts),
 * the partner document's leaving out of the sandbox-only codes (openapi.ts).
 * A new code is a record here, and the place that throws it.
 */
import { z } from '@hono/zod-openapi';
import { header } from './openapi-parts.js';

/**
 * Which partnership operations document a code, in the order an operation's response lists
 * its codes: every operation; or those whose needs (operation.ts) include the need named;
 * `notFound` those that name the code in needs.notFound; `endpoints` (the record's
 * `on: { endpoints }`) the operations of those scenario endpoint names (operations.ts);
 * `scenario` and `parser` every operation, listed last (the X-Sandbox-Scenario header, Node's
 * HTTP parser before any route).
 */
export const ANSWERED_ON = [
  'every',
  'parentQuery',
  'contentHash',
  'write',
  'idempotent',
  'mapping',
  'account',
  'notFound',
  'endpoints',
  'scenario',
  'parser',
  'propagation',
] as const;
export type AnsweredOn = (typeof ANSWERED_ON)[number];

export interface ErrorRecord {
  status: number;
  /** Other statuses an operation documents it under (the code's thrower overrides the status). */
  alsoStatus?: readonly number[];
  /** What it means for the caller: the schema descriptions of the documents. */
  meaning: string;
  /** `details`, as thrown in src/ (none: the code carries no details). */
  details?: z.ZodType;
  /**
   * Which partnership operations document it (ANSWERED_ON), or the scenario endpoint names
   * of those that do (`'layout.patch'`); none: no operation's responses list it.
   */
  on?: Exclude<AnsweredOn, 'endpoints'> | { endpoints: readonly string[] };
  /** Only the sandbox answers it: left out of the partner document (with its note). */
  sandboxOnly?: true;
  /** A sentence (leading space) added to the description of each operation response listing it. */
  note?: string;
  /** Response headers that come with it (components.headers). */
  headers?: Record<string, { $ref: string }>;
  /** Its message, or the builder of it, when the code has one. */
  message?: string | ((...args: never[]) => string);
}

const int = (description: string, example: number) => z.int().openapi({ description, example });
const headerName = (example: string) =>
  z.string().openapi({ description: 'The request header concerned.', example });

const FieldIssue = z
  .object({
    field: z.string().openapi({
      description:
        'The field as the client sent (or should send) it: `brand`, `pages[0].surface`, `header.Idempotency-Key`.',
      example: 'country_code',
    }),
    message: z.string().openapi({ example: 'must be an ISO 3166-1 alpha-2 code in upper case (e.g. "US")' }),
  })
  .openapi('FieldIssue');

const PartnerPairRef = z
  .object({ partnerVerticalId: z.int(), partnerSubVerticalId: z.int() })
  .openapi('UnmappedPair', { description: 'A partner vertical pair that the mapping lacks.' });

/** The error codes, in the order of the documents' lists of every code (by status). */
export const errorRecords = {
  /** Sent with a 200: a status PUT that some variants failed (status-partial-failure). */
  partial_failure: {
    status: 200,
    details: z.object({
      failed_count: int('How many non-archived variants failed (and kept their previous state).', 1),
      variant_count: int('How many non-archived variants the PUT applied to.', 2),
    }),
    meaning:
      'A status PUT that some variants failed (HTTP 200): they kept their previous state. Keep request_id and contact support.',
  },
  validation_error: {
    status: 400,
    on: 'every',
    details: z.object({
      fields: z.array(FieldIssue).openapi({ description: 'Every problem found, each naming its field.' }),
    }),
    meaning: 'A field is missing, mistyped, unknown or out of range; details.fields names each.',
  },
  malformed_json: {
    status: 400,
    on: 'write',
    details: z
      .object({
        byte_offset: int('Where in the body (bytes from its start) the problem is.', 12).optional(),
        max_depth: int(
          'How deep arrays and objects may nest (a body nested deeper is refused).',
          64,
        ).optional(),
      })
      .openapi({
        description: 'Bytes that are not UTF-8: byte_offset. Nested too deep: max_depth and byte_offset.',
      }),
    meaning: 'The body is not JSON, not UTF-8, or nests deeper than the limit.',
  },
  /** Refused by Node's HTTP parser (server.ts): a duplicate Content-Length, a bad header line. */
  malformed_request: {
    status: 400,
    on: 'parser',
    meaning: 'The HTTP request itself could not be parsed (for example a repeated Content-Length).',
  },
  vertical_not_mapped: {
    status: 400,
    on: 'mapping',
    details: z
      .object({
        unmapped_pairs: z
          .array(PartnerPairRef)
          .optional()
          .openapi({ description: 'Controls PUT: every pair of blockedVerticals that the mapping lacks.' }),
        vertical_id: z.int().optional().openapi({ description: 'Register: the vertical_id sent.' }),
        sub_vertical_id: z.int().optional().openapi({ description: 'Register: the sub_vertical_id sent.' }),
      })
      .openapi({ description: 'Controls PUT: unmapped_pairs. Register: vertical_id and sub_vertical_id.' }),
    meaning: 'A partner vertical pair is not in the vertical mapping; nothing was written.',
  },
  vertical_mapping_not_seeded: {
    status: 400,
    on: 'mapping',
    details: z.object({
      parent_account_id: z.string().openapi({ example: 'pa_unseeded_platform' }),
      unmapped_pairs: z.array(PartnerPairRef).optional().openapi({
        description: 'Controls PUT: every pair of blockedVerticals (none can be translated).',
      }),
    }),
    meaning: "The parent account's vertical mapping is empty (not seeded).",
  },
  missing_idempotency_key: {
    status: 400,
    on: 'idempotent',
    details: z.object({ header: headerName('Idempotency-Key') }),
    meaning: 'A write that needs Idempotency-Key was sent without it.',
  },
  unknown_scenario: {
    status: 400,
    on: 'scenario',
    sandboxOnly: true,
    details: z.object({
      known_scenarios: z.array(z.string()).openapi({ description: 'The built-in scenario names.' }),
      presets: z.array(z.string()).openapi({ description: 'The preset names.' }),
    }),
    meaning: 'Sandbox only: X-Sandbox-Scenario names an unknown scenario or a bad value.',
  },
  unauthorized: {
    status: 401,
    on: 'every',
    headers: { 'WWW-Authenticate': header('WWWAuthenticate') },
    meaning: 'No bearer token, or an invalid one.',
  },
  token_expired: {
    status: 401,
    on: 'every',
    meaning: 'The bearer token expired: get a new one at POST /oauth/token.',
  },
  auth_propagation_pending: {
    status: 401,
    alsoStatus: [403],
    on: 'propagation',
    note: ' For a newly registered account: token authentication that has not propagated yet (auth_propagation_pending; retry every 15 to 30 s for up to 2 minutes).',
    meaning:
      'A newly registered account: token authentication has not propagated yet (401 or 403). Retry every 15 to 30 s for up to 2 minutes.',
  },
  forbidden: {
    status: 403,
    on: 'parentQuery',
    details: z.object({
      field: z.string().optional().openapi({ example: 'parent_account_id' }),
      header: z.string().optional().openapi({
        description: 'Control plane: the browser header that showed a cross-site request.',
        example: 'Origin',
      }),
    }),
    meaning:
      "A parent_account_id query of another parent than the token's; on the control plane, a cross-site browser request.",
  },
  parent_account_mismatch: {
    status: 403,
    on: 'every',
    details: z.object({ header: headerName('X-Platform-Parent-Account-Id') }),
    meaning: "X-Platform-Parent-Account-Id differs from the token's parent account.",
  },
  /** A write that would take the partner past what its bundle may hold (http/room.ts). */
  partner_storage_full: {
    status: 403,
    on: 'write',
    sandboxOnly: true,
    note: ' partner_storage_full (sandbox only): the partner holds as much as one partner may (docs/guarantees-and-limits.md); nothing was written.',
    message: (parent: string, usedBytes: number, limitBytes: number) =>
      `Parent account ${parent} holds ${(usedBytes / 2 ** 20).toFixed(1)} MiB of accounts (with their variants and controls lists), vertical mapping and stored answers, and this write would take it past ${(limitBytes / 2 ** 20).toFixed(0)} MiB, the most one partner may hold in the sandbox (so that its bundle always imports). Nothing was written. Reset the partner (POST /__sandbox/partners/${parent}/reset) or use another one.`,
    details: z.object({
      parent_account_id: z.string().openapi({ example: 'pa_demo_platform' }),
      used_bytes: int("What the partner's accounts, controls lists and stored answers take now.", 27262976),
      limit_bytes: int('The most one partner may hold (what its bundle can carry).', 27262976),
    }),
    meaning:
      'Sandbox only: the partner holds as many accounts, controls lists and stored answers as one partner may (what its bundle can carry, so that its export always imports). Nothing was written: reset the partner (POST /__sandbox/partners/{parent_account_id}/reset) or use another one.',
  },
  not_found: {
    status: 404,
    meaning: 'No such route (or, on the control plane, no such partner or variant).',
  },
  account_not_found: {
    status: 404,
    on: 'account',
    details: z.object({ account_id: z.string().openapi({ example: 'acct_01jbx7k2m9q4r8s6t3v5' }) }),
    meaning: "No such account for this parent account (another parent's account is answered the same).",
  },
  layout_not_found: {
    status: 404,
    on: 'notFound',
    details: z.object({
      layout_id: z
        .string()
        .openapi({ description: 'The layout ID as sent.', example: '01936b2e-7c4a-7d21-9f3e-4b5c6d7e8f90' }),
    }),
    meaning: 'No such layout on this account.',
  },
  method_not_allowed: {
    status: 405,
    on: 'every',
    headers: { Allow: header('Allow') },
    details: z.object({
      allowed: z
        .array(z.string())
        .openapi({ description: 'The methods this path serves (also in Allow).', example: ['GET', 'PUT'] }),
    }),
    meaning: 'The path does not serve this method; Allow and details.allowed name the ones it serves.',
  },
  request_timeout: {
    status: 408,
    meaning: 'The request was not received in time.',
  },
  content_hash_mismatch: {
    status: 409,
    on: 'contentHash',
    note: ' content_hash_mismatch: contentHash no longer matches the stored list (re-read, re-apply your change, retry with the new content_hash).',
    details: z.object({
      sent_content_hash: z.string().nullable().openapi({ description: 'The contentHash the write sent.' }),
    }),
    meaning:
      'contentHash no longer matches the stored list: re-read it (GET), re-apply your change to what it returns, and retry with its content_hash (the same Idempotency-Key may be reused).',
  },
  idempotency_key_in_progress: {
    status: 409,
    on: 'idempotent',
    note: ' idempotency_key_in_progress: the same Idempotency-Key is still executing (wait Retry-After, then send the same request with the same key).',
    headers: { 'Retry-After': header('RetryAfter') },
    details: z.object({
      header: headerName('Idempotency-Key'),
      retry_after_seconds: int(
        'Seconds to wait before sending the same request again (also in Retry-After).',
        1,
      ).optional(),
    }),
    meaning:
      'A request with this Idempotency-Key is still executing: wait Retry-After seconds and send the same request again with the same key (it then replays the first answer).',
  },
  payload_too_large: {
    status: 413,
    on: 'write',
    details: z.object({ limit_bytes: int('The body size limit.', 262144) }),
    meaning: 'The body is larger than the limit.',
  },
  unsupported_media_type: {
    status: 415,
    on: 'write',
    details: z.object({ header: headerName('Content-Type') }),
    meaning:
      'A write whose Content-Type is not JSON, or names a charset other than UTF-8, or whose body is compressed (a Content-Encoding other than identity, a Transfer-Encoding coding other than chunked; details.header names which).',
  },
  /** An Expect header other than 100-continue (server.ts). */
  expectation_failed: {
    status: 417,
    meaning: 'An Expect header other than 100-continue, which is the only one the server meets.',
  },
  missing_parent_account_header: {
    status: 422,
    on: 'write',
    details: z.object({ header: headerName('X-Platform-Parent-Account-Id') }),
    meaning: 'A write without X-Platform-Parent-Account-Id.',
  },
  idempotency_key_reused: {
    status: 422,
    on: 'idempotent',
    details: z.object({
      header: headerName('Idempotency-Key'),
      first_used: z
        .object({ method: z.string().openapi({ example: 'PUT' }), path: z.string() })
        .optional()
        .openapi({ description: 'Where the key was first used, when that was another operation.' }),
    }),
    meaning:
      'The Idempotency-Key was first used on another operation, or (strict mode) with another payload: use a fresh key.',
  },
  rate_limited: {
    status: 429,
    on: 'every',
    headers: { 'Retry-After': header('RetryAfter') },
    message: (perSecond: number, burst: number, seconds: number) =>
      `Too many requests: this partner may send ${perSecond} calls per second (bursts of ${burst}); retry after ${seconds} s. Nothing was applied.`,
    details: z.object({
      retry_after_seconds: int('Seconds to wait (also in Retry-After).', 1),
    }),
    meaning: 'Too many requests: wait Retry-After seconds; nothing was applied.',
  },
  request_headers_too_large: {
    status: 431,
    meaning: 'The request headers are larger than the server accepts.',
  },
  internal_error: {
    status: 500,
    on: 'every',
    meaning: 'An unexpected error (quote request_id), or the server-error scenario.',
  },
  bad_gateway: {
    status: 502,
    on: 'every',
    meaning: 'Bad gateway (the server-error scenario).',
  },
  service_unavailable: {
    status: 503,
    on: 'every',
    meaning: 'Service unavailable (the server-error scenario).',
  },
  /** A write the store refused: a full disk, a read-only store, an I/O error (core/store-health.ts). */
  store_not_writable: {
    status: 503,
    on: 'write',
    sandboxOnly: true,
    note: " store_not_writable (sandbox only): the sandbox's store (SANDBOX_DB) cannot take writes (a full disk, a read-only store, an I/O error); nothing was written and the Idempotency-Key stays free.",
    message: (path: string, failure: { code: string; cause: string }) =>
      `The sandbox's store (SANDBOX_DB=${path === '' ? ':memory:' : path}) cannot take writes: ${failure.cause} (${failure.code}). Nothing was written; retry once the store can take writes again (free space, or make it writable).`,
    details: z.object({
      setting: z.literal('SANDBOX_DB').openapi({ description: 'The setting that names the store.' }),
      sqlite_code: z.string().openapi({
        description: "SQLite's code for the refusal: SQLITE_FULL, SQLITE_READONLY…, SQLITE_IOERR…",
        example: 'SQLITE_FULL',
      }),
    }),
    meaning:
      "Sandbox only: the sandbox's store (SANDBOX_DB) cannot take writes (a full disk, a read-only store, an I/O error). Nothing was written and an Idempotency-Key stays free: retry once the operator freed space.",
  },
} satisfies Record<string, ErrorRecord>;

export type ErrorCode = keyof typeof errorRecords;
/** A code's record, read as an ErrorRecord (its optional fields included). */
export const recordOf = (code: ErrorCode): ErrorRecord => errorRecords[code];
