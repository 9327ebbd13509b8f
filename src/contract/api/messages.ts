/**
 * Error messages as named constants (or builders), shared by the code that answers
 * and the tests that check the answers. Where the spec dictates wording, it is quoted
 * in the comment.
 */

export interface PartnerPair {
  partnerVerticalId: number;
  partnerSubVerticalId: number;
}

/**
 * Spec §7: the message "begins with the statement that no vertical mapping was found
 * for the listed partner vertical pairs, lists each pair, and states that the write was
 * rejected atomically with no partial update".
 */
export const UNMAPPED_PAIRS_PREFIX = 'No vertical mapping found for the following partner vertical pairs';
export const UNMAPPED_PAIRS_SUFFIX = 'The write was rejected atomically; no partial update was applied.';
export function unmappedPairsMessage(pairs: PartnerPair[]): string {
  const listed = pairs
    .map((p) => `(partnerVerticalId=${p.partnerVerticalId}, partnerSubVerticalId=${p.partnerSubVerticalId})`)
    .join(', ');
  return `${UNMAPPED_PAIRS_PREFIX}: ${listed}. ${UNMAPPED_PAIRS_SUFFIX}`;
}

export const registerUnmappedMessage = (verticalId: number, subVerticalId: number) =>
  `No vertical mapping found for vertical_id=${verticalId}, sub_vertical_id=${subVerticalId}: the pair is not in this parent account's vertical mapping (see GET /v1/partnership/vertical-mappings).`;

export const mappingNotSeededMessage = (parentAccountId: string) =>
  `The vertical mapping of parent account ${parentAccountId} is not seeded (it is empty), so no partner vertical can be translated. The operator seeds it once per platform on request; until then registration and controls writes are rejected.`;

/**
 * A controls PUT of a parent whose mapping is empty: every pair is unmapped, so the spec
 * §7 message (every pair listed), then the note that the mapping is empty.
 */
export const unmappedPairsEmptyMappingMessage = (pairs: PartnerPair[], parentAccountId: string) =>
  `${unmappedPairsMessage(pairs)} ${mappingNotSeededMessage(parentAccountId)}`;

export const STALE_CONTENT_HASH_MESSAGE =
  'contentHash does not match the stored marketplace controls list: it was changed since you read it. Re-read the list (GET), re-apply your change to what it returns, and retry with its content_hash.';

export const MISSING_PARENT_HEADER_MESSAGE =
  'X-Platform-Parent-Account-Id header is required on every write (the partner platform parent account ID).';
export const PARENT_MISMATCH_MESSAGE =
  "X-Platform-Parent-Account-Id does not match the parent account of the access token's client credentials.";
export const MISSING_IDEMPOTENCY_KEY_MESSAGE =
  'Idempotency-Key header is required on this write: send a fresh UUID per logical retry group.';
export const IDEMPOTENCY_IN_PROGRESS_MESSAGE =
  'A request with this Idempotency-Key is still being processed: wait for Retry-After, then send the same request with the same key (its stored answer is replayed once it completes).';
export const idempotencyKeyOtherOperationMessage = (operation: string) =>
  `This Idempotency-Key was first used on ${operation}: a key belongs to the operation it was first used on and is never replayed or executed on another endpoint or account. Use a fresh key for this request.`;
export const IDEMPOTENCY_REUSED_MESSAGE =
  'This Idempotency-Key was already used with a different request (method, path, query or body). Use a fresh key for a new request.';

export const MISSING_TOKEN_MESSAGE = 'Authorization: Bearer <access token> is required.';
export const INVALID_TOKEN_MESSAGE = 'The access token is invalid.';
export const EXPIRED_TOKEN_MESSAGE = 'The access token expired; request a new one at POST /oauth/token.';
export const PROPAGATION_MESSAGE =
  'Token authentication for this newly registered account has not propagated yet. Retry every 15 to 30 seconds for up to two minutes before treating this as a failure.';

export const accountNotFoundMessage = (accountId: string) => `Account ${accountId} was not found.`;
export const layoutNotFoundMessage = (layoutId: string) =>
  `Layout ${layoutId} was not found on this account.`;

export const partialFailureMessage = (
  failed: number,
  total: number,
  requested: string,
  aggregate: string,
  requestId: string,
) =>
  `Partial failure: ${failed} of ${total} page variants could not be updated to ${requested} and kept their previous state; the account status is now ${aggregate}. Keep request_id ${requestId} and contact support.`;

