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

/**
 * How soon after a connection-reset drill the same request counts as the HTTP library's own
 * resend: libraries resend within a few ms of the reset (0 to 13 ms measured; the JDK's first up to
 * 40 ms in a JVM just started), a caller's deliberate retry backs off (docs/other-languages.md). A repeat later than this is the caller's and gets no warning.
 */
export const LIBRARY_RESEND_WINDOW_MS = 100;
/** How every silent-retry warning begins (the report recognises a library's resend by it). */
export const SILENT_RETRY_PREFIX = 'this request repeats one that the connection-reset drill cut off';

/**
 * What stops the resend, for the HTTP client the User-Agent names (each verified by the
 * examples under examples/ and docs/other-languages.md); a generic line for any other.
 */
const RESEND_ADVICE: { client: RegExp; advice: string }[] = [
  {
    client: /\bGo-http-client\//,
    advice:
      "Go's net/http resends a GET, HEAD or a request with an Idempotency-Key that fails on a reused keep-alive connection: drill with Transport.DisableKeepAlives = true to see the reset",
  },
  {
    client: /^Ruby\b/,
    advice:
      "Ruby's Net::HTTP resends a GET, HEAD, PUT, DELETE, OPTIONS or TRACE once when the connection fails (max_retries is 1 by default): set http.max_retries = 0 to see the reset",
  },
  {
    client: /\bFaraday\b/,
    advice:
      "Faraday's retry middleware resends the errors it is told to retry at once (its interval is 0 by default): give it an interval (interval: 0.5) so that a resend is a deliberate retry, or leave Faraday::ConnectionFailed out of its exceptions to see the reset (its net_http adapter already sets Net::HTTP's max_retries = 0)",
  },
  {
    client: /\bGuzzleHttp\b|\bcurl\/|\blibcurl\b|\bPHP\b/i,
    advice:
      "libcurl (PHP's curl and Guzzle) resends any request, a POST included, that fails on a reused connection before an answer: set CURLOPT_FORBID_REUSE (Guzzle: 'curl' => [CURLOPT_FORBID_REUSE => true]) or use a fresh handle for the drill to see the reset",
  },
  {
    client: /\bJava-http-client\//,
    advice:
      'the JDK HttpClient resends a GET or HEAD once when the connection fails before an answer, on a new connection as on a pooled one (every method with -Djdk.httpclient.enableAllMethodRetry=true): start the JVM with -Djdk.httpclient.redirects.retrylimit=1 to see the reset (an IOException "Too many retries"; it also allows one redirect only)',
  },
  {
    client: /\bpython-requests\/|\burllib3\b/i,
    advice:
      'urllib3 (under requests) resends what its Retry allows on a connection error: mount Retry(total=0) (requests: HTTPAdapter(max_retries=Retry(total=0))) for the drill to see the reset',
  },
];
const GENERIC_RESEND_ADVICE =
  "many HTTP libraries resend a request that fails on a reused keep-alive connection: turn off the library's automatic retries or its connection reuse for the drill to see the reset";

export const resendAdvice = (userAgent: string | undefined) =>
  RESEND_ADVICE.find((a) => userAgent !== undefined && a.client.test(userAgent))?.advice ??
  GENERIC_RESEND_ADVICE;

export const silentRetryWarning = (ms: number, userAgent: string | undefined) =>
  `${SILENT_RETRY_PREFIX} ${ms} ms ago: your HTTP client sent it again on its own, without telling the caller, so the drill never reached your code; ${resendAdvice(userAgent)}`;

export class Diagnostics {
  /** "client method path+query key-or-body" -> real time (ms) of the connection-reset drill that cut it off. */
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

  /** Whether any reset drill is still waiting for its resend (else no request needs its identity computed). */
  resetsPending(): boolean {
    return this.#resets.size > 0;
  }

  /**
   * A warning when this request repeats one a reset drill cut off within
   * LIBRARY_RESEND_WINDOW_MS (the HTTP library's own resend); a later repeat is the caller's.
   */
  afterReset(request: string, realNow: number, userAgent: string | undefined): string | undefined {
    const at = this.#resets.get(request);
    if (at === undefined) return undefined;
    this.#resets.delete(request);
    const ms = realNow - at;
    return ms <= LIBRARY_RESEND_WINDOW_MS ? silentRetryWarning(ms, userAgent) : undefined;
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
