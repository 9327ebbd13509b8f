/**
 * The token endpoint (docs/api.md#authentication; RFC 6749 §4.4 and §5.2), declared once: its
 * shapes and its route, which the partnership documents list (openapi.ts) and api/token-endpoint.ts
 * serves.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { errorBody } from './envelope.js';
import { commonHeaders as common, header, json } from './openapi-parts.js';

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

const oauthError = (description: string, extra = {}) => ({
  description,
  headers: { ...common, ...extra },
  ...json(OAuthErrorBody),
});

export const tokenRoute = createRoute({
  method: 'post',
  path: '/oauth/token',
  operationId: 'requestAccessToken',
  tags: ['Authentication'],
  summary: 'OAuth 2.0 client-credentials grant (RFC 6749 §4.4)',
  description:
    'Form-encoded or JSON body. Client authentication: client_secret_basic (HTTP Basic) or client_secret_post (client_id and client_secret in the body), not both. Errors are RFC 6749 §5.2 bodies, not the envelope.',
  security: [{ clientSecretBasic: [] }, {}],
  request: {
    body: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema: TokenRequest },
        'application/json': { schema: TokenRequest },
      },
    },
  },
  responses: {
    200: { description: 'An access token.', headers: common, ...json(TokenResponse) },
    400: {
      description: 'invalid_request, unsupported_grant_type or invalid_scope.',
      headers: common,
      ...json(OAuthErrorBody),
    },
    401: {
      description:
        'invalid_client: unknown client or wrong secret. WWW-Authenticate: Basic only when the client used HTTP Basic or sent no credentials (RFC 6749 §5.2); a client that authenticated in the body gets none.',
      headers: { ...common, 'WWW-Authenticate': header('WWWAuthenticateBasic') },
      ...json(OAuthErrorBody),
    },
    405: {
      description: 'The token endpoint serves POST only.',
      headers: { ...common, Allow: header('Allow') },
      ...json(errorBody(['method_not_allowed'])),
    },
    413: oauthError('invalid_request: the body is over the size limit.'),
    429: oauthError('temporarily_unavailable: too many requests; retry after Retry-After seconds.', {
      'Retry-After': header('RetryAfter'),
    }),
    500: oauthError('server_error: the server failed; no token was issued.'),
    502: oauthError('server_error: an upstream failed; no token was issued.'),
    503: oauthError('temporarily_unavailable: the server cannot issue tokens now; retry later.'),
  },
});
