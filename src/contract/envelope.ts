/**
 * The envelope of spec §1: every partnership response body is
 * `{status, error, message, request_id, data}` (plus `dry_run: true` on a dry run).
 */
import { z } from '@hono/zod-openapi';
import { errorCodes } from './errors.js';

export const ErrorObject = z
  .object({
    code: z
      .enum(errorCodes as [string, ...string[]])
      .openapi({ description: 'Stable machine-readable code.' }),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('Error');

export function successEnvelope<T extends z.ZodType>(data: T, name: string) {
  return z
    .object({
      status: z.int().openapi({ example: 200 }),
      error: z.null(),
      message: z.string().openapi({ example: 'ok' }),
      request_id: z.string().openapi({ format: 'uuid' }),
      data,
      dry_run: z.literal(true).optional(),
    })
    .openapi(name);
}

export const ErrorEnvelope = z
  .object({
    status: z.int(),
    error: ErrorObject,
    message: z.string(),
    request_id: z.string().openapi({ format: 'uuid' }),
    data: z.unknown().nullable(),
  })
  .openapi('ErrorEnvelope');

export interface SuccessBody<T> {
  status: number;
  error: null;
  message: string;
  request_id: string;
  data: T;
  dry_run?: true;
}
