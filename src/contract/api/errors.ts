/**
 * The error model: every machine-readable code the sandbox can put in `error.code` and its
 * HTTP status (from the records, error-records.ts), and the one error class that handlers
 * and middleware throw. The envelope writer (http/answer-writer.ts) turns an ApiError into the response.
 */
import { type ErrorCode, errorRecords } from './error-records.js';
import { accountNotFoundMessage } from './messages.js';

export type { ErrorCode };
/** Every code, in its records' order (by status). */
export const errorCodes = Object.keys(errorRecords) as ErrorCode[];
/** Each code's HTTP status. */
export const errorStatus = Object.fromEntries(
  errorCodes.map((code) => [code, errorRecords[code].status]),
) as Record<ErrorCode, number>;

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

/** The 404s of a partner, account or variant that is not there (services/lookup.ts, the control plane's access, bundles). */
export const partnerNotFound = (parent: string) =>
  new ApiError('not_found', `No partner with parent_account_id ${parent}.`);

export const accountNotFound = (accountId: string) =>
  new ApiError('account_not_found', accountNotFoundMessage(accountId));

export const variantNotFound = (variantId: string) => new ApiError('not_found', `No variant ${variantId}.`);

export function validationError(issues: FieldIssue[]): ApiError {
  const summary = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
  return new ApiError('validation_error', `Invalid request: ${summary}`, { details: { fields: issues } });
}