/** X-Sandbox-Warning (and the journal) on a partial failure: which variants failed, by ID. */
export const partialFailureWarning = (failed: { variant_id: string; page_id: string; name: string }[]) =>
  `status-partial-failure: these variants failed and kept their previous state: ${failed
    .map((v) => `${v.variant_id} (page ${v.page_id}, ${JSON.stringify(v.name)})`)
    .join('; ')}; GET /__sandbox/accounts/{account_id} shows last_status_write`;

/** X-Sandbox-Warning on an idempotent replay (docs/api.md#idempotency). */
export const DRY_RUN_KEY_WARNING =
  'Idempotency-Key was used by a dry run: its stored dry-run response was replayed and nothing was written. Use a fresh key for the real write.';
export const DIFFERENT_PAYLOAD_WARNING =
  'Idempotency-Key was already used with a different payload: the stored response of the first request was replayed and this payload was not executed. Use a fresh key for a new request.';

/**
 * X-Sandbox-Warning of a dry-run register that would create an account: the register
 * answer has only the spec's fields, so the layout types it would create are named here.
 */
export const dryRunRegisterWarning = (pages: readonly { surface: string; layout_type: string }[]) =>
  `dry run: nothing was created; would create ${
    pages.length ? `pages ${pages.map((p) => `${p.surface}/${p.layout_type}`).join(', ')}` : 'no pages'
  }; the account_id, page_id and layout_id shown are not stored, and the real register will issue new ones`;

/** A JSON body whose bytes are not UTF-8 (RFC 8259 §8.1): 400 malformed_json. */
export const invalidUtf8Message = (byteOffset: number) =>
  `Request body is not valid UTF-8 (byte offset ${byteOffset}): JSON bodies must be UTF-8 encoded.`;

/** A JSON body nested deeper than the limit (RFC 8259 §9), refused before it is parsed: 400 malformed_json. */
export const jsonTooDeepMessage = (maxDepth: number, byteOffset: number) =>
  `Request body nests arrays and objects more than ${maxDepth} levels deep (byte offset ${byteOffset}): JSON bodies may nest at most ${maxDepth} levels.`;

// ---- field messages of the validation error (details.fields[].message) ---------------

export const REQUIRED_MESSAGE = 'is required';
export const EMPTY_MESSAGE = 'must not be empty';
export const BLANK_MESSAGE = 'must not be blank (it is only whitespace)';
/** Values are stored and compared exactly as sent: never trimmed, so never merged. */
export const EDGE_WHITESPACE_MESSAGE =
  'must not begin or end with whitespace (values are compared exactly as sent, never trimmed)';
export const UNKNOWN_FIELD_MESSAGE = 'unknown field';
export const UNKNOWN_QUERY_PARAMETER_MESSAGE = 'unknown query parameter';

