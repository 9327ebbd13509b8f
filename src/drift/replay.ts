/**
 * `verify` (docs/drift.md): replays a recording's requests in order against a sandbox (one
 * started here, in memory, or the one at a URL, on a partner created there) and compares each
 * answer with the recorded one.
 *
 * - Set-up: a partner with the recording's client_id and parent account ID (new ones, mapped,
 *   when those are taken), its taxonomy from the first vertical-mappings answer recorded (the
 *   default fixtures' when there is none).
 * - Identifiers the recorded service issued are mapped to the sandbox's (ids.ts), in answers
 *   and in later requests (path, query, headers, body); a bearer token the recording never
 *   saw issued (a browser's HAR of a page that had one) is replaced by a fresh one, unless
 *   the service refused it (a 401 no scenario made): then it is sent as recorded.
 * - The partner's clock is advanced by the recorded time between requests.
 * - What the recorded service did not do on its own is carried into the replay as the sandbox
 *   scenario that does it: a reset connection (`connection-reset`), a 429 (`rate-limited`
 *   with its Retry-After), a 500/502/503 (`server-error`), and the scenarios a recording of a
 *   sandbox shows as applied (`X-Sandbox-Scenario-Applied`, chaos included): the state after
 *   them stays in step, and the answers are still compared.
 */

import { readFileSync } from 'node:fs';
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  validateHeaderName,
  validateHeaderValue,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { type ControlClient, ControlPlaneError, createControlClient } from '../client/control.js';
import { flattenTaxonomy, type TaxonomyFileData } from '../domain/taxonomy.js';
import { defaultFixturesDir } from '../package-dir.js';
import { type RunningSandbox, startSandbox } from '../start.js';
import { APPLIED_HEADER, HOP_BY_HOP, pathIdentifiers, SCENARIO_HEADER, splitApiPath } from './api.js';
import { type Answer, compareAnswers, type Difference, TimestampOrder } from './compare.js';
import { rewriteForm } from './form.js';
import { type HarHeader, headerValue, type ReadEntry, RecordingError, readHar } from './har.js';
import { IdMap } from './ids.js';

export interface VerifyOptions {
  /** A running sandbox to replay against (a partner is created there); default: one started here, in memory. */
  url?: string;
  /** The admin token of the sandbox at `url`, when its control plane is protected. */
  adminToken?: string;
  /** Compare `message` too. */
  messages?: boolean;
}

export type Outcome = 'same' | 'differ' | 'not replayed' | 'ignored';

export interface EntryResult {
  /** Its index in the HAR's log.entries. */
  index: number;
  method: string;
  /** The recorded URL's path and query (the API path when it is one). */
  path: string;
  outcome: Outcome;
  differences: Difference[];
  /** Why an entry was not replayed, or ignored. */
  reason?: string;
  /** Milliseconds the replayed request took. */
  ms?: number;
}

export interface VerifyTotals {
  entries: number;
  same: number;
  differ: number;
  notReplayed: number;
  ignored: number;
}

export interface VerifyResult {
  file: string;
  /** The sandbox replayed against. */
  url: string;
  /** The partner the replay created there. */
  parentAccountId: string;
  entries: EntryResult[];
  totals: VerifyTotals;
  /** True when nothing differs (exit 0). */
  ok: boolean;
}

/** Headers a replay never sends as recorded: they belong to the recorded connection or are rebuilt. */
const NOT_REPLAYED_HEADERS = new Set([
  ...HOP_BY_HOP,
  'host',
  'content-length',
  'accept-encoding',
  'cookie',
  'proxy-authorization',
]);

const TRANSIENT_STATUS = new Set([500, 502, 503]);

