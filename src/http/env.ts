/** What the HTTP layer keeps per request, reachable from every middleware and handler. */
import type { Context } from 'hono';
import type { Endpoint } from '../scenarios/catalogue.js';
import type { FaultPlan, ServiceFaults } from '../scenarios/fault-plan.js';
import type { Principal } from '../services/tokens.js';
import type { Sandbox } from '../state/index.js';
import type { AccountRow } from '../store/accounts-table.js';

export interface AppVariables {
  sandbox: Sandbox;
  requestId: string;
  startedAt: number;
  endpoint: Endpoint | undefined;
  /** The call's fault plan (scenarios/fault-plan.ts). */
  faultPlan: FaultPlan;
  /** The service-hooked scenarios the call meets, resolved once before its handler. */
  faults: ServiceFaults;
  principal: Principal | undefined;
  /**
   * On the control plane: the partner whose access token made the call, which it acts for alone
   * (http/control-access.ts); undefined for the operator (the admin token, or none needed).
   */
  controlPartner: string | undefined;
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
  /**
   * The bytes a write's rows take as stored, as the partner's room counts them (store/sizes.ts),
   * when its handler knows them (a controls PUT): the room adds these and its stored answer's
   * without a statement. Undefined: read from the store after the write.
   */
  storedBytes: number | undefined;
  /** The Idempotency-Key this request reserved, until settled. */
  idempotencyKey: string | undefined;
  /** Whether the answer is stored under that key already, in the write's transaction (http/idempotency.ts). */
  answerStored: boolean | undefined;
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

/** A value a stage before the handler set: a missing one is a bug of the binder, never the client's. */
export function known<K extends keyof AppVariables>(
  c: Context<AppEnv>,
  key: K,
): NonNullable<AppVariables[K]> {
  const value = c.get(key);
  if (value === undefined || value === null) throw new Error(`the pipeline set no ${String(key)}`);
  return value as NonNullable<AppVariables[K]>;
}
