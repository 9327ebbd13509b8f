/**
 * The envelope of spec §1: every partnership response body is
 * `{status, error, message, request_id, data}` (plus `dry_run: true` on a dry run).
 *
 * The error object the spec leaves open is `{code, details?}`. Each code has its own
 * schema (`code` a const, `details` typed from where the code is thrown in src/), so a
 * generated client can tell a 409 content_hash_mismatch from a 409
 * idempotency_key_in_progress and read `details` without casting. The schema names avoid
 * JS/TS globals (no `Error`): generated code declares them as types.
 */
import { z } from '@hono/zod-openapi';
import { type ErrorCode, errorCodes, errorStatus } from './errors.js';

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

/** `details` of each code, as thrown in src/ (undefined: the code carries no details). */
const details: Record<ErrorCode, z.ZodType | undefined> = {
  partial_failure: z.object({
    failed_count: int('How many non-archived variants failed (and kept their previous state).', 1),
    variant_count: int('How many non-archived variants the PUT applied to.', 2),
  }),
  validation_error: z.object({
    fields: z.array(FieldIssue).openapi({ description: 'Every problem found, each naming its field.' }),
  }),
  malformed_json: z
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
  malformed_request: undefined,
  vertical_not_mapped: z
    .object({
      unmapped_pairs: z
        .array(PartnerPairRef)
        .optional()
        .openapi({ description: 'Controls PUT: every pair of blockedVerticals that the mapping lacks.' }),
      vertical_id: z.int().optional().openapi({ description: 'Register: the vertical_id sent.' }),
      sub_vertical_id: z.int().optional().openapi({ description: 'Register: the sub_vertical_id sent.' }),
    })
    .openapi({ description: 'Controls PUT: unmapped_pairs. Register: vertical_id and sub_vertical_id.' }),
  vertical_mapping_not_seeded: z.object({
    parent_account_id: z.string().openapi({ example: 'pa_unseeded_platform' }),
    unmapped_pairs: z.array(PartnerPairRef).optional().openapi({
      description: 'Controls PUT: every pair of blockedVerticals (none can be translated).',
    }),
  }),
  missing_idempotency_key: z.object({ header: headerName('Idempotency-Key') }),
  unknown_scenario: z.object({
    known_scenarios: z.array(z.string()).openapi({ description: 'The built-in scenario names.' }),
    presets: z.array(z.string()).openapi({ description: 'The preset names.' }),
  }),
  unauthorized: undefined,
  token_expired: undefined,
  auth_propagation_pending: undefined,
  forbidden: z.object({
    field: z.string().optional().openapi({ example: 'parent_account_id' }),
    header: z.string().optional().openapi({
      description: 'Control plane: the browser header that showed a cross-site request.',
      example: 'Origin',
    }),
  }),
  parent_account_mismatch: z.object({ header: headerName('X-Platform-Parent-Account-Id') }),
  not_found: undefined,
  account_not_found: z.object({ account_id: z.string().openapi({ example: 'acct_01jbx7k2m9q4r8s6t3v5' }) }),
  layout_not_found: z.object({
    layout_id: z
      .string()
      .openapi({ description: 'The layout ID as sent.', example: '01936b2e-7c4a-7d21-9f3e-4b5c6d7e8f90' }),
  }),
  method_not_allowed: z.object({
    allowed: z
      .array(z.string())
      .openapi({ description: 'The methods this path serves (also in Allow).', example: ['GET', 'PUT'] }),
  }),
  content_hash_mismatch: z.object({
    sent_content_hash: z.string().nullable().openapi({ description: 'The contentHash the write sent.' }),
  }),
  idempotency_key_in_progress: z.object({
    header: headerName('Idempotency-Key'),
    retry_after_seconds: int(
      'Seconds to wait before sending the same request again (also in Retry-After).',
      1,
    ).optional(),
  }),
  request_timeout: undefined,
  request_headers_too_large: undefined,
  payload_too_large: z.object({ limit_bytes: int('The body size limit.', 262144) }),
  unsupported_media_type: z.object({ header: headerName('Content-Type') }),
  expectation_failed: undefined,
  missing_parent_account_header: z.object({ header: headerName('X-Platform-Parent-Account-Id') }),
  idempotency_key_reused: z.object({
    header: headerName('Idempotency-Key'),
    first_used: z
      .object({ method: z.string().openapi({ example: 'PUT' }), path: z.string() })
      .optional()
      .openapi({ description: 'Where the key was first used, when that was another operation.' }),
  }),
  rate_limited: z.object({
    retry_after_seconds: int('Seconds to wait (also in Retry-After).', 1),
  }),
  internal_error: undefined,
  bad_gateway: undefined,
  service_unavailable: undefined,
  partner_storage_full: z.object({
    parent_account_id: z.string().openapi({ example: 'pa_demo_platform' }),
    used_bytes: int("What the partner's accounts, controls lists and stored answers take now.", 27262976),
    limit_bytes: int('The most one partner may hold (what its bundle can carry).', 27262976),
  }),
  store_not_writable: z.object({
    setting: z.literal('SANDBOX_DB').openapi({ description: 'The setting that names the store.' }),
    sqlite_code: z.string().openapi({
      description: "SQLite's code for the refusal: SQLITE_FULL, SQLITE_READONLY…, SQLITE_IOERR…",
      example: 'SQLITE_FULL',
    }),
  }),
};

