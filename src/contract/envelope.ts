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

/**
 * The success envelope around `data`. With `partial`, `error` may also carry the
 * partial_failure code (a status PUT that some variants failed: still a 200).
 */
export function successEnvelope<T extends z.ZodType>(
  data: T,
  name: string,
  options: { partial?: boolean } = {},
) {
  return z
    .object({
      status: z.int().openapi({ example: 200 }),
      error: options.partial
        ? z
            .object({
              code: z.literal('partial_failure'),
              details: z.record(z.string(), z.unknown()).optional(),
            })
            .nullable()
            .openapi({ description: 'null, or {code: "partial_failure"} when some variants failed.' })
        : z.null(),
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
    dry_run: z.literal(true).optional().openapi({ description: 'Present when dry_run=true was sent.' }),
  })
  .openapi('ErrorEnvelope');
