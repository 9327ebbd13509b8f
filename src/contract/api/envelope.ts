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
import { recordOf } from './error-records.js';
import { type ErrorCode, errorCodes, errorStatus } from './errors.js';

/** What each code means for the caller (the schema descriptions of the document). */
const meaning = (code: ErrorCode) => recordOf(code).meaning;

const pascal = (code: string) =>
  code
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
/** `content_hash_mismatch` -> ContentHashMismatchError; `validation_error` -> ValidationError. */
const errorName = (code: ErrorCode) => (code.endsWith('_error') ? pascal(code) : `${pascal(code)}Error`);
const envelopeName = (code: ErrorCode) => `${pascal(code)}Envelope`;

/** Codes only the sandbox answers (a scenario header, its own store): not in the partner document. */
export const SANDBOX_ONLY_CODES = errorCodes.filter((code) => recordOf(code).sandboxOnly);
/** The component schemas of those codes (their error object and envelope). */
export const SANDBOX_ONLY_SCHEMAS = SANDBOX_ONLY_CODES.flatMap((code) => [
  errorName(code),
  envelopeName(code),
]);

function errorObject(code: ErrorCode) {
  const shape = recordOf(code).details;
  return z
    .object({
      code: z.literal(code),
      ...(shape ? { details: shape.optional() } : {}),
    })
    .openapi(errorName(code), { description: meaning(code) });
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
    .openapi(envelopeName(code), { description: `The error envelope of ${code}: ${meaning(code)}` });
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