/** Replays `file` against a sandbox and compares; throws a RecordingError when it is no HAR recording of the API. */
export async function verifyRecording(file: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const all = readHar(file);
  const plan = classify(all, file);
  let embedded: RunningSandbox | undefined;
  let control: ControlClient;
  let base: string;
  if (options.url) {
    base = options.url.replace(/\/+$/, '');
    control = createControlClient(base, options.adminToken ? { adminToken: options.adminToken } : {});
  } else {
    embedded = await startSandbox();
    base = embedded.url;
    control = embedded.control;
  }
  const agentOptions = { keepAlive: true, maxSockets: 8 };
  const agent = base.startsWith('https:') ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  try {
    const replay = await setUp(plan, control, base, agent);
    const results: EntryResult[] = [];
    const clock = { start: 0, advanced: 0 };
    for (const item of plan.items) {
      if (item.ignored) {
        results.push(resultOf(item, 'ignored', [], item.ignored));
        continue;
      }
      const why = replay.cannotReplay(item);
      if (why) {
        results.push(resultOf(item, 'not replayed', [], why));
        continue;
      }
      await alignClock(item.entry, plan, clock, control, replay.parent);
      const began = Date.now();
      const answer = await send(base, agent, await replay.request(item));
      const recorded: Answer = {
        reset: isReset(item.entry),
        status: item.entry.status,
        headers: item.entry.responseHeaders,
        body: item.entry.responseBody,
      };
      const differences = compareAnswers(
        recorded,
        answer,
        {
          ids: replay.ids,
          timestamps: replay.timestamps,
          messages: options.messages ?? false,
        },
        `entries[${item.entry.index}] `,
      );
      const result = resultOf(item, differences.length ? 'differ' : 'same', differences);
      result.ms = Date.now() - began;
      results.push(result);
    }
    const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
    const totals = {
      entries: results.length,
      same: count('same'),
      differ: count('differ'),
      notReplayed: count('not replayed'),
      ignored: count('ignored'),
    };
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

interface Item {
  entry: ReadEntry;
  /** The API path with its query (the base prefix cut), or the URL's path for ignored entries. */
  path: string;
  ignored?: string;
}

interface Plan {
  items: Item[];
  api: Item[];
}

function classify(all: ReadEntry[], file: string): Plan {
  const split = (e: ReadEntry) => splitApiPath(e.url.pathname);
  const first = all.find((e) => split(e)?.path.startsWith('/v1/')) ?? all.find((e) => split(e));
  if (!first) {
    throw new RecordingError(
      `${file} is no recording of the Partnership Accounts API: none of its ${all.length} entries goes to /oauth/token or a /v1/ path of the API`,
    );
  }
  const origin = first.url.origin;
  const prefix = split(first)!.prefix;
  const items = all.map((entry): Item => {
    const s = split(entry);
    const path = (s?.path ?? entry.url.pathname) + entry.url.search;
    if (entry.url.origin !== origin) return { entry, path, ignored: `another host (${entry.url.host})` };
    if (!s || s.prefix !== prefix) return { entry, path, ignored: 'not a path of the API' };
    if (entry.method === 'OPTIONS') return { entry, path, ignored: 'a CORS preflight' };
    return { entry, path };
  });
  return { items, api: items.filter((i) => !i.ignored) };
}

const isReset = (e: ReadEntry) => e.status === 0 && /RESET|ECONNRESET|EPIPE/i.test(e.error ?? '');

function resultOf(item: Item, outcome: Outcome, differences: Difference[], reason?: string): EntryResult {
  return {
    index: item.entry.index,
    method: item.entry.method,
    path: item.path,
    outcome,
    differences,
    ...(reason ? { reason } : {}),
  };
}

/** What a replayed request is: method, the sandbox path, headers and body. */
interface Outgoing {
  method: string;
  path: string;
  headers: [string, string][];
  body: string | undefined;
}

interface Replay {
  parent: string;
  ids: IdMap;
  timestamps: TimestampOrder;
  cannotReplay(item: Item): string | undefined;
  request(item: Item): Promise<Outgoing>;
}

/** Creates the partner, seeds its taxonomy, and returns what maps the recording onto it. */
async function setUp(plan: Plan, control: ControlClient, base: string, agent: HttpAgent): Promise<Replay> {
  const ids = new IdMap();
  const recorded = recordedPartner(plan);
  let partner: { parent_account_id: string; client_id: string; client_secret: string };
  try {
    partner = await control.partners.create({
      ...(recorded.parent ? { parent_account_id: recorded.parent } : {}),
      ...(recorded.clientIds[0] ? { client_id: recorded.clientIds[0] } : {}),
      name: 'Replay of a recording (verify)',
    });
  } catch (err) {
    if (!(err instanceof ControlPlaneError) || err.status !== 400) throw setUpError(base, err);
    // Taken there (the default fixtures' demo partner, or an earlier replay): new ones, mapped.
    partner = await control.partners
      .create({ name: 'Replay of a recording (verify)' })
      .catch((e: unknown) => Promise.reject(setUpError(base, e)));
  }
  if (recorded.parent) ids.set(recorded.parent, partner.parent_account_id);
  for (const id of recorded.clientIds) ids.set(id, partner.client_id);
  for (const secret of recorded.secrets) ids.set(secret, partner.client_secret);
  const pair = `${encodeURIComponent(partner.client_id)}:${encodeURIComponent(partner.client_secret)}`;
  for (const basic of recorded.basics) ids.set(basic, Buffer.from(pair).toString('base64'));
  const taxonomy = recordedTaxonomy(plan) ?? defaultTaxonomy();
  if (taxonomy.length) {
    await control.partners
      .seedMappings(partner.parent_account_id, taxonomy)
      .catch((e: unknown) =>
        Promise.reject(new RecordingError(`cannot seed the recorded taxonomy at ${base}: ${describe(e)}`)),
      );
  }
  let fresh: Promise<string> | undefined;
  const freshToken = () => {
    fresh ??= send(base, agent, {
      method: 'POST',
      path: '/oauth/token',
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: partner.client_id,
        client_secret: partner.client_secret,
      }).toString(),
    }).then((a) => {
      const token = (JSON.parse(a.body) as { access_token?: string }).access_token;
      if (!token)
        throw new RecordingError(`cannot get a token for the replay's partner at ${base}: ${a.status}`);
      return token;
    });
    return fresh;
  };
  const timestamps = new TimestampOrder();
  return {
    parent: partner.parent_account_id,
    ids,
    timestamps,
    cannotReplay(item) {
      const { entry } = item;
      if (entry.status === 0 && !isReset(entry)) {
        return `no answer was recorded (${entry.error ?? 'status 0'})`;
      }
      const unsendable = unsendableRequest(entry);
      if (unsendable) return unsendable;
      const { account, layout } = pathIdentifiers(item.path.split('?')[0]!);
      if (entry.status === 404) return undefined; // an unknown ID on purpose: the sandbox should say 404 too
      if (account !== undefined && !ids.has(account)) {
        return `account ${account} was not issued during the recording (registered before it began)`;
      }
      if (layout !== undefined && !ids.has(layout)) {
        return `layout ${layout} was not issued during the recording`;
      }
      return undefined;
    },
    async request(item) {
      const { entry } = item;
      const [pathname, query = ''] = item.path.split(/\?(.*)/s) as [string, string?];
      const path =
        pathname
          .split('/')
          .map((seg) => {
            const decoded = safeDecode(seg);
            return ids.has(decoded) ? encodeURIComponent(ids.toSandbox(decoded)) : seg;
          })
          .join('/') + (query ? `?${mapForm(query, ids)}` : '');
      const headers: [string, string][] = [];
      for (const { name, value } of entry.requestHeaders) {
        const lower = name.toLowerCase();
        if (name.startsWith(':') || NOT_REPLAYED_HEADERS.has(lower)) continue;
        if (lower === 'authorization') {
          headers.push([name, await authorization(value, ids, freshToken, refusedAsIs(entry))]);
          continue;
        }
        headers.push([name, ids.toSandbox(value)]);
      }
      // A browser's sanitized export leaves the Authorization header out: a call the service
      // did not refuse for it gets the replay partner's token.
      const isToken = pathname === '/oauth/token';
      if (!isToken && entry.status !== 401 && !headers.some(([n]) => n.toLowerCase() === 'authorization')) {
        headers.push(['Authorization', `Bearer ${await freshToken()}`]);
      }
      const carried = carriedScenario(entry);
      if (carried && !headerValue(entry.requestHeaders, SCENARIO_HEADER))
        headers.push([SCENARIO_HEADER, carried]);
      const mime = headerValue(entry.requestHeaders, 'content-type') ?? '';
      return { method: entry.method, path, headers, body: mapBody(entry.requestBody, mime, ids) };
    },
  };
}

