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
