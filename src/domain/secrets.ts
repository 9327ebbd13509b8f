/**
 * Client secrets at rest (docs/parallel-tests.md): the store and bundles keep a partner's secret
 * only as a salted hash, never in clear. A bundle is an artifact many can read, so the hash
 * must not give the secret back to someone who guesses:
 *
 * - A secret a person chose (a fixtures folder of one's own, one given to POST /__sandbox/partners) may be
 *   guessable: scrypt (RFC 7914), N = 2^14, r = 8, p = 1 (16 MiB: RFC 7914's interactive
 *   cost and Node's default), a random 16-byte salt, a 32-byte key. About 50 ms of one core
 *   each (85 ms on a loaded 2-core machine), which is what keeps a dictionary off it.
 * - A secret published for all to read (the package's own fixtures, printed in the README)
 *   protects nothing whatever the hash: salted SHA-256 too, so a start-up costs no scrypt.
 * - A secret of the form the sandbox generates (`secret_` and 40 random URL-safe characters:
 *   238 bits) cannot be guessed whatever the hash: salted SHA-256, a few microseconds. A
 *   slow hash would add nothing there but 50 ms to every POST /__sandbox/partners, the call
 *   docs/parallel-tests.md has each test make.
 *
 * On request paths scrypt runs on libuv's thread pool (`scrypt`, not `scryptSync`), so it
 * never holds up other requests. A secret that matched once is remembered, in this process
 * only, as an HMAC under a key drawn at start-up (never the secret), by the hash it matched:
 * the next token call of that client costs one HMAC, not one scrypt. The memo is a function
 * of the stored hash alone (a random salt makes it one partner's), so it needs no
 * invalidation: a partner replaced, reset or restored with another secret has another hash.
 */
import { createHash, createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { GENERATED_CLIENT_SECRET } from './ids.js';

/** The algorithms a stored secret names (a bundle's must be one of them). */
export const SECRET_ALGORITHMS = ['scrypt-n16384-r8-p1', 'sha256-salted'] as const;
export type SecretAlgorithm = (typeof SECRET_ALGORITHMS)[number];
const [SCRYPT, SHA256] = SECRET_ALGORITHMS;
const PARAMS = { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** A secret as it is kept: the algorithm, hex salt, hex key (32 bytes either way). */
export interface SecretHash {
  algorithm: SecretAlgorithm;
  salt: string;
  hash: string;
}

/** The algorithm a secret is kept with: the slow one unless the secret is too long a shot to guess. */
export const algorithmFor = (secret: string): SecretAlgorithm =>
  GENERATED_CLIENT_SECRET.test(secret) ? SHA256 : SCRYPT;

const sha256 = (secret: string, salt: Buffer) => createHash('sha256').update(salt).update(secret).digest();

function deriveSync(algorithm: SecretAlgorithm, secret: string, salt: Buffer): Buffer {
  return algorithm === SHA256 ? sha256(secret, salt) : scryptSync(secret, salt, KEY_BYTES, PARAMS);
}

function derive(algorithm: SecretAlgorithm, secret: string, salt: Buffer): Promise<Buffer> {
  if (algorithm === SHA256) return Promise.resolve(sha256(secret, salt));
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_BYTES, PARAMS, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const stored = (algorithm: SecretAlgorithm, salt: Buffer, key: Buffer): SecretHash => ({
  algorithm,
  salt: salt.toString('hex'),
  hash: key.toString('hex'),
});

/**
 * Hashes a secret with a fresh salt, synchronously (start-up, migrations, bundle import).
 * `published`: a secret printed for all to read (the package's own fixtures): the fast hash.
 */
export function hashSecretSync(secret: string, { published = false } = {}): SecretHash {
  const algorithm = published ? SHA256 : algorithmFor(secret);
  const salt = randomBytes(SALT_BYTES);
  return remember(stored(algorithm, salt, deriveSync(algorithm, secret, salt)), secret);
}

/** Hashes a secret with a fresh salt, off the event loop. */
export async function hashSecret(secret: string): Promise<SecretHash> {
  const algorithm = algorithmFor(secret);
  const salt = randomBytes(SALT_BYTES);
  return remember(stored(algorithm, salt, await derive(algorithm, secret, salt)), secret);
}

const memoKey = randomBytes(32);
const MEMO_MAX = 10_000;
/** The hash a secret matched → the HMAC of that secret (this process only). */
const matched = new Map<string, Buffer>();
const proof = (secret: string) => createHmac('sha256', memoKey).update(secret).digest();

function remember(hash: SecretHash, secret: string): SecretHash {
  if (matched.size >= MEMO_MAX) matched.clear();
  matched.set(hash.hash, proof(secret));
  return hash;
}

/**
 * Stands in for an unknown client (scrypt: an unknown client_id costs what a person's wrong
 * secret does). Made on the thread pool the first time one is needed, never at start-up.
 */
let dummy: Promise<SecretHash> | undefined;
function dummyHash(): Promise<SecretHash> {
  dummy ??= (async () => {
    const salt = randomBytes(SALT_BYTES);
    return stored(SCRYPT, salt, await derive(SCRYPT, randomBytes(24).toString('hex'), salt));
  })();
  return dummy;
}

/**
 * Whether `secret` is the one `hash` was made from (undefined: an unknown client, checked
 * against a dummy so that timing does not tell which part was wrong). Constant-time compares.
 */
export async function secretMatches(hash: SecretHash | undefined, secret: string): Promise<boolean> {
  const known = hash ?? (await dummyHash());
  const memo = matched.get(known.hash);
  if (memo && timingSafeEqual(memo, proof(secret))) return hash !== undefined;
  const key = await derive(known.algorithm, secret, Buffer.from(known.salt, 'hex'));
  const expected = Buffer.from(known.hash, 'hex');
  const ok = key.length === expected.length && timingSafeEqual(key, expected);
  if (ok && hash) remember(hash, secret);
  return ok && hash !== undefined;
}
