/**
 * The integration report: reads the journal of one parent account and tells which
 * documented behaviours the integration exercised and how it reacted. JSON, or JUnit XML
 * that CI systems display.
 */

import { DRY_RUN_KEY_WARNING } from '../contract/api/messages.js';
import { xmlText } from '../domain/xml.js';
import { PROPAGATION_MIN_RETRY_SECONDS, SILENT_RETRY_PREFIX } from './diagnostics.js';
import type { JournalEntry } from './journal.js';
import { ADDITIVE, additiveResilience } from './report-additive.js';

export type Outcome = 'passed' | 'failed' | 'not_exercised';

export interface Check {
  id: string;
  title: string;
  outcome: Outcome;
  evidence: string[];
  /** What to do next: how to exercise a check not exercised, how to fix a failed one; null once passed. */
  next: string | null;
}

/** How the client met what chaos injected (docs/chaos.md), for one scenario. */
export interface Resilience {
  scenario: string;
  injected: number;
  /** Its next call of the same method and path succeeded (2xx), after Retry-After where one was sent. */
  recovered: number;
  /**
   * Of the injected failures, those the HTTP library resent on its own within
   * LIBRARY_RESEND_WINDOW_MS: the call succeeded, but the caller's code never saw the failure.
   */
  recovered_by_http_client: number;
  /** passed: every one recovered by the caller; recovered_by_http_client: some never reached it; failed: one not recovered. */
  outcome: 'passed' | 'failed' | 'recovered_by_http_client';
  evidence: string[];
}

export interface Report {
  parent_account_id: string;
  /** The cell that answered (SANDBOX_CELL, docs/hosting.md); absent when none is set. */
  cell?: string;
  generated_at: string;
  requests_analyzed: number;
  summary: Record<Outcome, number>;
  checks: Check[];
  /**
   * One entry per scenario chaos injected into this partner's calls (none without chaos), and
   * one for additive-changes when calls got it (by header, armed or chaos: report-additive.ts).
   */
  resilience: Resilience[];
}

interface Parsed extends JournalEntry {
  at: number;
  body: { status?: number; error?: { code?: string } | null; data?: Record<string, unknown> | null } | null;
  requestJson: Record<string, unknown> | null;
}

const REGISTER = '/v1/accounts/register/partnership';
const isControls = (e: Parsed) => e.path.endsWith('/marketplacecontrolslists');
const isStatus = (e: Parsed) => e.path.endsWith('/status');
const code = (e: Parsed) => e.body?.error?.code;
const ok = (e: Parsed) => e.status >= 200 && e.status < 300 && code(e) !== 'partial_failure';
const label = (e: Parsed) =>
  `#${e.id} ${e.method} ${e.path} -> ${e.status}${code(e) ? ` ${code(e)}` : ''} (request_id ${e.request_id})`;

function parse(entries: JournalEntry[]): Parsed[] {
  const json = (text: string | null) => {
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      return null;
    }
  };
  return entries
    .map((e) => ({
      ...e,
      at: Date.parse(e.partner_time ?? e.time), // the partner's clock: its windows run on it
      body: json(e.response_body),
      requestJson: json(e.request_body),
    }))
    .sort((a, b) => a.id - b.id);
}

type CheckId = keyof typeof NEXT;

/**
 * What a partner does next about each check (docs/journal-and-report.md): a check not
 * exercised says how to exercise it (the drill that triggers it, then what a client should
 * do), a failed one what its client must do instead.
 */
