/**
 * `record`'s second step (docs/drift.md): a captured exchange made into its HAR entry. The
 * answer is decoded from its content coding, checked against the partner document
 * (`_contract`), and every secret in the exchange is redacted (redact.ts), in the order the
 * exchange went (URL, request headers and body, answer headers and body), which is the order
 * placeholders are numbered in.
 */
import { isUtf8 } from 'node:buffer';
import * as zlib from 'node:zlib';
import type { Captured } from './capture.js';
import type { ContractChecker } from './contract-check.js';
import { entryText, type HarEntry } from './har.js';
import type { Redactor } from './redact.js';

/** An exchange as written: its entry's JSON text, and what its stderr line names. */
export interface Recorded {
  text: string;
  contract: readonly string[];
  status: number;
  method: string;
  path: string;
}

export interface EntryContext {
  redactor: Redactor;
  checker: ContractChecker;
  /** The upstream's Host, which the entry's Host header names (what the request went to). */
  host: string;
}

/** The entry of a captured exchange, or undefined when it is not recorded (`report` says why). */
export function recordEntry(
  x: Captured,
  ctx: EntryContext,
  maxBody: number,
  report: (line: string) => void,
): Recorded | undefined {
  if (x.error !== undefined) {
    return {
      text: entryOf(x, ctx, [], () => ({ size: 0, mimeType: '' }), []),
      contract: [],
      status: 0,
      method: x.method,
      path: x.path,
    };
  }
  const answer = x.answer.length === 1 ? x.answer[0]! : Buffer.concat(x.answer);
  // The answer's headers by lower-case name (the last of a repeated one), for the check.
  const byName: Record<string, string> = {};
  // Content-Type and Content-Encoding as Node's `headers` has them: the first, and all joined.
  let contentType: string | undefined;
  let encoding: string | undefined;
  const resRaw = x.responseHeaders;
  for (let i = 0; i + 1 < resRaw.length; i += 2) {
    const lower = resRaw[i]!.toLowerCase();
    const value = resRaw[i + 1]!;
    byName[lower] = value;
    if (lower === 'content-type') contentType ??= value;
    else if (lower === 'content-encoding')
      encoding = encoding === undefined ? value : `${encoding}, ${value}`;
  }
  const mimeType = contentType ?? '';
  const { method, path, status } = x;
  const { text, content } = answerContent(x, answer, encoding, mimeType, maxBody, report);
  let contract: string[];
  try {
    const body = text ?? (content.size === 0 ? '' : undefined);
    contract = ctx.checker.check({ method, path, status, headers: byName, body });
  } catch (err) {
    contract = [`not checked: ${(err as Error).message}`];
  }
  const entry = entryOf(
    x,
    ctx,
    resRaw,
    () => (text === undefined ? content : { ...content, text: ctx.redactor.body(text, mimeType) }),
    contract,
  );
  return { text: entry, contract, status, method, path };
}

/**
 * The answer's content as the file has it: its text (to be redacted) when it decodes to UTF-8
 * within the bound; else its size and type only, with why in `comment` and a line on stderr.
 */
function answerContent(
  x: Captured,
  answer: Buffer,
  encoding: string | undefined,
  mimeType: string,
  maxBody: number,
  report: (line: string) => void,
): { text: string | undefined; content: HarEntry['response']['content'] } {
  // The bound counts the bytes decoded, and decoding stops at it: a few KB of gzip can be GBs.
  const rawOver = x.answerBytes > maxBody;
  const decoded = rawOver ? TOO_LARGE : decode(answer, encoding, maxBody);
  // What cannot be decoded and scanned is not written as content: its size and type are.
  if (Buffer.isBuffer(decoded) && isUtf8(decoded)) {
    return { text: decoded.toString('utf8'), content: { size: decoded.length, mimeType } };
  }
  const size = decoded === TOO_LARGE ? -1 : (decoded?.length ?? answer.length);
  const why =
    decoded === TOO_LARGE
      ? `the body ${rawOver ? 'is' : 'decodes to'} over ${maxBody} bytes`
      : decoded === undefined
        ? `a content coding record cannot decode (${encoding})`
        : 'a binary body, not UTF-8 text';
  const what = `${x.method} ${x.path} ${x.status}`;
  report(
    decoded === TOO_LARGE
      ? `record: ${what}: an answer body ${rawOver ? '' : 'that decodes to '}over ${maxBody} bytes; passed on, recorded without its body`
      : `record: ${what}: ${why}; recorded without its body`,
  );
  return { text: undefined, content: { size, mimeType, comment: `not recorded: ${why}` } };
}

