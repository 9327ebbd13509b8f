/**
 * The response headers of the partnership API, as reusable OpenAPI components
 * (components.headers). The routes reference them by name; the ones named XSandbox* are
 * sandbox-only and appear in the sandbox document alone.
 */

/** An OpenAPI Header Object, as far as these use it. */
export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
  example: unknown;
}

export const headerComponents = {
  XRequestId: {
    description:
      "The request_id of this answer (on a replay: this request's own ID; the body keeps the stored one).",
    required: true,
    schema: { type: 'string', format: 'uuid' },
    example: '0b6f4f0e-5d7a-4c1e-9a43-2f9d8c7e6b5a',
  },
  RetryAfter: {
    description:
      'Seconds to wait before retrying: on every 429, and on a 409 idempotency_key_in_progress (then send the same request with the same Idempotency-Key). Not sent with 409 content_hash_mismatch.',
    // A string of digits, as it travels: validators that check raw header text against the
    // schema (kin-openapi) reject an integer type for it.
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1',
  },
  WWWAuthenticate: {
    description:
      'The Bearer challenge (RFC 6750): error="invalid_token" when the token is invalid, expired, or not yet propagated to a new account.',
    required: true,
    schema: { type: 'string' },
    example:
      'Bearer realm="partnership-sandbox", error="invalid_token", error_description="The access token expired"',
  },
  WWWAuthenticateBasic: {
    description:
      'The HTTP Basic challenge of the token endpoint (RFC 6749 §5.2 invalid_client): sent when the client used HTTP Basic or sent no credentials, never to a client that authenticated in the body.',
    required: false,
    schema: { type: 'string' },
    example: 'Basic realm="partnership-sandbox"',
  },
  Allow: {
    description: 'The methods this path serves.',
    required: true,
    schema: { type: 'string' },
    example: 'GET, PUT',
  },
  IdempotentReplayed: {
    description:
      'true when this answer is the stored answer of an earlier request with the same Idempotency-Key (nothing was executed).',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
  XSandboxWarning: {
    description:
      'Sandbox only: coaching warnings (a replayed dry-run key, a replay with another payload, a read without the parent header, which variants a partial failure failed, ...), comma separated.',
    schema: { type: 'string' },
    example:
      'Idempotency-Key was used by a dry run: its stored dry-run response was replayed and nothing was written. Use a fresh key for the real write.',
  },
  XSandboxScenarioApplied: {
    description: 'Sandbox only: the scenarios that applied to this request, comma separated.',
    schema: { type: 'string' },
    example: 'status-partial-failure',
  },
  XSandboxChaos: {
    description:
      "Sandbox only: a chaos profile failed this call (docs/chaos.md): its seed and the call's position n in its partner's sequence.",
    schema: { type: 'string', pattern: '^seed=-?\\d+; call=\\d+$' },
    example: 'seed=42; call=7',
  },
} satisfies Record<string, HeaderObject>;

export type HeaderComponent = keyof typeof headerComponents;

/** Sandbox-only headers and parameters: in the sandbox document, never in the partner one. */
export const SANDBOX_HEADER_COMPONENTS: readonly HeaderComponent[] = [
  'XSandboxWarning',
  'XSandboxScenarioApplied',
  'XSandboxChaos',
];
export const SANDBOX_PARAMETER = 'x-sandbox-scenario';