export const NEXT = {
  'registered-idempotently': {
    not_exercised:
      'Register one external_account_id twice with the same body (as a retry after a timeout does): the second POST /v1/accounts/register/partnership must answer the same account_id.',
    failed:
      'Send the same fields on every register of one external_account_id: a repeat matches the existing account and does not apply fields that differ (X-Sandbox-Warning names them).',
  },
  'propagation-retries': {
    not_exercised:
      "Drill it: register with X-Sandbox-Scenario: auth-propagation, then retry the new account's controls or status call every 15 to 30 s until it answers 200 (POST /__sandbox/clock/advance moves the sandbox clock instead of waiting).",
    failed:
      "Retry a new account's 401/403 every 15 to 30 s, for up to two minutes, until it succeeds (spec §5.5): not sooner, and not giving up after one.",
  },
  'stale-hash-recovery': {
    not_exercised:
      'Drill it: a controls PUT with X-Sandbox-Scenario: stale-content-hash answers 409 content_hash_mismatch; then GET the list, re-apply your change and PUT again with its content_hash.',
    failed:
      'After a 409 content_hash_mismatch: GET the list, re-apply your change to what it shows, and PUT again with its content_hash (spec rule 3).',
  },
  'fresh-key-after-dry-run': {
    not_exercised:
      'Send a write with ?dry_run=true, then the same write for real with a fresh Idempotency-Key.',
    failed:
      "Use a fresh Idempotency-Key for the real write after a dry run: the dry run's key only replays the dry run, and nothing is written (spec rule 4).",
  },
  'handled-mixed': {
    not_exercised:
      'Drill it: a status PUT with X-Sandbox-Scenario: status-partial-failure answers partial_failure (status mixed); keep its request_id, then GET the status again.',
    failed:
      'After a partial failure (status mixed): keep the request_id for support, then GET the status again, or PUT it again with a fresh Idempotency-Key (the same key only replays the failure).',
  },
  'retried-429-5xx': {
    not_exercised:
      'Drill it: X-Sandbox-Scenario: rate-limited (429 with Retry-After) or server-error=503 on any call, then retry that call (after Retry-After for the 429).',
    failed:
      'Retry a 429 after its Retry-After, and a 5xx (with a backoff), instead of giving up or retrying at once.',
  },
} as const;

function check(id: CheckId, title: string, failures: string[], passes: string[]): Check {
  if (failures.length) return { id, title, outcome: 'failed', evidence: failures, next: NEXT[id].failed };
  if (passes.length) return { id, title, outcome: 'passed', evidence: passes, next: null };
  return { id, title, outcome: 'not_exercised', evidence: [], next: NEXT[id].not_exercised };
}

function registeredIdempotently(log: Parsed[]): Check {
  const byExternal = new Map<string, Parsed[]>();
  for (const e of log) {
    if (e.method !== 'POST' || e.path !== REGISTER || !ok(e)) continue;
    const ext = e.requestJson?.external_account_id;
    if (typeof ext === 'string') byExternal.set(ext, [...(byExternal.get(ext) ?? []), e]);
  }
  const passes: string[] = [];
  const failures: string[] = [];
  for (const [ext, calls] of byExternal) {
    if (calls.length < 2) continue;
    const differing = calls.filter((c) => c.warnings.some((w) => w.includes('were not applied')));
    if (differing.length) {
      failures.push(
        `external_account_id ${ext} was registered again with different fields: ${differing.map(label).join('; ')}`,
      );
    } else
      passes.push(`external_account_id ${ext} registered ${calls.length} times, matched the same account`);
  }
  return check(
    'registered-idempotently',
    'Registration retried idempotently on external_account_id',
    failures,
    passes,
  );
}

function propagationRetries(log: Parsed[]): Check {
  const passes: string[] = [];
  const failures: string[] = [];
  // A chaos 401/403 is one call's failure, not the window (docs/chaos.md): the resilience part grades it.
  const accounts = new Set(
    log.filter((e) => code(e) === 'auth_propagation_pending' && !e.chaos).map((e) => e.account_id),
  );
  for (const account of accounts) {
    const calls = log.filter(
      (e) =>
        e.account_id === account &&
        (isControls(e) || isStatus(e)) &&
        !(e.chaos && code(e) === 'auth_propagation_pending'),
    );
    const first = calls.findIndex((e) => code(e) === 'auth_propagation_pending');
    // the drill: from the first propagation answer to the first call that got past it
    const end = calls.findIndex((e, i) => i > first && code(e) !== 'auth_propagation_pending');
    const after = calls.slice(first, end === -1 ? undefined : end + 1);
    const tooSoon = after.filter(
      (e, i) => i > 0 && e.at - after[i - 1]!.at < PROPAGATION_MIN_RETRY_SECONDS * 1000,
    );
    const success = end === -1 ? undefined : calls[end];
    if (tooSoon.length) {
      failures.push(
        `account ${account}: ${tooSoon.length} retries sooner than ${PROPAGATION_MIN_RETRY_SECONDS} s after a propagation 401/403 (${label(tooSoon[0]!)})`,
      );
    } else if (!success) {
      failures.push(`account ${account}: answered 401/403 while propagating and never retried to success`);
    } else {
      passes.push(`account ${account}: ${after.length - 1} spaced retries, then ${label(success)}`);
    }
  }
  return check(
    'propagation-retries',
    'Propagation 401/403 on a new account retried every 15-30 s until it succeeded',
    failures,
    passes,
  );
}

