/**
 * `verify` (docs/drift.md): replays a recording's requests in order against a sandbox (one
 * started here, in memory, or the one at a URL, on a partner created there) and compares each
 * answer with the recorded one.
 *
 * - Set-up (partner.ts): a partner with the recording's client_id and parent account ID (new
 *   ones, mapped, when those are taken), its taxonomy from the first vertical-mappings answer
 *   recorded (the default fixtures' when there is none). A `--url` is checked to be a sandbox
 *   first (send.ts).
 * - Identifiers the recorded service issued are mapped to the sandbox's (id-map.ts), in answers
 *   and in later requests (outgoing.ts: path, query, headers, body); a bearer token the
 *   recording never saw issued (a browser's HAR of a page that had one) is replaced by a fresh
 *   one, unless the service refused it (a 401 no scenario made): then it is sent as recorded.
 * - The partner's clock is advanced by the recorded time between requests (clock-align.ts).
 * - What the recorded service did not do on its own is carried into the replay as the sandbox
 *   scenario that does it: a reset connection (`connection-reset`), a 429 (`rate-limited`
 *   with its Retry-After), a 500/502/503 (`server-error`), and the scenarios a recording of a
 *   sandbox shows as applied (`X-Sandbox-Scenario-Applied`, chaos included): the state after
 *   them stays in step, and the answers are still compared.
 */

import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { type ControlClient, createControlClient } from '../client/control-client.js';
import { pathIdentifiers, TOKEN_PATH } from './api.js';
import { ReplayClock } from './clock-align.js';
import { type Answer, compareAnswers, TimestampOrder } from './compare.js';
import { type EmbeddedSandbox, startEmbedded } from './embedded.js';
import { RecordingError, readHar } from './har.js';
import { IdMap } from './id-map.js';
import { type Outgoing, outgoing, unsendableRequest } from './outgoing.js';
import { createPartner } from './partner.js';
import { classify, type Item, isReset, noAnswer, type Plan, resultOf } from './replay-plan.js';
import { checkSandbox, send } from './send.js';
import { type EntryResult, totalsOf, type VerifyOptions, type VerifyResult } from './verify-result.js';

export type { EntryResult, Outcome, VerifyOptions, VerifyResult, VerifyTotals } from './verify-result.js';

/** Replays `file` against a sandbox and compares; throws a RecordingError when it is no HAR recording of the API. */
export async function verifyRecording(file: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const plan = classify(readHar(file), file);
  let embedded: EmbeddedSandbox | undefined;
  let control: ControlClient;
  let base: string;
  if (options.url) {
    base = options.url.replace(/\/+$/, '');
    control = createControlClient(base, options.adminToken ? { adminToken: options.adminToken } : {});
  } else {
    embedded = await startEmbedded();
    base = embedded.url;
    control = embedded.control;
  }
  const agentOptions = { keepAlive: true, maxSockets: 8 };
  const agent = base.startsWith('https:') ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  try {
    if (options.url) await checkSandbox(base, agent);
    const replay = await setUp(plan, control, base, agent);
    const results: EntryResult[] = [];
    for (const item of plan.items) results.push(await replayEntry(item, replay, options));
    const totals = totalsOf(results);
    return {
      file,
      url: base,
      parentAccountId: replay.parent,
      entries: results,
      totals,
      ok: totals.differ === 0,
    };
  } finally {
    agent.destroy();
    await embedded?.stop();
  }
}

/** One entry: ignored, not replayed (with its reason), or sent and compared. */
async function replayEntry(item: Item, replay: Replay, options: VerifyOptions): Promise<EntryResult> {
  if (item.ignored) return resultOf(item, 'ignored', [], item.ignored);
  const why = replay.cannotReplay(item);
  if (why) return resultOf(item, 'not replayed', [], why);
  await replay.clock.align(item.entry);
  const began = Date.now();
  const answer = await replay.send(await replay.request(item));
  const recorded: Answer = {
    reset: isReset(item.entry),
    status: item.entry.status,
    headers: item.entry.responseHeaders,
    body: item.entry.responseBody,
  };
  const differences = compareAnswers(
    recorded,
    answer,
    { ids: replay.ids, timestamps: replay.timestamps, messages: options.messages ?? false },
    `entries[${item.entry.index}] `,
  );
  const result = resultOf(item, differences.length ? 'differ' : 'same', differences);
  result.ms = Date.now() - began;
  return result;
}

interface Replay {
  parent: string;
  ids: IdMap;
  timestamps: TimestampOrder;
  clock: ReplayClock;
  cannotReplay(item: Item): string | undefined;
  request(item: Item): Promise<Outgoing>;
  send(out: Outgoing): Promise<Answer>;
}

/** Creates the partner, seeds its taxonomy, and returns what maps the recording onto it. */
async function setUp(plan: Plan, control: ControlClient, base: string, agent: HttpAgent): Promise<Replay> {
  const ids = new IdMap();
  const partner = await createPartner(plan, control, base, ids);
  let fresh: Promise<string> | undefined;
  const freshToken = () => {
    fresh ??= send(base, agent, {
      method: 'POST',
      path: TOKEN_PATH,
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: partner.client_id,
        client_secret: partner.client_secret,
      }).toString(),
    }).then((a) => {
      const token = tokenOf(a.body);
      if (!token)
        throw new RecordingError(`cannot get a token for the replay's partner at ${base}: ${a.status}`);
      return token;
    });
    return fresh;
  };
  return {
    parent: partner.parent_account_id,
    ids,
    timestamps: new TimestampOrder(),
    clock: new ReplayClock(control, partner.parent_account_id, plan.api[0]!.entry),
    cannotReplay: (item) => cannotReplay(item, ids),
    request: (item) => outgoing(item, ids, freshToken),
    send: (out) => send(base, agent, out),
  };
}

function tokenOf(body: string): string | undefined {
  try {
    const token = (JSON.parse(body) as { access_token?: unknown } | null)?.access_token;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why an entry cannot be replayed, or undefined. No answer recorded (status 0 or -1, not a
 * reset); a request HTTP cannot send; or a success for an account or layout the recording never
 * saw issued: the service had it from before the recording, which the sandbox cannot have. Any
 * other status on such an ID (a 404, but also a 403 or a 410) is replayed: the sandbox answers
 * for an ID it does not know, and a different answer is a difference.
 */
function cannotReplay(item: Item, ids: IdMap): string | undefined {
  const { entry } = item;
  if (noAnswer(entry) && !isReset(entry)) {
    return `no answer was recorded (${entry.error ?? `status ${entry.status}`})`;
  }
  const unsendable = unsendableRequest(entry);
  if (unsendable) return unsendable;
  if (entry.status < 200 || entry.status > 299) return undefined;
  const { account, layout } = pathIdentifiers(item.path.split('?')[0]!);
  const unknown =
    account !== undefined && !ids.has(account)
      ? `account ${account}`
      : layout !== undefined && !ids.has(layout)
        ? `layout ${layout}`
        : undefined;
  if (!unknown) return undefined;
  return `${unknown} was issued in no answer the recording holds, and the service answered ${entry.status} for it (registered before the recording began, or in an answer whose body was not recorded)`;
}
