/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as recordings use it: the entry
 * shape `record` writes, the writer that keeps the file valid HAR after every entry, and the
 * reader `verify` uses, which refuses a file that is no HAR with one line saying why.
 */
import { closeSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: unknown[];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text?: string; encoding?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    /** Why there is no answer (Chrome's field): `record` writes `net::ERR_CONNECTION_RESET` for a reset. */
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  /** The ways the answer breaks the partner OpenAPI document; [] when none (docs/drift.md). */
  _contract?: string[];
}

/** The `_error` of an exchange whose upstream connection was reset (as Chrome DevTools writes it). */
export const RESET_ERROR = 'net::ERR_CONNECTION_RESET';

/** A file that is no HAR recording of the API: `verify` exits 2 with this message as its one line. */
export class RecordingError extends Error {
  override name = 'RecordingError';
}

const TAIL = '\n]}}\n';
const TAIL_BYTES = Buffer.byteLength(TAIL);

/**
 * Appends entries to a HAR file that is valid after each write: the file always ends with the
 * closing `]}}`, and each write is of the new entries (`,entry` each) plus that tail over the
 * old tail, on the fd opened once, so a kill (even -9) between two writes leaves the entries
 * written so far, a whole HAR.
 */
export class HarWriter {
  readonly #fd: number;
  #end: number;
  #count = 0;