function staleHashRecovery(log: Parsed[]): Check {
  const passes: string[] = [];
  const failures: string[] = [];
  log.forEach((e, i) => {
    if (code(e) !== 'content_hash_mismatch') return;
    const later = log.slice(i + 1).filter((x) => x.account_id === e.account_id && isControls(x));
    const nextPut = later.find((x) => x.method === 'PUT');
    const reread = later.find((x) => x.method === 'GET' && ok(x));
    if (!nextPut) failures.push(`${label(e)} was never retried`);
    else if (!reread || reread.id > nextPut.id)
      failures.push(`${label(e)} was retried without re-reading the list first (${label(nextPut)})`);
    else if (!ok(nextPut))
      failures.push(`${label(e)}: the retry after the re-read failed too (${label(nextPut)})`);
    else passes.push(`${label(e)} -> re-read ${label(reread)} -> retried ${label(nextPut)}`);
  });
  return check(
    'stale-hash-recovery',
    'After a 409 on the controls list: re-read, re-apply, retry',
    failures,
    passes,
  );
}

function freshKeyAfterDryRun(log: Parsed[]): Check {
  const passes: string[] = [];
  const failures: string[] = [];
  log.forEach((e, i) => {
    if (e.query.dry_run !== 'true' || !ok(e) || e.method === 'GET') return;
    if (e.warnings.includes(DRY_RUN_KEY_WARNING)) return;
    const key = e.request_headers['idempotency-key'];
    const real = log
      .slice(i + 1)
      .find((x) => x.path === e.path && x.method === e.method && x.query.dry_run !== 'true');
    if (!real) return;
    if (real.warnings.includes(DRY_RUN_KEY_WARNING) || real.request_headers['idempotency-key'] === key) {
      failures.push(
        `the real write ${label(real)} reused the dry run's Idempotency-Key, so nothing was written`,
      );
    } else passes.push(`dry run ${label(e)} then the real write with a fresh key ${label(real)}`);
  });
  return check(
    'fresh-key-after-dry-run',
    'A real write after a dry run used a fresh Idempotency-Key',
    failures,
    passes,
  );
}

function handledMixed(log: Parsed[]): Check {
  const passes: string[] = [];
  const failures: string[] = [];
  log.forEach((e, i) => {
    if (code(e) !== 'partial_failure') return;
    const next = log.slice(i + 1).find((x) => x.account_id === e.account_id && isStatus(x));
    if (!next)
      failures.push(
        `${label(e)}: the mixed status was never looked at again (keep request_id ${e.request_id} and contact support, then re-check)`,
      );
    else if (
      next.method === 'PUT' &&
      next.request_headers['idempotency-key'] === e.request_headers['idempotency-key']
    ) {
      failures.push(
        `${label(e)}: retried with the same Idempotency-Key, which only replays the partial failure`,
      );
    } else passes.push(`${label(e)} then ${label(next)}`);
  });
  return check(
    'handled-mixed',
    'A partial status failure (mixed) was noticed and re-checked',
    failures,
    passes,
  );
}

