/** What the HTTP layer keeps per request, reachable from every middleware and handler. */
import type { Sandbox } from '../core/state.js';
import type { Endpoint } from '../scenarios/catalogue.js';
import type { ScenarioContext } from '../scenarios/context.js';
import type { Principal } from '../services/auth.js';
import type { AccountRow } from '../store/accounts.js';

export interface AppVariables {
  sandbox: Sandbox;
  requestId: string;
  startedAt: number;
  endpoint: Endpoint | undefined;
  scenarios: ScenarioContext;
  principal: Principal | undefined;
  account: AccountRow | undefined;
  /** The caller's own account this call concerns (the journal files the call under it). */
  accountId: string | undefined;
  warnings: string[];
  /** The raw request body, read once (journal, idempotency fingerprint, JSON parse). */
  rawBody: string | null;
  dryRun: boolean;
  /** The parsed JSON body of a write (parsed once, by jsonBody). */
  jsonBody: unknown;
  /**
   * What the answer's JSON body is (object or text), recorded by the one writer that
   * produced it: the journal and the idempotency store read it instead of copying the
   * response stream.
   */
  responseBody: unknown;
  /** The answer's body text as `send` wrote it (what the idempotency store keeps). */
  responseText: string | undefined;
  /** The Idempotency-Key this request reserved, until settled. */
  idempotencyKey: string | undefined;
  /**
   * Whether the connection is gone with no answer from the app (journaled as 0): the
   * connection-reset scenario closed it, or the request body was cut off (read-body.ts).
   */
  connectionReset: boolean;
  /** Whether `send` wrote the answer with all its headers (requestContext adds none). */
  headersSent: boolean;
  /** The headers `send` wrote (lower-case names), as the journal keeps them. */
  responseHeaders: Readonly<Record<string, string>> | undefined;
  /** Whether this request is a partnership or token call the journal records. */
  journaled: boolean;
}

export interface AppEnv {
  Variables: AppVariables;
}