  constructor(
    readonly path: string,
    creator: { name: string; version: string },
  ) {
    this.#fd = openSync(path, 'w');
    const head = `{"log":{"version":"1.2","creator":${JSON.stringify(creator)},"pages":[],"entries":[`;
    writeSync(this.#fd, head + TAIL);
    this.#end = fstatSync(this.#fd).size - Buffer.byteLength(TAIL);
  }

  get count(): number {
    return this.#count;
  }

  /**
   * Appends entries, each given as its JSON text (entryText), in their order with one write
   * (record's batch: the exchanges completed in one turn of the event loop). Nothing is counted
   * unless the write succeeds.
   */
  appendAll(entries: readonly string[]): void {
    if (entries.length === 0) return;
    let text = this.#count === 0 ? '\n' : ',\n';
    text += entries.join(',\n');
    text += TAIL;
    // The text as it is, no Buffer of it first: a short write (rare, for a file) is finished
    // from a Buffer of the rest.
    const size = Buffer.byteLength(text);
    let written = writeSync(this.#fd, text, this.#end);
    if (written < size) {
      const bytes = Buffer.from(text);
      while (written < size) {
        written += writeSync(this.#fd, bytes, written, size - written, this.#end + written);
      }
    }
    this.#end += size - TAIL_BYTES;
    this.#count += entries.length;
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** What an entry is made of, as `record` has it: headers as Node's raw name/value lists. */
export interface EntryParts {
  /** Epoch ms the request arrived. */
  startedMs: number;
  time: number;
  method: string;
  url: string;
  httpVersion: string;
  /** `[name, value, name, value, ...]`, the values as they go in the file (redacted). */
  requestHeaders: readonly string[];
  queryString: readonly HarHeader[];
  postData: { mimeType: string; text: string } | undefined;
  requestBodySize: number;
  status: number;
  statusText: string;
  responseHeaders: readonly string[];
  content: HarEntry['response']['content'];
  /** Why there is no answer (`_error`). */
  error: string | undefined;
  timings: HarEntry['timings'];
  contract: readonly string[];
}

/**
 * An entry's JSON text, written field by field: the text `JSON.stringify` gives the HarEntry
 * with the same fields (record's HAR, tested so in har.test.ts), without building that object
 * and its header objects first. Only strings go through JSON.stringify (for their escaping).
 */
export function entryText(e: EntryParts): string {
  const q = JSON.stringify;
  const content = e.content;
  return (
    `{"startedDateTime":"${isoDate(e.startedMs)}","time":${e.time},"request":{"method":${q(e.method)},"url":${q(e.url)},"httpVersion":${q(e.httpVersion)},"cookies":[],"headers":${headersText(e.requestHeaders)},"queryString":${e.queryString.length ? q(e.queryString) : '[]'},` +
    (e.postData ? `"postData":{"mimeType":${q(e.postData.mimeType)},"text":${q(e.postData.text)}},` : '') +
    `"headersSize":-1,"bodySize":${e.requestBodySize}},"response":{"status":${e.status},"statusText":${q(e.statusText)},"httpVersion":"HTTP/1.1","cookies":[],"headers":${headersText(e.responseHeaders)},` +
    `"content":{"size":${content.size},"mimeType":${q(content.mimeType)}${content.text === undefined ? '' : `,"text":${q(content.text)}`}${content.encoding === undefined ? '' : `,"encoding":${q(content.encoding)}`}},` +
    `"redirectURL":"","headersSize":-1,"bodySize":${content.size}${e.error === undefined ? '' : `,"_error":${q(e.error)}`}},` +
    `"cache":{},"timings":{"send":${e.timings.send},"wait":${e.timings.wait},"receive":${e.timings.receive}},"_contract":${e.contract.length ? q(e.contract) : '[]'}}`
  );
}

function headersText(raw: readonly string[]): string {
  let out = '[';
  for (let i = 0; i + 1 < raw.length; i += 2) {
    out += `${i === 0 ? '' : ','}{"name":${JSON.stringify(raw[i])},"value":${JSON.stringify(raw[i + 1])}}`;
  }
  return `${out}]`;
}

/** `new Date(ms).toISOString()`, kept for the last millisecond asked: a busy recording asks the same one many times. */
let lastMs = Number.NaN;
let lastIso = '';
function isoDate(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** What verify reads of an entry: the parts it replays and compares. */
export interface ReadEntry {
  index: number;
  startedMs: number;
  method: string;
  url: URL;
  requestHeaders: HarHeader[];
  requestBody: string | undefined;
  /** The HTTP status; 0 or below (DevTools' 0, Playwright's -1): no answer was recorded. */
  status: number;
  /** Why there is no answer: `_error` (DevTools, record) or `_failureText` (Playwright). */
  error: string | undefined;
  responseHeaders: HarHeader[];
  /** The answer's body; undefined when the tool did not record it (see recordedBody). */
  responseBody: string | undefined;
}

const what = (value: unknown) => (Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value);

/** Reads a HAR file (HAR 1.1 or 1.2, any tool's) or throws a RecordingError naming what is wrong. */
export function readHar(file: string): ReadEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new RecordingError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return parseHar(text, file);
}

/** Parses HAR text; `name` is how messages call it. */
export function parseHar(text: string, name: string): ReadEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    // The parser quotes the file's start, newlines included: one line, whitespace collapsed.
    const why = (err as Error).message.replace(/\s+/g, ' ');
    throw new RecordingError(`${name} is not JSON (${why}), so not a HAR file`);
  }
  const log = (doc as { log?: unknown } | null)?.log;
  if (typeof log !== 'object' || log === null)
    throw new RecordingError(`${name} is not a HAR file: no "log" object`);
  const entries = (log as { entries?: unknown }).entries;
  if (!Array.isArray(entries)) {
    throw new RecordingError(`${name} is not a HAR file: log.entries is ${what(entries)}, not an array`);
  }
  return entries.map((raw, index) => readEntry(raw, index, name));
}

function readEntry(raw: unknown, index: number, name: string): ReadEntry {
  const where = `${name}: log.entries[${index}]`;
  const fail = (problem: string): never => {
    throw new RecordingError(`${where} is not a HAR entry: ${problem}`);
  };
  if (typeof raw !== 'object' || raw === null) return fail(`it is ${what(raw)}`);
  const e = raw as Record<string, unknown>;
  const req = e.request as Record<string, unknown> | undefined;
  const res = e.response as Record<string, unknown> | undefined;
  if (typeof req !== 'object' || req === null) return fail('no request object');
  if (typeof res !== 'object' || res === null) return fail('no response object');
  if (typeof req.method !== 'string' || !req.method) return fail('request.method is not a string');
  if (typeof req.url !== 'string') return fail('request.url is not a string');
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return fail(`request.url ${JSON.stringify(req.url.slice(0, 200))} is not an absolute URL`);
  }
  if (typeof res.status !== 'number' || !Number.isInteger(res.status))
    return fail('response.status is not an integer');
  const started = typeof e.startedDateTime === 'string' ? Date.parse(e.startedDateTime) : Number.NaN;
  if (Number.isNaN(started)) return fail('startedDateTime is not a date');
  const requestHeaders = headersOf(req.headers, `${where}.request.headers`);
  const responseHeaders = headersOf(res.headers, `${where}.response.headers`);
  const postData = req.postData as { text?: unknown } | undefined;
  const failure = typeof res._error === 'string' ? res._error : res._failureText;
  return {
    index,
    startedMs: started,
    method: req.method.toUpperCase(),
    url,
    requestHeaders,
    requestBody: typeof postData?.text === 'string' ? postData.text : undefined,
    status: res.status,
    error: typeof failure === 'string' ? failure : undefined,
    responseHeaders,
    responseBody: recordedBody(res.content),
  };
}

/**
 * The answer's body as recorded, or undefined when the tool did not record it: Chromium (through
 * Playwright's recordHar) writes `content.size: -1` for a body the page never read, and a tool
 * that leaves bodies out writes a size above 0 and no `text`. Neither is an empty body.
 */
function recordedBody(raw: unknown): string | undefined {
  const content = raw as { size?: unknown; text?: unknown; encoding?: unknown } | undefined;
  if (typeof content?.size === 'number' && content.size < 0) return undefined;
  if (typeof content?.text !== 'string') {
    return typeof content?.size === 'number' && content.size > 0 ? undefined : '';
  }
  return content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text;
}

function headersOf(raw: unknown, where: string): HarHeader[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new RecordingError(`${where} is ${what(raw)}, not an array`);
  return raw.map((h, i) => {
    const header = h as Partial<HarHeader> | null;
    if (typeof header?.name !== 'string' || typeof header.value !== 'string') {
      throw new RecordingError(`${where}[${i}] is not a {name, value} pair of strings`);
    }
    return { name: header.name, value: header.value };
  });
}

/** The value of a header (case-insensitive name), the first when repeated. */
export function headerValue(headers: readonly HarHeader[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === lower)?.value;
}
