/**
 * `record`'s second step (docs/drift.md): a captured exchange made into its HAR entry. The
 * answer is decoded from its content coding, checked against the partner document
 * (`_contract`), and every secret in the exchange is redacted (redact.ts), in the order the
 * exchange went (URL, request headers and body, answer headers and body), which is the order
 * placeholders are numbered in.
 */
import { isUtf8 } from 'node:buffer';
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from 'node:zlib';
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
  if (x.answerBytes > maxBody) {
    report(
      `record: ${x.method} ${x.path} ${x.status}: an answer body over ${maxBody} bytes; passed on, not recorded`,
    );
    return undefined;
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
  const decoded = decode(answer, encoding);
  // What cannot be decoded and scanned is not written as content: its size and type are.
  const text = decoded !== undefined && isUtf8(decoded) ? decoded.toString('utf8') : undefined;
  const { method, path, status } = x;
  if (text === undefined && answer.length) {
    report(
      `record: ${method} ${path} ${status}: ${
        decoded === undefined
          ? `an answer in a content coding record cannot decode (${encoding})`
          : 'a binary answer'
      }; recorded without its body`,
    );
  }
  let contract: string[];
  try {
    contract = ctx.checker.check({ method, path, status, headers: byName, body: text ?? '' });
  } catch (err) {
    contract = [`not checked: ${(err as Error).message}`];
  }
  const entry = entryOf(
    x,
    ctx,
    resRaw,
    () =>
      text !== undefined
        ? { size: decoded!.length, mimeType, text: ctx.redactor.body(text, mimeType) }
        : { size: decoded?.length ?? answer.length, mimeType },
    contract,
  );
  return { text: entry, contract, status, method, path };
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
function decode(raw: Buffer, encoding: string | undefined): Buffer | undefined {
  if (!encoding) return raw;
  let body = raw;
  try {
    for (const coding of encoding.split(',').reverse()) {
      body = decodeOne(body, coding.trim().toLowerCase());
    }
  } catch {
    return undefined;
  }
  return body;
}

function decodeOne(body: Buffer, coding: string): Buffer {
  switch (coding) {
    case '':
    case 'identity':
      return body;
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      return inflateSync(body);
    case 'br':
      return brotliDecompressSync(body);
    case 'zstd':
      return zstdDecompressSync(body);
    default:
      throw new Error(`unknown content coding ${coding}`);
  }
}