/** What each code means for the caller (the schema descriptions of the document). */
const meaning: Record<ErrorCode, string> = {
  partial_failure:
    'A status PUT that some variants failed (HTTP 200): they kept their previous state. Keep request_id and contact support.',
  validation_error: 'A field is missing, mistyped, unknown or out of range; details.fields names each.',
  malformed_json: 'The body is not JSON, not UTF-8, or nests deeper than the limit.',
  malformed_request: 'The HTTP request itself could not be parsed (for example a repeated Content-Length).',
  request_timeout: 'The request was not received in time.',
  request_headers_too_large: 'The request headers are larger than the server accepts.',
  vertical_not_mapped: 'A partner vertical pair is not in the vertical mapping; nothing was written.',
  vertical_mapping_not_seeded: "The parent account's vertical mapping is empty (not seeded).",
  missing_idempotency_key: 'A write that needs Idempotency-Key was sent without it.',
  unknown_scenario: 'Sandbox only: X-Sandbox-Scenario names an unknown scenario or a bad value.',
  unauthorized: 'No bearer token, or an invalid one.',
  token_expired: 'The bearer token expired: get a new one at POST /oauth/token.',
  auth_propagation_pending:
    'A newly registered account: token authentication has not propagated yet (401 or 403). Retry every 15 to 30 s for up to 2 minutes.',
  forbidden:
    "A parent_account_id query of another parent than the token's; on the control plane, a cross-site browser request.",
  parent_account_mismatch: "X-Platform-Parent-Account-Id differs from the token's parent account.",
  partner_storage_full:
    'Sandbox only: the partner holds as many accounts, controls lists and stored answers as one partner may (what its bundle can carry, so that its export always imports). Nothing was written: reset the partner (POST /__sandbox/partners/{parent_account_id}/reset) or use another one.',
  not_found: 'No such route (or, on the control plane, no such partner or variant).',
  account_not_found:
    "No such account for this parent account (another parent's account is answered the same).",
  layout_not_found: 'No such layout on this account.',
  method_not_allowed:
    'The path does not serve this method; Allow and details.allowed name the ones it serves.',
  content_hash_mismatch:
    'contentHash no longer matches the stored list: re-read it (GET), re-apply your change to what it returns, and retry with its content_hash (the same Idempotency-Key may be reused).',
  idempotency_key_in_progress:
    'A request with this Idempotency-Key is still executing: wait Retry-After seconds and send the same request again with the same key (it then replays the first answer).',
  payload_too_large: 'The body is larger than the limit.',
  unsupported_media_type:
    'A write whose Content-Type is not JSON, or names a charset other than UTF-8, or whose body is compressed (a Content-Encoding other than identity, a Transfer-Encoding coding other than chunked; details.header names which).',
  expectation_failed: 'An Expect header other than 100-continue, which is the only one the server meets.',
  missing_parent_account_header: 'A write without X-Platform-Parent-Account-Id.',
  idempotency_key_reused:
    'The Idempotency-Key was first used on another operation, or (strict mode) with another payload: use a fresh key.',
  rate_limited: 'Too many requests: wait Retry-After seconds; nothing was applied.',
  internal_error: 'An unexpected error (quote request_id), or the server-error scenario.',
  bad_gateway: 'Bad gateway (the server-error scenario).',
  service_unavailable: 'Service unavailable (the server-error scenario).',
  store_not_writable:
    "Sandbox only: the sandbox's store (SANDBOX_DB) cannot take writes (a full disk, a read-only store, an I/O error). Nothing was written and an Idempotency-Key stays free: retry once the operator freed space.",
};