function setUpError(base: string, err: unknown): Error {
  return new RecordingError(`cannot create the replay's partner at ${base}: ${describe(err)}`);
}

function describe(err: unknown): string {
  // status 0: no answer at all (nothing listens there); its message says so and names the URL
  if (err instanceof ControlPlaneError && err.status !== 0)
    return `${err.status} ${String(JSON.stringify(err.body)).slice(0, 300)}`;
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  return cause ? `${(err as Error).message} (${cause})` : String((err as Error).message ?? err);
}

/** The recording's partner: parent account ID, client_id, and the placeholders of its secret. */
function recordedPartner(plan: Plan): {
  parent?: string;
  clientIds: string[];
  secrets: string[];
  basics: string[];
} {
  let parent: string | undefined;
  for (const { entry, path } of plan.api) {
    parent ??= headerValue(entry.requestHeaders, 'X-Platform-Parent-Account-Id');
    if (!parent && path.startsWith('/v1/accounts/register/')) {
      const body = parseObject(entry.requestBody);
      if (typeof body?.platform_parent_account_id === 'string') parent = body.platform_parent_account_id;
    }
    if (!parent && path.startsWith('/v1/partnership/vertical-mappings?')) {
      parent = new URLSearchParams(path.split('?')[1]).get('parent_account_id') ?? undefined;
    }
    if (parent) break;
  }
  // The partner's credentials: the values its token calls sent, but for those the service only
  // ever refused (a drill with a wrong secret stays wrong in the replay).
  const accepted = { clientIds: new Set<string>(), secrets: new Set<string>(), basics: new Set<string>() };
  for (const { entry, path } of plan.api) {
    if (path.split('?')[0] !== '/oauth/token') continue;
    const refused =
      /invalid_client/.test(entry.responseBody) && (entry.status === 401 || entry.status === 400);
    if (refused) continue;
    const fields = tokenFields(entry);
    if (fields.client_id) accepted.clientIds.add(fields.client_id);
    if (fields.client_secret) accepted.secrets.add(fields.client_secret);
    const basic = /^\s*basic\s+(\S+)/i.exec(headerValue(entry.requestHeaders, 'authorization') ?? '')?.[1];
    if (basic) accepted.basics.add(basic);
  }
  return {
    ...(parent ? { parent } : {}),
    clientIds: [...accepted.clientIds],
    secrets: [...accepted.secrets],
    basics: [...accepted.basics],
  };
}