/** The entry's text; `content` is called after the request's parts are redacted (numbering order). */
function entryOf(
  x: Captured,
  { redactor, host }: EntryContext,
  resHeaders: readonly string[],
  content: () => HarEntry['response']['content'],
  contract: readonly string[],
): string {
  const url = redactor.url(x.target.href);
  const requestHeaders = recordedHeaders(x.requestHeaders, redactor, host);
  const body = x.requestBody;
  // A body that is no UTF-8 text cannot be scanned: its size is written, not its bytes.
  const postData =
    body.length && isUtf8(body)
      ? { mimeType: x.requestMime, text: redactor.body(body.toString('utf8'), x.requestMime) }
      : undefined;
  const responseHeaders = recordedHeaders(resHeaders, redactor);
  const { startedAt, end, firstByteAt } = x;
  return entryText({
    startedMs: startedAt,
    time: end - startedAt,
    method: x.method,
    url,
    httpVersion: x.httpVersion,
    requestHeaders,
    queryString: x.target.search
      ? [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
      : [],
    postData,
    requestBodySize: body.length,
    status: x.status,
    statusText: x.statusText,
    responseHeaders,
    content: content(),
    error: x.error,
    timings: {
      send: 0,
      wait: firstByteAt ? firstByteAt - startedAt : end - startedAt,
      receive: firstByteAt ? end - firstByteAt : 0,
    },
    contract,
  });
}

/**
 * Headers as the file has them: the same names and order, each value redacted (Redactor.header),
 * and Host, when `host` is given, as the upstream's (what the request went to).
 */
function recordedHeaders(raw: readonly string[], redactor: Redactor, host?: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    out.push(
      name,
      host !== undefined && name.toLowerCase() === 'host' ? host : redactor.header(name, raw[i + 1]!),
    );
  }
  return out;
}

/**
 * The answer's body decoded from its content codings (RFC 9110 §8.4: listed in the order they
 * were applied, so undone from the last), or undefined when one is unknown or does not decode.
 */
function decode(
  raw: Buffer,
  encoding: string | undefined,
  max: number,
): Buffer | undefined | typeof TOO_LARGE {
  if (!encoding) return raw;
  let body = raw;
  try {
    for (const coding of encoding.split(',').reverse()) {
      body = decodeOne(body, coding.trim().toLowerCase(), { maxOutputLength: max });
    }
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? TOO_LARGE : undefined;
  }
  return body;
}

/** An answer whose body is (or decodes to) more than the bound. */
const TOO_LARGE = Symbol('too large');

/** One coding undone; zlib stops and throws ERR_BUFFER_TOO_LARGE once the output passes the bound. */
function decodeOne(body: Buffer, coding: string, limit: { maxOutputLength: number }): Buffer {
  switch (coding) {
    case '':
    case 'identity':
      return body;
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body, limit);
    case 'deflate':
      return zlib.inflateSync(body, limit);
    case 'br':
      return zlib.brotliDecompressSync(body, limit);
    case 'zstd': {
      // Node 22.15 and later: read through the namespace, so that an older Node (refused with
      // one line at start-up, src/runtime.ts) can still import the package to be told so.
      const zstd = (zlib as Partial<typeof zlib>).zstdDecompressSync;
      if (!zstd) throw new Error('this Node.js cannot undo zstd');
      return zstd(body, limit);
    }
    default:
      throw new Error(`unknown content coding ${coding}`);
  }
}