const pascal = (code: string) =>
  code
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
/** `content_hash_mismatch` -> ContentHashMismatchError; `validation_error` -> ValidationError. */
const errorName = (code: ErrorCode) => (code.endsWith('_error') ? pascal(code) : `${pascal(code)}Error`);
const envelopeName = (code: ErrorCode) => `${pascal(code)}Envelope`;

/** Codes only the sandbox answers (a scenario header, its own store): not in the partner document. */
export const SANDBOX_ONLY_CODES: readonly ErrorCode[] = [
  'unknown_scenario',
  'store_not_writable',
  'partner_storage_full',
];
/** The component schemas of those codes (their error object and envelope). */
export const SANDBOX_ONLY_SCHEMAS = SANDBOX_ONLY_CODES.flatMap((code) => [
  errorName(code),
  envelopeName(code),
]);

function errorObject(code: ErrorCode) {
  const shape = details[code];
  return z
    .object({
      code: z.literal(code),
      ...(shape ? { details: shape.optional() } : {}),
    })
    .openapi(errorName(code), { description: meaning[code] });
}

/** The error object of each code: `{code, details?}`. */
export const errorObjects = Object.fromEntries(errorCodes.map((code) => [code, errorObject(code)])) as Record<
  ErrorCode,
  ReturnType<typeof errorObject>
>;

const ErrorObjects = errorCodes.map((code) => errorObjects[code]);

/** Any error object, discriminated on `code`. */
export const ApiErrorObject = z
  .discriminatedUnion('code', ErrorObjects as unknown as [(typeof ErrorObjects)[0], ...typeof ErrorObjects])
  .openapi('ApiErrorObject', { description: 'The error object: {code, details?}, one schema per code.' });

const requestId = z.string().openapi({
  format: 'uuid',
  description: 'Quote it in support requests (also sent as X-Request-Id).',
  example: '0b6f4f0e-5d7a-4c1e-9a43-2f9d8c7e6b5a',
});
const dryRun = z
  .literal(true)
  .optional()
  .openapi({ description: 'Present, true, exactly when dry_run=true was sent.' });

function envelopeOf(code: ErrorCode) {
  const status = errorStatus[code];
  return z
    .object({
      status: z.int().openapi({ description: 'Mirrors the HTTP status.', example: status }),
      error: errorObjects[code],
      message: z.string().openapi({ description: 'What happened and what to do.' }),
      request_id: requestId,
      data: z.null(),
      dry_run: dryRun,
    })
    .openapi(envelopeName(code), { description: `The error envelope of ${code}: ${meaning[code]}` });
}

/** The error envelope of each code (data null). */
export const errorEnvelopes = Object.fromEntries(
  errorCodes.map((code) => [code, envelopeOf(code)]),
) as Record<ErrorCode, ReturnType<typeof envelopeOf>>;

/**
 * The body of an error response that can carry any of `codes`: that code's envelope, or
 * an anyOf of them. Each envelope's error.code is a one-value enum, so exactly one
 * matches; anyOf rather than oneOf because linters (Redocly's
 * no-illogical-composition-keywords) compare oneOf members one level deep and cannot
 * see that error.code separates them.
 */
export function errorBody(codes: readonly ErrorCode[]) {
  const [first, ...rest] = codes.map((code) => errorEnvelopes[code]);
  if (!first) throw new Error('errorBody needs at least one code');
  return rest.length === 0 ? first : z.union([first, ...rest]);
}

/**
 * The success envelope around `data`. With `partial`, `error` may also carry the
 * partial_failure error (a status PUT that some variants failed: still a 200).
 */
export function successEnvelope<T extends z.ZodType>(
  data: T,
  name: string,
  options: { partial?: boolean } = {},
) {
  return z
    .object({
      status: z.int().openapi({ description: 'Mirrors the HTTP status.', example: 200 }),
      error: options.partial
        ? z
            .union([errorObjects.partial_failure, z.null()])
            .openapi(
              { description: 'null, or the partial_failure error when some variants failed.' },
              { unionPreferredType: 'oneOf' },
            )
        : z.null(),
      message: z.string().openapi({ description: '"ok" on success.', example: 'ok' }),
      request_id: requestId,
      data,
      dry_run: dryRun,
    })
    .openapi(name);
}

/** Any error envelope: the control plane's errors, and 404 for a path no route serves. */
export const ErrorEnvelope = z
  .object({
    status: z.int().openapi({ description: 'Mirrors the HTTP status.', example: 404 }),
    error: ApiErrorObject,
    message: z.string(),
    request_id: requestId,
    data: z.null(),
    dry_run: dryRun,
  })
  .openapi('ErrorEnvelope', { description: 'The error envelope, any code.' });
