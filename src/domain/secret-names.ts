/**
 * Which names hold a secret, and which authentication schemes a credential is sent under: the
 * one rule the journal (core/journal-redact.ts) and recordings (drift/redact.ts) redact by.
 */

/**
 * Authentication schemes (the IANA registry and common others) kept in front of a redacted
 * credential, `Bearer [REDACTED]`, so the journal still shows how a client authenticated.
 * Any other first word could be part of the secret (`Cookie: sid=…`, a key with a space).
 */
export const AUTH_SCHEME =
  /^(?:basic|bearer|concealed|digest|dpop|gnap|hoba|mutual|negotiate|ntlm|oauth|privatetoken|scram-sha-1|scram-sha-256|vapid|token|apikey|aws4-hmac-sha256)$/i;

/** Names partners assert on: never redacted, whatever the rule below would say of them. */
const NEVER_SECRET = new Set([
  'idempotencykey',
  'xrequestid',
  'xplatformparentaccountid',
  'xsandboxscenario',
]);

/**
 * Whether a name holds a secret, by what it means, however it is spelt: one rule for body
 * fields, query parameters and request headers. `client_secret`, `Client_Secret`,
 * `clientSecret`, `CLIENT_SECRET`, any password or passphrase, any api key, any
 * authorization, credential, cookie, session, signature or private key, any `…token` or
 * `…auth` (but not `token_type`); `X-Api-Key`, `X-Forwarded-Authorization`, `Set-Cookie`.
 * Misspelt names matter most: a client that sends one gets 401, and its secret must not then
 * sit in the journal in clear. `Idempotency-Key`, `X-Request-Id`,
 * `X-Platform-Parent-Account-Id` and `X-Sandbox-Scenario` are kept.
 */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (NEVER_SECRET.has(k)) return false;
  return (
    /secret|passw(?:or)?d|passphrase|apikey|authori[sz]ation|credential|cookie|session|signature|privatekey/.test(
      k,
    ) ||
    k.endsWith('token') ||
    k.endsWith('auth')
  );
}