function retriedThrottlingAndErrors(log: Parsed[]): Check {
  const passes: string[] = [];
  const failures: string[] = [];
  log.forEach((e, i) => {
    if (e.status !== 429 && e.status < 500) return;
    const retry = log.slice(i + 1).find((x) => x.method === e.method && x.path === e.path);
    if (!retry) {
      failures.push(`${label(e)} was not retried`);
      return;
    }
    if (e.status === 429) {
      const wait = Number(
        (e.body?.error as { details?: { retry_after_seconds?: number } } | undefined)?.details
          ?.retry_after_seconds ?? 1,
      );
      const waited = (retry.at - e.at) / 1000;
      if (waited + 0.05 < wait) {
        failures.push(
          `${label(e)} was retried after ${waited.toFixed(2)} s, before its Retry-After of ${wait} s`,
        );
        return;
      }
    }
    passes.push(`${label(e)} retried: ${label(retry)}`);
  });
  return check('retried-429-5xx', '429 and 5xx answers retried (429 after Retry-After)', failures, passes);
}

export const RECOVERED_BY_HTTP_CLIENT = 'recovered by the HTTP client, not seen by the caller';

/** How long a chaos failure asked the client to wait: Retry-After of rate-limited (its value, default 1). */
function retryAfterOf(e: Parsed): number {
  if (e.status !== 429) return 0;
  const label = e.scenarios_applied.find((s) => s.startsWith('rate-limited'));
  return Number(label?.split('=')[1] ?? 1);
}

/**
 * For each chaos failure (the journal's `chaos`), whether the client recovered: its next call
 * of the same method and path (token calls included) succeeded, not sooner than Retry-After.
 */
function resilience(log: Parsed[]): Resilience[] {
  const by = new Map<string, Resilience>();
  log.forEach((e, i) => {
    // additive-changes is no failure to recover from: its part (report-additive.ts) asks whether the call was repeated
    if (!e.chaos || e.chaos.scenario === ADDITIVE) return;
    const r: Resilience = by.get(e.chaos.scenario) ?? {
      scenario: e.chaos.scenario,
      injected: 0,
      recovered: 0,
      recovered_by_http_client: 0,
      outcome: 'passed',
      evidence: [],
    };
    by.set(e.chaos.scenario, r);
    r.injected++;
    const position =
      e.chaos.token_call === undefined ? `call ${e.chaos.call}` : `token_call ${e.chaos.token_call}`;
    const what = `${position}: ${e.method} ${e.path} -> ${e.status === 0 ? 'reset' : e.status} (request_id ${e.request_id})`;
    const next = log.slice(i + 1).find((x) => x.method === e.method && x.path === e.path);
    const wait = retryAfterOf(e);
    const waited = next ? (next.at - e.at) / 1000 : 0;
    if (!next) r.evidence.push(`${what}: never called again`);
    else if (!(next.status >= 200 && next.status < 300))
      r.evidence.push(`${what}: the next call failed too (${next.status}, request_id ${next.request_id})`);
    else if (waited + 0.05 < wait)
      r.evidence.push(
        `${what}: retried after ${waited.toFixed(2)} s, before its Retry-After of ${wait} s (request_id ${next.request_id})`,
      );
    else if (next.warnings.some((w) => w.startsWith(SILENT_RETRY_PREFIX))) {
      r.recovered_by_http_client++;
      r.evidence.push(
        `${what}: ${RECOVERED_BY_HTTP_CLIENT}: the library resent it at once, request_id ${next.request_id} -> ${next.status}`,
      );
    } else {
      r.recovered++;
      r.evidence.push(`${what}: recovered, request_id ${next.request_id} -> ${next.status}`);
    }
  });
  for (const r of by.values()) {
    if (r.recovered + r.recovered_by_http_client < r.injected) r.outcome = 'failed';
    else r.outcome = r.recovered_by_http_client ? 'recovered_by_http_client' : 'passed';
  }
  const additive = additiveResilience(log);
  if (additive) by.set(ADDITIVE, additive);
  return [...by.values()].sort((a, b) => a.scenario.localeCompare(b.scenario));
}

