/** The token endpoint's shapes (docs/api.md#authentication; RFC 6749 §4.4 and §5.2), for the OpenAPI document. */
import { z } from '@hono/zod-openapi';

export const TokenRequest = z
  .object({
    grant_type: z.literal('client_credentials'),
    client_id: z
      .string()
      .optional()
      .openapi({ description: 'Omit when using HTTP Basic client authentication.' }),
    client_secret: z.string().optional(),
    scope: z.literal('partnership').optional(),
  })
  .openapi('TokenRequest');

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.int().openapi({ description: 'Seconds of the sandbox clock.' }),
    scope: z.string(),
  })
  .openapi('TokenResponse');

export const OAuthErrorBody = z
  .object({
    error: z.enum([
      'invalid_request',
      'invalid_client',
      'unsupported_grant_type',
      'invalid_scope',
      'server_error',
      'temporarily_unavailable',
    ]),
    error_description: z.string(),
  })
  .openapi('OAuthError');