/** "U+000A": how a character is named in messages (its code point, never the raw character). */
export const codePoint = (ch: string) =>
  `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

export const controlCharacterMessage = (ch: string, index: number) =>
  `must not contain control characters (${codePoint(ch)} at index ${index})`;
export const unpairedSurrogateMessage = (ch: string, index: number) =>
  `must be valid Unicode: an unpaired surrogate (${codePoint(ch)}) is at index ${index}`;
export const innerWhitespaceMessage = (ch: string, index: number) =>
  `must not contain whitespace (${codePoint(ch)} at index ${index})`;

/** The JSON type of a value as messages name it (the names zod uses). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
export const wrongTypeMessage = (expected: string, input: unknown) =>
  `expected ${expected}, received ${jsonType(input)}`;
export const notAnIntegerMessage = (value: number) =>
  Number.isInteger(value)
    ? `must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (got ${value})`
    : `must be an integer (got ${value})`;
export const negativeMessage = (value: number) => `must be 0 or greater (got ${value})`;
export const unknownFieldHint = (suggestion: string) => `unknown field; did you mean "${suggestion}"?`;
export const unknownQueryParameterHint = (suggestion: string) =>
  `unknown query parameter; did you mean "${suggestion}"?`;
export const enumMessage = (allowed: readonly string[]) =>
  `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`;
export const enumRequiredMessage = (allowed: readonly string[]) =>
  `${REQUIRED_MESSAGE}: ${enumMessage(allowed)}`;

/** dry_run: only "true" or "false"; anything else is 400, never read as false. */
export function dryRunValueMessage(value: unknown): string {
  const base = 'must be "true" or "false"';
  if (Array.isArray(value)) return `${base}, sent once (it was sent ${value.length} times)`;
  if (typeof value !== 'string') return base;
  if (value === '') return `${base} (it was sent without a value)`;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === 'false') return `${base}, in lower case (did you mean "${lower}"?)`;
  if (['1', 'yes', 'on', 'y', 't'].includes(lower)) return `${base} (did you mean "true"?)`;
  if (['0', 'no', 'off', 'n', 'f'].includes(lower)) return `${base} (did you mean "false"?)`;
  return base;
}

export const COUNTRY_CODE_MESSAGE = 'must be an ISO 3166-1 alpha-2 code in upper case (e.g. "US")';
export const countryCodeCaseMessage = (upper: string) =>
  `must be an ISO 3166-1 alpha-2 code in upper case (did you mean "${upper}"?)`;

export const CONTENT_HASH_REQUIRED_MESSAGE =
  'is required: null on the first write, then the content_hash of the latest GET or PUT';
export const contentHashTypeMessage = (input: unknown) =>
  `${wrongTypeMessage('string or null', input)}: null on the first write, then the content_hash of the latest GET or PUT`;
export const BLOCKED_VERTICALS_REQUIRED_MESSAGE = 'is required (send [] to unblock every vertical)';
export const DOMAINS_REQUIRED_MESSAGE = 'is required (send [] to unblock every domain)';

// store_identifier (spec §2.2: a valid URL including the scheme; a bare host is 400)
export const storeIdentifierNoSchemeMessage = (suggestion: string) =>
  `must be a valid URL including the scheme (e.g. "${suggestion}"); a bare host is rejected`;
export const storeIdentifierSchemeMessage = (scheme: string) =>
  `must use the http or https scheme (got "${scheme}:")`;
export const storeIdentifierSlashesMessage = (scheme: string) =>
  `must have "//" and a host after "${scheme}:" (e.g. "${scheme}://shop.example.com")`;
export const STORE_IDENTIFIER_INVALID_MESSAGE = 'is not a valid URL';
export const STORE_IDENTIFIER_HOST_MESSAGE = 'must include a host';

// domains[].domain (a bare host name; docs/where-the-spec-is-silent.md)
export const domainSchemeMessage = (suggestion: string) =>
  `must be a bare domain without a scheme (e.g. "${suggestion}")`;
export const domainEmailMessage = (suggestion: string) =>
  `must be a bare domain, not an e-mail address (e.g. "${suggestion}")`;
export const DOMAIN_PATH_MESSAGE = 'must be a bare domain without a path';
export const DOMAIN_PORT_MESSAGE = 'must be a bare domain without a port';
export const DOMAIN_NAME_MESSAGE = 'must be a valid domain name such as "example.com"';

/** A write the store refused (a full disk, a read-only store, an I/O error): core/store-health.ts. */
export const storeNotWritableMessage = (path: string, failure: { code: string; cause: string }) =>
  `The sandbox's store (SANDBOX_DB=${path === '' ? ':memory:' : path}) cannot take writes: ${failure.cause} (${failure.code}). Nothing was written; retry once the store can take writes again (free space, or make it writable).`;
export const UNSAVED_REPLAY_WARNING =
  'the store (SANDBOX_DB) could not record this answer under its Idempotency-Key (it cannot take writes): a retry with the key replays it from memory until the store takes writes again or the sandbox restarts';

export const partnerStorageFullMessage = (parent: string, usedBytes: number, limitBytes: number) =>
  `Parent account ${parent} holds ${(usedBytes / 2 ** 20).toFixed(1)} MiB of accounts (with their variants and controls lists), vertical mapping and stored answers, and this write would take it past ${(limitBytes / 2 ** 20).toFixed(0)} MiB, the most one partner may hold in the sandbox (so that its bundle always imports). Nothing was written. Reset the partner (POST /__sandbox/partners/${parent}/reset) or use another one.`;
/** A call past its partner's fair share (SANDBOX_RATE_LIMIT, docs/hosting.md). */
export const rateLimitedMessage = (perSecond: number, burst: number, seconds: number) =>
  `Too many requests: this partner may send ${perSecond} calls per second (bursts of ${burst}); retry after ${seconds} s. Nothing was applied.`;
