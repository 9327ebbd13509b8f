/**
 * `record`'s second step (docs/drift.md): a captured exchange made into its HAR entry. The
 * answer is decoded from its content coding, checked against the partner document
 * (`_contract`), and every secret in the exchange is redacted (redact.ts), in the order the
 * exchange went (URL, request headers and body, answer headers and body), which is the order
 * placeholders are numbered in.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
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
  const textual = decoded !== undefined && isTextual(mimeType, decoded);
  const text = textual ? decoded.toString('utf8') : undefined;
  const { method, path, status } = x;
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
        : {
            size: decoded?.length ?? answer.length,
            mimeType,
            text: answer.toString('base64'),
            encoding: 'base64',
          },
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
  const postData = body.length
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

function decode(raw: Buffer, encoding: string | undefined): Buffer | undefined {
  try {
    switch ((encoding ?? '').trim().toLowerCase()) {
      case '':
      case 'identity':
        return raw;
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(raw);
      case 'deflate':
        return inflateSync(raw);
      case 'br':
        return brotliDecompressSync(raw);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

function isTextual(mimeType: string, body: Buffer): boolean {
  if (/json|text|xml|x-www-form-urlencoded|javascript/i.test(mimeType)) return true;
  if (body.length === 0) return true;
  return !mimeType && !body.includes(0);
}
