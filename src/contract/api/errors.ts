/**
 * The error model, in one place: every machine-readable code the sandbox can put in
 * `error.code`, its HTTP status, and the one error class that handlers and middleware
 * throw. The envelope writer (http/envelope.ts) turns an ApiError into the response.
 */

export const errorStatus = {
  /** Sent with a 200: a status PUT that some variants failed (status-partial-failure). */
  partial_failure: 200,
  validation_error: 400,
  malformed_json: 400,
  /** Refused by Node's HTTP parser (server.ts): a duplicate Content-Length, a bad header line. */
  malformed_request: 400,
  vertical_not_mapped: 400,
  vertical_mapping_not_seeded: 400,
  missing_idempotency_key: 400,
  unknown_scenario: 400,
  unauthorized: 401,
  token_expired: 401,
  auth_propagation_pending: 401,
  forbidden: 403,
  parent_account_mismatch: 403,
  /** A write that would take the partner past what its bundle may hold (http/room.ts). */
  partner_storage_full: 403,
  not_found: 404,
  account_not_found: 404,
  layout_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  content_hash_mismatch: 409,
  idempotency_key_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** An Expect header other than 100-continue (server.ts). */
  expectation_failed: 417,
  missing_parent_account_header: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  request_headers_too_large: 431,
  internal_error: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  /** A write the store refused: a full disk, a read-only store, an I/O error (core/store-health.ts). */
  store_not_writable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

/** A field-level problem, named the way the client sent (or should send) it. */
export interface FieldIssue {
  field: string;
  message: string;
}

/** `error` of the envelope: `{code, details?}`. */
export interface ErrorBody {
  code: ErrorCode;
  details?: Record<string, unknown>;
}

export interface ApiErrorOptions {
  details?: Record<string, unknown>;
  /** Overrides the code's usual status (auth propagation answers 401 or 403). */
  status?: number;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? errorStatus[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  get body(): ErrorBody {
    return this.details ? { code: this.code, details: this.details } : { code: this.code };
  }
}

/** A write the store refused (core/store-health.ts): 503 naming SANDBOX_DB and the cause. */
export function storeNotWritable(refused: { failure: { code: string }; message: string }): ApiError {
  return new ApiError('store_not_writable', refused.message, {
    details: { setting: 'SANDBOX_DB', sqlite_code: refused.failure.code },
  });
}

export function validationError(issues: FieldIssue[]): ApiError {
  const summary = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
  return new ApiError('validation_error', `Invalid request: ${summary}`, { details: { fields: issues } });
}
