/**
 * The comparison of one recorded answer with the sandbox's (docs/drift.md): the status code;
 * the answer's JSON shape (each path and its type) and every value that is neither an
 * identifier nor a timestamp (identifiers: type, and the same mapping throughout; timestamps:
 * type, and order); `Retry-After`, `Idempotent-Replayed` and `WWW-Authenticate`; `message`
 * only when asked. Each difference is `<json path>: recorded <x>, sandbox <y>`, the path over
 * the answer as `{status, headers, body}`.
 */
import { COMPARED_HEADERS, isIdentifierField, isTimestamp } from './api.js';
import { type HarHeader, headerValue } from './har.js';
import type { IdMap } from './id-map.js';

export interface Difference {
  /** Where: `status`, `headers.Retry-After`, `body.error.code`, `body.data.pages[0].surface`, … */
  path: string;
  recorded: string;
  sandbox: string;
}

/** One side's answer: a status, headers and body, or a reset connection (no answer). */
export interface Answer {
  reset: boolean;
  status: number;
  headers: readonly HarHeader[];
  /** undefined: the recording has no body for it (a browser's HAR of a body the page never read). */
  body: string | undefined;
}

export interface CompareOptions {
  ids: IdMap;
  timestamps: TimestampOrder;
  /** Compare `message` too (verify --messages). */
  messages: boolean;
}

export const ABSENT = 'absent';

/** Renders a value for a difference line: strings and numbers as JSON, containers by kind. */
export function render(value: unknown): string {
  if (value === undefined) return ABSENT;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value !== null && typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…"` : text;
}

const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Keeps timestamps in order: each new pair must not run the other way from the one before. */
export class TimestampOrder {
  #last: { recorded: number; sandbox: number; where: string } | undefined;

  check(recorded: string, sandbox: string, where: string): Difference | undefined {
    const r = Date.parse(recorded);
    const s = Date.parse(sandbox);
    const last = this.#last;
    this.#last = { recorded: r, sandbox: s, where };
    if (!last) return undefined;
    const rec = Math.sign(r - last.recorded);
    const sbx = Math.sign(s - last.sandbox);
    if (rec === 0 || sbx === 0 || rec === sbx) return undefined;
    const word = (sign: number) => (sign > 0 ? 'later' : 'earlier');
    return {
      path: where,
      recorded: `${JSON.stringify(recorded)} (${word(rec)} than ${last.where})`,
      sandbox: `${JSON.stringify(sandbox)} (${word(sbx)})`,
    };
  }
}

/** The differences between a recorded answer and the sandbox's; [] when they are the same. */
export function compareAnswers(
  recorded: Answer,
  sandbox: Answer,
  o: CompareOptions,
  where = '',
): Difference[] {
  const out: Difference[] = [];
  if (recorded.reset || sandbox.reset) {
    if (recorded.reset !== sandbox.reset) {
      out.push({
        path: 'status',
        recorded: recorded.reset ? 'connection reset' : String(recorded.status),
        sandbox: sandbox.reset ? 'connection reset' : String(sandbox.status),
      });
    }
    return out;
  }
  if (recorded.status !== sandbox.status) {
    out.push({ path: 'status', recorded: String(recorded.status), sandbox: String(sandbox.status) });
  }
  for (const name of COMPARED_HEADERS) {
    const r = headerValue(recorded.headers, name);
    const s = headerValue(sandbox.headers, name);
    if (r !== s) out.push({ path: `headers.${name}`, recorded: render(r), sandbox: render(s) });
  }
  // A body the recording does not have is not an empty one: status and headers only.
  if (recorded.body === undefined || sandbox.body === undefined) return out;
  const r = parseJson(recorded.body);
  const s = parseJson(sandbox.body);
  if (r.json && s.json) {
    const walk: Walk = { o, out, where, messages: [] };
    compareValues(r.value, s.value, 'body', undefined, walk);
    compareMessages(walk);
  } else if (r.json !== s.json) {
    out.push({
      path: 'body',
      recorded: r.json ? `JSON (${render(r.value)})` : `text ${render(recorded.body)}`,
      sandbox: s.json ? `JSON (${render(s.value)})` : `text ${render(sandbox.body)}`,
    });
  } else if (recorded.body !== o.ids.toRecorded(sandbox.body)) {
    out.push({
      path: 'body',
      recorded: `text ${render(recorded.body)}`,
      sandbox: `text ${render(sandbox.body)}`,
    });
  }
  return out;
}