function tokenFields(entry: ReadEntry): Record<string, string | undefined> {
  const text = entry.requestBody ?? '';
  const json = parseObject(text);
  if (json) {
    return {
      client_id: typeof json.client_id === 'string' ? json.client_id : undefined,
      client_secret: typeof json.client_secret === 'string' ? json.client_secret : undefined,
    };
  }
  const form = new URLSearchParams(text);
  return {
    client_id: form.get('client_id') ?? undefined,
    client_secret: form.get('client_secret') ?? undefined,
  };
}

interface MappingSeedEntry {
  partner_vertical_id: number;
  partner_vertical_name: string;
  partner_sub_vertical_id: number;
  partner_sub_vertical_name: string;
  vertical_name: string;
}

/** The first vertical-mappings answer recorded (not one a scenario made), as a seed. */
function recordedTaxonomy(plan: Plan): MappingSeedEntry[] | undefined {
  for (const { entry, path } of plan.api) {
    if (path.split('?')[0] !== '/v1/partnership/vertical-mappings' || entry.status !== 200) continue;
    if (
      headerValue(entry.requestHeaders, SCENARIO_HEADER) ||
      headerValue(entry.responseHeaders, APPLIED_HEADER)
    ) {
      continue;
    }
    const rows = (parseObject(entry.responseBody)?.data as { vertical_mappings?: unknown } | undefined)
      ?.vertical_mappings;
    if (!Array.isArray(rows)) continue;
    return rows.map((row: Record<string, unknown>) => ({
      partner_vertical_id: row.partner_vertical_id as number,
      partner_vertical_name: row.partner_vertical_name as string,
      partner_sub_vertical_id: row.partner_sub_vertical_id as number,
      partner_sub_vertical_name: row.partner_sub_vertical_name as string,
      vertical_name: row.vertical_name as string,
    }));
  }
  return undefined;
}

/** The default fixtures' taxonomy (the package's fixtures/taxonomy.json), flattened. */
function defaultTaxonomy(): MappingSeedEntry[] {
  const file = readFileSync(join(defaultFixturesDir, 'taxonomy.json'), 'utf8');
  return flattenTaxonomy(JSON.parse(file) as TaxonomyFileData);
}

/** The scenario that makes the sandbox do what the recorded service did on its own here, if any. */
function carriedScenario(entry: ReadEntry): string | undefined {
  if (isReset(entry)) return 'connection-reset';
  const applied = headerValue(entry.responseHeaders, APPLIED_HEADER);
  if (applied) return applied;
  if (entry.status === 429) {
    const after = Number(headerValue(entry.responseHeaders, 'Retry-After'));
    return Number.isInteger(after) && after > 0 ? `rate-limited=${after}` : 'rate-limited';
  }
  if (TRANSIENT_STATUS.has(entry.status)) return `server-error=${entry.status}`;
  return undefined;
}

/**
 * A 401 that no scenario made: the service refused the credential itself (a drill with a wrong
 * token), so a token it never issued is sent as recorded, and refused again.
 */
function refusedAsIs(entry: ReadEntry): boolean {
  return entry.status === 401 && carriedScenario(entry) === undefined;
}

