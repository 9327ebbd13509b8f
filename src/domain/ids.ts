/** Identifier formats. UUID-like where the spec says so (page, layout, list, request). */
import { randomUUID } from 'node:crypto';
import { customAlphabet, nanoid } from 'nanoid';

const lowerAlnum = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20);

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Stored
 * rows keyed by it are inserted at the end of their indexes, not scattered across them,
 * which keeps writes cheap in a large store. The random bits are those of a v4 UUID
 * from `randomUUID()` (a CSPRNG, drawn from Node's buffered pool: one `randomBytes`
 * call per ID cost about 15 µs here), with its version nibble set to 7; its variant
 * bits are already RFC 9562's.
 */
export function uuidv7(now = Date.now()): string {
  const random = randomUUID(); // 8-4-4-4-12 hex digits; the version digit (4) at index 14
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}

/** Time-ordered account IDs for the same reason: 9 base-36 characters of time, 11 random. */
const accountId = () => `acct_${Date.now().toString(36).padStart(9, '0')}${lowerAlnum().slice(0, 11)}`;

/**
 * A client secret of the form `ids.clientSecret()` makes: `secret_` and 40 characters of
 * nanoid's 64-letter URL-safe alphabet from a CSPRNG (238 bits, far past any guessing).
 */
export const GENERATED_CLIENT_SECRET = /^secret_[A-Za-z0-9_-]{40}$/;

export const ids = {
  account: accountId,
  page: () => uuidv7(),
  layout: () => uuidv7(),
  variant: () => uuidv7(),
  controlsList: () => uuidv7(),
  request: () => randomUUID(),
  pageIdentifier: (surface: string) => `${surface}_${lowerAlnum().slice(0, 12)}`,
  /** Access tokens: 43 URL-safe random characters (~256 bits) from a CSPRNG. */
  accessToken: () => `sbx_${nanoid(43)}`,
  clientId: () => `client_${lowerAlnum()}`,
  clientSecret: () => `secret_${nanoid(40)}`,
  parentAccount: () => `pa_${lowerAlnum()}`,
};
