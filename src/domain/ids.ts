/** Identifier formats. UUID-like where the spec says so (page, layout, list, request). */
import { randomBytes, randomUUID } from 'node:crypto';
import { customAlphabet, nanoid } from 'nanoid';

const lowerAlnum = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20);

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Stored
 * rows keyed by it are inserted at the end of their indexes, not scattered across them,
 * which keeps writes cheap in a large store.
 */
export function uuidv7(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Time-ordered account IDs for the same reason: 9 base-36 characters of time, 11 random. */
const accountId = () => `acct_${Date.now().toString(36).padStart(9, '0')}${lowerAlnum().slice(0, 11)}`;

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