async function authorization(
  value: string,
  ids: IdMap,
  freshToken: () => Promise<string>,
  refused: boolean,
): Promise<string> {
  const m = /^(\s*)(\S+)(\s+)(.*)$/s.exec(value);
  if (!m) return ids.toSandbox(value);
  const [, lead, scheme, gap, credential] = m as unknown as [string, string, string, string, string];
  if (ids.has(credential)) return `${lead}${scheme}${gap}${ids.toSandbox(credential)}`;
  if (scheme.toLowerCase() === 'bearer' && !refused) {
    // A token the recording never saw issued: the replay's partner gets one of its own.
    const token = await freshToken();
    ids.set(credential, token);
    return `${lead}${scheme}${gap}${token}`;
  }
  return value;
}

function safeDecode(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

function mapForm(text: string, ids: IdMap): string {
  return rewriteForm(text, (_key, value) => (ids.has(value) ? ids.toSandbox(value) : undefined));
}

/** A request body with the recorded identifiers replaced: JSON string values, form values. */
function mapBody(text: string | undefined, mime: string, ids: IdMap): string | undefined {
  if (text === undefined || text === '') return text;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return /x-www-form-urlencoded/i.test(mime) ? mapForm(text, ids) : text;
  }
  let out = text;
  for (const value of stringsOf(doc)) {
    if (!ids.has(value)) continue;
    out = out.split(JSON.stringify(value)).join(JSON.stringify(ids.toSandbox(value)));
  }
  return out;
}

/** Every string in a JSON document; iterative, so a body nested 100,000 deep is no stack overflow. */
function stringsOf(doc: unknown): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = [doc];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === 'string') out.add(value);
    else if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
  }
  return out;
}

/** An HTTP token (RFC 9110 §5.6.2): what a method must be. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Why a recorded request cannot be sent over HTTP/1.1 (a method that is no token, a header name
 * that is none, a control character in a header value): a hand-edited or damaged file. That
 * entry is not replayed, with the reason; the others are.
 */
function unsendableRequest(entry: ReadEntry): string | undefined {
  if (!HTTP_TOKEN.test(entry.method)) {
    return `its method ${JSON.stringify(entry.method.slice(0, 40))} is no HTTP method`;
  }
  for (const { name, value } of entry.requestHeaders) {
    if (name.startsWith(':') || NOT_REPLAYED_HEADERS.has(name.toLowerCase())) continue;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      return `its header ${JSON.stringify(name.slice(0, 40))} cannot be sent (a name that is no HTTP token, or a control character in the value)`;
    }
  }
  return undefined;
}

function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const MAX_CLOCK_STEP_SECONDS = 10 * 365 * 86_400;

/** Advances the partner's clock so that the replay's time since its first request is the recording's. */
async function alignClock(
  entry: ReadEntry,
  plan: Plan,
  clock: { start: number; advanced: number },
  control: ControlClient,
  parent: string,
): Promise<void> {
  const first = plan.api[0]!.entry;
  if (clock.start === 0) clock.start = Date.now();
  const target = (entry.startedMs - first.startedMs) / 1000;
  const elapsed = (Date.now() - clock.start) / 1000 + clock.advanced;
  const gap = Math.round((target - elapsed) * 1000) / 1000;
  if (gap >= 0.001) {
    // The control plane moves a clock by at most 10 years a call (contract/control.ts): a longer
    // gap (a damaged date) is 10 years, which every expiry and window has passed anyway.
    const step = Math.min(gap, MAX_CLOCK_STEP_SECONDS);
    await control.partners.clock.advance(parent, step);
    clock.advanced += gap;
  }
}

/** Sends one request; a reset connection is an answer too (`reset`). */
function send(base: string, agent: HttpAgent, out: Outgoing): Promise<Answer> {
  const url = new URL(out.path, `${base}/`);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = Object.create(null);
    for (const [name, value] of out.headers) {
      const had = headers[name];
      headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
    }
    const req = request(url, { method: out.method, agent, headers, timeout: 120_000 });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: HarHeader[] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          headers.push({ name: res.rawHeaders[i]!, value: res.rawHeaders[i + 1]! });
        }
        resolve({
          reset: false,
          status: res.statusCode ?? 0,
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', () => resolve({ reset: true, status: 0, headers: [], body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url.origin} in 120 s`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
        resolve({ reset: true, status: 0, headers: [], body: '' });
      } else {
        reject(
          new RecordingError(
            `cannot replay ${out.method} ${out.path} at ${url.origin}: ${err.code ?? err.message}`,
          ),
        );
      }
    });
    req.end(out.body);
  });
}
