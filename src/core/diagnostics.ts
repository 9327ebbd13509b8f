/**
 * Diagnostics that coach an integration (issue: "warnings that coach"): each notices a
 * habit the real service would punish later and says so in `X-Sandbox-Warning` (and the
 * journal). They never change an answer. The idempotency replay warnings live with the
 * idempotency layer; the missing parent header on reads with the parent-header check.
 */

/** Spec §5.5: retry every 15 to 30 s. */
export const PROPAGATION_MIN_RETRY_SECONDS = 15;
const TOKEN_BURST_WINDOW_MS = 60_000;
const TOKEN_BURST_THRESHOLD = 3;
const HASHES_REMEMBERED = 256;

export const propagationRetryWarning = (seconds: number) =>
  `retried ${seconds.toFixed(1)} s after a propagation 401/403 for this account; the spec advises retrying every 15 to 30 seconds for up to two minutes`;
export const UNSEEN_HASH_WARNING =
  'contentHash was never returned to this client by a GET or PUT of this list; pass back the content_hash of the latest GET or PUT';
export const tokenBurstWarning = (count: number) =>
  `this client requested ${count} access tokens in the last 60 s; reuse a token until it expires (expires_in) instead of requesting one per call`;

/** How soon after a connection-reset drill the same request counts as a client's silent retry. */
const SILENT_RETRY_WINDOW_MS = 2_000;
export const silentRetryWarning = (ms: number) =>
  `this request repeats one that the connection-reset drill cut off ${ms} ms ago: your HTTP client retried it on a new connection without telling the caller (Go's net/http does this for a GET or a request with Idempotency-Key on a reused keep-alive connection), so the drill never reached your code; disable keep-alives (Go: Transport.DisableKeepAlives) to see the reset`;

export class Diagnostics {
  /** "client method path" -> real time (ms) of the connection-reset drill that cut it off. */
  readonly #resets = new Map<string, number>();
  /** account -> {answers, last} of propagation 401/403s (sandbox clock ms). */
  readonly #propagation = new Map<string, { answers: number; last: number }>();
  /** client -> content hashes it was shown (insertion-ordered: the oldest is dropped first). */
  readonly #hashes = new Map<string, Set<string>>();
  /** client -> grant times (oldest first) from `head` on; older ones are dropped as time passes. */
  readonly #grants = new Map<string, { times: number[]; head: number }>();

  /** Records a propagation answer; returns its ordinal (0, 1, …) and a warning if the retry came too soon. */
  propagationAnswer(accountId: string, now: number): { ordinal: number; warning?: string } {
    const seen = this.#propagation.get(accountId);
    this.#propagation.set(accountId, { answers: (seen?.answers ?? 0) + 1, last: now });
    if (!seen) return { ordinal: 0 };
    const seconds = (now - seen.last) / 1000;
    return seconds < PROPAGATION_MIN_RETRY_SECONDS
      ? { ordinal: seen.answers, warning: propagationRetryWarning(seconds) }
      : { ordinal: seen.answers };
  }

  /** The content hash a client was shown (GET or PUT answer of the controls list). */
  hashShown(clientId: string, hash: string): void {
    let seen = this.#hashes.get(clientId);
    if (!seen) {
      seen = new Set();
      this.#hashes.set(clientId, seen);
    }
    seen.delete(hash);
    seen.add(hash);
    if (seen.size > HASHES_REMEMBERED) seen.delete(seen.values().next().value!);
  }

  /** A warning when a PUT sends a hash this client was never shown (null is the documented first write). */
  hashSent(clientId: string, hash: string | null): string | undefined {
    if (hash === null) return undefined;
    return this.#hashes.get(clientId)?.has(hash) ? undefined : UNSEEN_HASH_WARNING;
  }

  /** A warning when a client requests tokens in a burst instead of reusing one. */
  tokenGranted(clientId: string, now: number): string | undefined {
    let grants = this.#grants.get(clientId);
    if (!grants) {
      grants = { times: [], head: 0 };
      this.#grants.set(clientId, grants);
    }
    const { times } = grants;
    // The sandbox clock can be set back: then the window starts again from this grant.
    if (times.length > grants.head && times[times.length - 1]! > now) grants.head = times.length;
    while (grants.head < times.length && now - times[grants.head]! >= TOKEN_BURST_WINDOW_MS) grants.head++;
    if (grants.head > 1024 && grants.head * 2 > times.length) {
      times.splice(0, grants.head);
      grants.head = 0;
    }
    times.push(now);
    const count = times.length - grants.head;
    return count >= TOKEN_BURST_THRESHOLD ? tokenBurstWarning(count) : undefined;
  }

  /** A connection-reset drill cut this request off (real time: a silent retry follows at once). */
  connectionReset(request: string, realNow: number): void {
    this.#resets.delete(request);
    this.#resets.set(request, realNow);
    if (this.#resets.size > 1024) this.#resets.delete(this.#resets.keys().next().value!);
  }

  /** A warning when this request repeats one a reset drill cut off a moment ago (a silent client retry). */
  afterReset(request: string, realNow: number): string | undefined {
    const at = this.#resets.get(request);
    if (at === undefined) return undefined;
    this.#resets.delete(request);
    const ms = realNow - at;
    return ms <= SILENT_RETRY_WINDOW_MS ? silentRetryWarning(ms) : undefined;
  }

  /** Forgets what was noticed about these accounts and this client (a partner reset). */
  forget(accountIds: Iterable<string>, clientId: string | undefined): void {
    for (const id of accountIds) this.#propagation.delete(id);
    if (clientId !== undefined) {
      this.#hashes.delete(clientId);
      this.#grants.delete(clientId);
    }
  }

  clear(): void {
    this.#resets.clear();
    this.#propagation.clear();
    this.#hashes.clear();
    this.#grants.clear();
  }
}