function parseJson(text: string): { json: true; value: unknown } | { json: false; value?: undefined } {
  if (!text.trim()) return { json: false };
  try {
    return { json: true, value: JSON.parse(text) };
  } catch {
    return { json: false };
  }
}

const IDENT = /^[A-Za-z_$][\w$]*$/;
const child = (path: string, key: string) =>
  IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

/** One comparison of two bodies: where differences go, and the messages left for last. */
interface Walk {
  o: CompareOptions;
  out: Difference[];
  where: string;
  /** `message` pairs, compared once the whole body has taught the mapping its identifiers. */
  messages: { at: number; path: string; recorded: string; sandbox: string }[];
}

/**
 * Compares two JSON values. It recurses only where both sides hold a container at the same
 * path, so its depth is the shallower side's: the sandbox's answers are a few levels deep,
 * whatever a recording holds. Arrays and objects are walked by a loop, however long.
 */
function compareValues(r: unknown, s: unknown, path: string, key: string | undefined, w: Walk): void {
  const { o, out } = w;
  if (r === undefined && s === undefined) return;
  if (path === 'body.message' && !o.messages) return;
  if (r === undefined || s === undefined || kind(r) !== kind(s)) {
    out.push({ path, recorded: render(r), sandbox: render(s) });
    return;
  }
  if (typeof r === 'string' && typeof s === 'string') {
    compareStrings(r, s, path, key, w);
    return;
  }
  if (Array.isArray(r) && Array.isArray(s)) {
    const common = Math.min(r.length, s.length);
    for (let i = 0; i < common; i++) compareValues(r[i], s[i], `${path}[${i}]`, key, w);
    if (r.length !== s.length)
      out.push({ path, recorded: `${r.length} entries`, sandbox: `${s.length} entries` });
    return;
  }
  if (r !== null && typeof r === 'object' && s !== null && typeof s === 'object') {
    const ro = r as Record<string, unknown>;
    const so = s as Record<string, unknown>;
    const keys = [...Object.keys(ro), ...Object.keys(so).filter((k) => !Object.hasOwn(ro, k))];
    for (const k of keys) {
      const rv = Object.hasOwn(ro, k) ? ro[k] : undefined;
      compareValues(rv, Object.hasOwn(so, k) ? so[k] : undefined, child(path, k), k, w);
    }
    return;
  }
  if (r !== s) out.push({ path, recorded: render(r), sandbox: render(s) });
}

function compareStrings(r: string, s: string, path: string, key: string | undefined, w: Walk): void {
  const { o, out } = w;
  if (isIdentifierField(key)) {
    const conflict = o.ids.learn(r, s);
    if (conflict) out.push({ path, ...conflict });
    return;
  }
  if (isTimestamp(r) || isTimestamp(s)) {
    if (!isTimestamp(r) || !isTimestamp(s)) {
      out.push({ path, recorded: render(r), sandbox: render(s) });
      return;
    }
    const reversed = o.timestamps.check(r, s, `${w.where}${path}`);
    if (reversed) out.push({ ...reversed, path });
    return;
  }
  if (path === 'body.message') {
    // The envelope's `message` comes before its `request_id`: compared once the body is walked.
    w.messages.push({ at: out.length, path, recorded: r, sandbox: s });
    return;
  }
  if (r !== s) out.push({ path, recorded: render(r), sandbox: render(s) });
}

/** The messages, with the sandbox's identifiers put back to the recorded ones, each at its place. */
function compareMessages(w: Walk): void {
  for (let i = w.messages.length - 1; i >= 0; i--) {
    const m = w.messages[i]!;
    if (w.o.ids.toRecorded(m.sandbox) === m.recorded) continue;
    w.out.splice(m.at, 0, { path: m.path, recorded: render(m.recorded), sandbox: render(m.sandbox) });
  }
}
