/**
 * Client secrets at rest (SANDBOX.md §10): the store and bundles keep a partner's secret
 * only as a salted scrypt hash, never in clear.
 *
 * scrypt (RFC 7914) with N = 2^14, r = 8, p = 1 (16 MiB, RFC 7914's interactive-login
 * cost and Node's default), a random 16-byte salt per secret, a 32-byte key. A bundle is
 * an artifact many can read; a generated secret (238 random bits) would be safe under any
 * hash, but a secret a partner chose may be guessable, and a slow, memory-hard hash is
 * what keeps a dictionary off it. One hash costs about 50 ms of one core, so:
 * - it runs on libuv's thread pool (`scrypt`, not `scryptSync`) on request paths, and
 *   never holds up other requests;
 * - a secret that matched once is remembered, in this process only, as an HMAC under a
 *   key drawn at start-up (never the secret), by the hash it matched: the next token call
 *   of that client costs one HMAC. The memo is a function of the stored hash alone (a
 *   random salt makes it one partner's), so it needs no invalidation: a partner replaced,
 *   reset or restored with another secret has another hash.
 */
import { createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

/** The one algorithm (and its cost) a stored secret names; a bundle's must be this. */
export const SECRET_ALGORITHM = 'scrypt-n16384-r8-p1';
const PARAMS = { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** A secret as it is kept: hex salt and hex scrypt key. */
export interface SecretHash {
  algorithm: typeof SECRET_ALGORITHM;
  salt: string;
  hash: string;
}

/** Hashes a secret with a fresh salt, synchronously (start-up, migrations, bundle import). */
export function hashSecretSync(secret: string): SecretHash {
  const stored = hashOf(secret);
  remember(stored, secret);
  return stored;
}

function hashOf(secret: string): SecretHash {
  const salt = randomBytes(SALT_BYTES);
  const hash = scryptSync(secret, salt, KEY_BYTES, PARAMS).toString('hex');
  return { algorithm: SECRET_ALGORITHM, salt: salt.toString('hex'), hash };
}

/** Hashes a secret with a fresh salt, off the event loop. */
export async function hashSecret(secret: string): Promise<SecretHash> {
  const salt = randomBytes(SALT_BYTES);
  const hash = (await derive(secret, salt)).toString('hex');
  const stored = { algorithm: SECRET_ALGORITHM, salt: salt.toString('hex'), hash } as const;
  remember(stored, secret);
  return stored;
}

function derive(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_BYTES, PARAMS, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const memoKey = randomBytes(32);
const MEMO_MAX = 10_000;
/** The hash a secret matched → the HMAC of that secret (this process only). */
const matched = new Map<string, Buffer>();
const proof = (secret: string) => createHmac('sha256', memoKey).update(secret).digest();

function remember(stored: SecretHash, secret: string): void {
  if (matched.size >= MEMO_MAX) matched.clear();
  matched.set(stored.hash, proof(secret));
}

/** Stands in for an unknown client, so an unknown client_id costs what a wrong secret does. */
let dummy: SecretHash | undefined;

/**
 * Whether `secret` is the one `stored` was made from (undefined: an unknown client, checked
 * against a dummy so that timing does not tell which part was wrong). Constant-time compares.
 */
export async function secretMatches(stored: SecretHash | undefined, secret: string): Promise<boolean> {
  dummy ??= hashOf(randomBytes(24).toString('hex'));
  const known = stored ?? dummy;
  const memo = matched.get(known.hash);
  if (memo && timingSafeEqual(memo, proof(secret))) return stored !== undefined;
  const key = await derive(secret, Buffer.from(known.salt, 'hex'));
  const expected = Buffer.from(known.hash, 'hex');
  const ok = key.length === expected.length && timingSafeEqual(key, expected);
  if (ok && stored) remember(stored, secret);
  return ok && stored !== undefined;
}
