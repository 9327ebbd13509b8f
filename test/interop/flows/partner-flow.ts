/**
 * What a partner flow written against a generated client does, and what it reports back.
 * test/interop/generated-clients.test.ts generates a client from the served document,
 * type-checks a flow against it under `strict` and runs it against a listening sandbox.
 * Each flow (openapi-fetch.ts, hey-api.ts) implements this interface with its client only:
 * no hand-written types of the API, everything it reads comes from the generated ones.
 * (This folder is excluded from the project's tsconfig: the flows import generated code
 * that exists only in the test's temporary folder.)
 */
import { randomUUID } from 'node:crypto';

export interface FlowConfig {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  parentAccountId: string;
}

/** One HTTP exchange as the flow saw it through its client. */
export interface Attempt {
  status: number;
  /** error.code of the envelope, null on success. */
  code: string | null;
}

export interface WriteSeen {
  /** The Idempotent-Replayed response header. */
  replayed: string | null;
  /** The envelope's dry_run flag (absent on a real write). */
  dryRun: boolean | undefined;
  requestId: string;
  status: string;
}

export interface PartnerFlow {
  /** Gets a token through the generated client's token operation. */
  connect(): Promise<{ tokenType: string; expiresIn: number; scope: string | undefined }>;
  /** Registers a merchant (endpoint 2). */
  register(externalAccountId: string): Promise<{ accountId: string; pageIds: string[]; surfaces: string[] }>;
  /**
   * Spec rule 5: GET, build the body from the Block entries of translated_verticals (each
   * sub-vertical mapped back to its parent vertical through GET vertical-mappings), add
   * one entry, keep domains, pass content_hash, PUT; on a 409 content_hash_mismatch
   * re-read, re-apply and retry with the same key. `firstAttemptScenario` goes in
   * X-Sandbox-Scenario on the first PUT only.
   */
  addBlockedVertical(
    accountId: string,
    add: { partnerVerticalId: number; partnerSubVerticalId: number },
    firstAttemptScenario?: string,
  ): Promise<{ attempts: Attempt[]; blocked: number[]; domains: string[] }>;
  /**
   * A status write as a dry run, then the same key again without dry_run (the dry run is
   * replayed: a dry run caches its key), then a fresh key (the real write); the status is
   * read after each.
   */
  dryRunThenFreshKey(
    accountId: string,
    status: 'active' | 'paused',
  ): Promise<{
    dryRun: WriteSeen;
    afterDryRun: string;
    sameKey: WriteSeen;
    afterSameKey: string;
    freshKey: WriteSeen;
    afterFreshKey: string;
  }>;
  /** A status write (endpoint 5), with X-Sandbox-Scenario when given. */
  setStatus(
    accountId: string,
    status: 'active' | 'paused',
    scenario?: string,
  ): Promise<{
    httpStatus: number;
    code: string | null;
    details: Record<string, unknown> | undefined;
    message: string;
    status: string;
    variants: { name: string; status: string }[];
  }>;
  /** The aggregate status (endpoint 6). */
  readStatus(accountId: string): Promise<string>;
}

/**
 * The dry-run key trap of spec rule 4, the same for every client: a dry run, the same key
 * without dry_run (replayed), then a fresh key (the real write), the status read after each.
 */
export async function dryRunKeyTrap(
  putStatus: (
    accountId: string,
    status: 'active' | 'paused',
    key: string,
    dryRun: boolean,
  ) => Promise<WriteSeen>,
  readStatus: (accountId: string) => Promise<string>,
  accountId: string,
  status: 'active' | 'paused',
): ReturnType<PartnerFlow['dryRunThenFreshKey']> {
  const key = randomUUID();
  const dryRun = await putStatus(accountId, status, key, true);
  const afterDryRun = await readStatus(accountId);
  const sameKey = await putStatus(accountId, status, key, false);
  const afterSameKey = await readStatus(accountId);
  const freshKey = await putStatus(accountId, status, randomUUID(), false);
  const afterFreshKey = await readStatus(accountId);
  return { dryRun, afterDryRun, sameKey, afterSameKey, freshKey, afterFreshKey };
}
