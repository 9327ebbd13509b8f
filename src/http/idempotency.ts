/**
 * The idempotency layer for every write that needs a key (spec rule 4, docs/api.md#idempotency):
 * keys scoped to (parent, key) for 24 h of the sandbox clock; a stored key replays the
 * stored response with `Idempotent-Replayed: true`, even for a different payload (with
 * a warning; 422 in strict mode). Only 2xx results are stored: validation errors, 409s
 * and injected faults leave the key free.
 */
import { hash } from 'node:crypto';
import type { Context } from 'hono';
import { ApiError, validationError } from '../contract/api/errors.js';
import {
  DIFFERENT_PAYLOAD_WARNING,
  DRY_RUN_KEY_WARNING,
  IDEMPOTENCY_IN_PROGRESS_MESSAGE,
  IDEMPOTENCY_REUSED_MESSAGE,
  idempotencyKeyOtherOperationMessage,
  MISSING_IDEMPOTENCY_KEY_MESSAGE,
  UNSAVED_REPLAY_WARNING,
} from '../contract/api/messages.js';
import { storageFailure } from '../core/store-health.js';
import { canonical } from '../domain/canonical-json.js';
import { send } from './answer-writer.js';
import { type AppEnv, known } from './env.js';
import { requestHeader } from './request-headers.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const WINDOW_MS = 24 * 60 * 60 * 1000;
/** What a 409 idempotency_key_in_progress asks the client to wait before the same request again. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/**
 * What makes two requests on one operation "the same": dry_run and the JSON body as
 * canonical JSON (object keys sorted, whitespace aside), so the same object with its keys
 * in another order is the same payload.
 */
function fingerprint(dryRun: boolean, body: unknown): string {
  // A body is at most MAX_JSON_DEPTH deep (http/json.ts), so re-serialising it cannot overflow.
  const payload = JSON.stringify(canonical(body ?? null));
  return hash('sha256', `dry_run=${dryRun}\n${payload}`); // one call: no Hash object
}

const inProgress = () =>
  new ApiError('idempotency_key_in_progress', IDEMPOTENCY_IN_PROGRESS_MESSAGE, {
    headers: { 'Retry-After': String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
    details: { header: IDEMPOTENCY_HEADER, retry_after_seconds: IN_PROGRESS_RETRY_AFTER_SECONDS },
  });

/**
 * Before the handler: a stored key answers with its stored response; a new key is
 * reserved (in progress) for this request, and `settleKey` completes or frees it.
 */
export function claimKey(c: Context<AppEnv>): Response | undefined {
  const s = c.get('sandbox');
  const parent = known(c, 'principal').parent_account_id;
  const key = requestHeader(c, IDEMPOTENCY_HEADER)?.trim();
  if (!key) {
    throw new ApiError('missing_idempotency_key', MISSING_IDEMPOTENCY_KEY_MESSAGE, {
      details: { header: IDEMPOTENCY_HEADER },
    });
  }
  if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    // Two header lines reach us joined by ", " (RFC 9110 §5.3): say so, not "bad characters".
    const twice = /^[\x21-\x7e]+(?:, *[\x21-\x7e]+)+$/.test(key);
    throw validationError([
      {
        field: IDEMPOTENCY_HEADER,
        message: twice
          ? 'was sent more than once: send one key per request'
          : 'must be 1 to 255 visible ASCII characters (a UUID)',
      },
    ]);
  }
  const dryRun = c.get('dryRun');
  const operation = `${c.req.method} ${c.req.path}`;
  const print = fingerprint(dryRun, c.get('jsonBody'));
  const now = s.clock.now(parent); // the partner's clock: its window

  // One statement claims a new key; a held key's row comes back (a replay, or in progress).
  const stored = s.store.idempotency.claim(
    {
      parent_account_id: parent,
      key,
      operation,
      fingerprint: print,
      dry_run: dryRun ? 1 : 0,
      expires_at: now + WINDOW_MS,
    },
    now,
  );
  if (stored === false) throw inProgress();
  if (stored !== true) {
    // A key belongs to the operation it was first used on: elsewhere it neither replays
    // that other answer (another shape) nor executes, in every mode.
    if (stored.operation !== '' && stored.operation !== operation) {
      const [method, path] = stored.operation.split(' ');
      throw new ApiError('idempotency_key_reused', idempotencyKeyOtherOperationMessage(stored.operation), {
        details: { header: IDEMPOTENCY_HEADER, first_used: { method, path } },
      });
    }
    if (stored.state !== 'done') throw inProgress();
    const same = stored.fingerprint === print;
    if (!same && s.config.strictIdempotency) {
      throw new ApiError('idempotency_key_reused', IDEMPOTENCY_REUSED_MESSAGE, {
        details: { header: IDEMPOTENCY_HEADER },
      });
    }
    if (stored.dry_run === 1 && !dryRun) c.get('warnings').push(DRY_RUN_KEY_WARNING);
    else if (!same) c.get('warnings').push(DIFFERENT_PAYLOAD_WARNING);
    c.set('responseBody', stored.body);
    return send(c, stored.status ?? 200, stored.body ?? '', { [REPLAYED_HEADER]: 'true' });
  }

  // Expired keys go as new ones come (an indexed range delete), so the table stays bounded.
  // By the global clock: no partner's clock is behind it, so no live key of any partner (nor
  // the one just claimed) goes.
  if (s.store.idempotency.prune(s.clock.now()) > 0) s.store.sizes.shrank();
  c.set('idempotencyKey', key);
  return undefined;
}