export function buildReport(parent: string, entries: JournalEntry[], now: string, cell?: string): Report {
  const mine = entries.filter((e) => e.parent_account_id === parent);
  const log = parse(mine.filter((e) => e.path.startsWith('/v1/')));
  const checks = [
    registeredIdempotently(log),
    propagationRetries(log),
    staleHashRecovery(log),
    freshKeyAfterDryRun(log),
    handledMixed(log),
    retriedThrottlingAndErrors(log),
  ];
  const summary = { passed: 0, failed: 0, not_exercised: 0 };
  for (const c of checks) summary[c.outcome]++;
  return {
    parent_account_id: parent,
    ...(cell === undefined ? {} : { cell }),
    generated_at: now,
    requests_analyzed: log.length,
    summary,
    checks,
    resilience: resilience(parse(mine)),
  };
}

const xml = xmlText;

/** The cell as a JUnit property of the suite (none when no cell is set). */
const cellProperty = (cell: string | undefined) =>
  cell === undefined
    ? ''
    : `\n    <properties>\n      <property name="cell" value="${xml(cell)}"/>\n    </properties>`;

export function reportToJUnit(r: Report): string {
  const cases = r.checks
    .map((c) => {
      const open = `    <testcase classname="partnership-sandbox.${xml(r.parent_account_id)}" name="${xml(c.title)}">`;
      const evidence = xml(c.evidence.join('\n'));
      if (c.outcome === 'failed')
        return `${open}\n      <failure message="${xml(c.evidence[0] ?? 'failed')}">${evidence}\nWhat to do: ${xml(c.next ?? '')}</failure>\n    </testcase>`;
      if (c.outcome === 'not_exercised')
        return `${open}\n      <skipped message="${xml(`not exercised by this integration. ${c.next ?? ''}`)}"/>\n    </testcase>`;
      return `${open}\n      <system-out>${evidence}</system-out>\n    </testcase>`;
    })
    .join('\n');
  const resilient = r.resilience
    .map((c) => {
      const title = c.scenario === ADDITIVE ? 'Took a compatible release' : 'Recovered from chaos';
      const open = `    <testcase classname="partnership-sandbox.${xml(r.parent_account_id)}.resilience" name="${xml(`${title}: ${c.scenario} (${c.recovered} of ${c.injected})`)}">`;
      const evidence = xml(c.evidence.join('\n'));
      if (c.outcome === 'failed') {
        const first =
          c.evidence.find((e) => !e.includes(': recovered') && !e.includes(': taken as is')) ?? 'failed';
        return `${open}\n      <failure message="${xml(first)}">${evidence}</failure>\n    </testcase>`;
      }
      // The drill never reached the caller's code: not a pass, and not the caller's failure either.
      if (c.outcome === 'recovered_by_http_client') {
        const message = `${c.recovered_by_http_client} of ${c.injected} ${RECOVERED_BY_HTTP_CLIENT}`;
        return `${open}\n      <skipped message="${xml(message)}"/>\n      <system-out>${evidence}</system-out>\n    </testcase>`;
      }
      return `${open}\n      <system-out>${evidence}</system-out>\n    </testcase>`;
    })
    .join('\n');
  const failed = r.resilience.filter((c) => c.outcome === 'failed').length;
  const unseen = r.resilience.filter((c) => c.outcome === 'recovered_by_http_client').length;
  const suite = r.resilience.length
    ? `\n  <testsuite name="${xml(r.parent_account_id)} resilience" tests="${r.resilience.length}" failures="${failed}" skipped="${unseen}" timestamp="${xml(r.generated_at)}">\n${resilient}\n  </testsuite>`
    : '';
  const tests = r.checks.length + r.resilience.length;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="partnership-sandbox integration report" tests="${tests}" failures="${r.summary.failed + failed}" skipped="${r.summary.not_exercised + unseen}">
  <testsuite name="${xml(r.parent_account_id)}" tests="${r.checks.length}" failures="${r.summary.failed}" skipped="${r.summary.not_exercised}" timestamp="${xml(r.generated_at)}">${cellProperty(r.cell)}
${cases}
  </testsuite>${suite}
</testsuites>
`;
}