/**
 * Inside a handler's transaction, once `send` wrote its answer: a 2xx answer is stored under the
 * key this request reserved, in that transaction, so the write and its stored answer commit
 * together or neither does (an error thrown rolls both back and `settleKey` frees the key: a
 * retry with the key runs the write once). A store that refuses the answer alone leaves it to
 * `settleKey` (kept in memory, replayed), the write standing.
 */
export function keepAnswer<R extends Response>(c: Context<AppEnv>, answer: R): R {
  const key = c.get('idempotencyKey');
  const text = c.get('responseText');
  if (key === undefined || text === undefined || answer.status < 200 || answer.status >= 300) return answer;
  const store = c.get('sandbox').store;
  try {
    store.idempotency.complete(known(c, 'principal').parent_account_id, key, answer.status, text);
  } catch (err) {
    if (!storageFailure(err)) throw err;
    return answer;
  }
  // Settled once it commits (a commit that fails leaves the key to settleKey, to free).
  store.committed(() => c.set('answerStored', true));
  return answer;
}

/**
 * After the handler (or its failure): a 2xx answer written by `send` is stored under the
 * reserved key (unless `answerWithWrite` stored it with the write); anything else (an error
 * thrown, a non-2xx, a reset connection, which answers nothing) frees the key. False when
 * the store refused it (kept in memory meanwhile).
 */
export function settleKey(c: Context<AppEnv>, answer: Response | undefined): boolean {
  const key = c.get('idempotencyKey');
  if (key === undefined) return true;
  c.set('idempotencyKey', undefined);
  if (c.get('answerStored') === true) return true;
  const store = c.get('sandbox').store.idempotency;
  const parent = known(c, 'principal').parent_account_id;
  const text = c.get('responseText');
  const success = answer && text !== undefined && answer.status >= 200 && answer.status < 300;
  try {
    if (success) store.complete(parent, key, answer.status, text);
    else store.release(parent, key);
    return true;
  } catch (err) {
    // The store refused it (a full disk): the key is settled in memory until it takes writes
    // (store/idempotency-table.ts), and the answer stands: a success was written, an error was not.
    if (!c.get('sandbox').storeHealth.refused(err)) throw err;
    if (success) c.get('warnings').push(UNSAVED_REPLAY_WARNING);
    return false;
  }
}
