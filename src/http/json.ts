/**
 * Reading a JSON body, in one place (partnership writes, the control plane; the token
 * endpoint uses the media-type rule and the depth check, the journal the depth check).
 *
 * Media type: `application/json` or `application/…+json` (RFC 6839), parameters allowed;
 * a charset other than UTF-8 is refused rather than read as UTF-8 (RFC 8259 §8.1).
 *
 * Nesting: RFC 8259 §9 lets a parser limit nesting:
 * a body nested deeper than MAX_JSON_DEPTH is refused by a linear scan BEFORE JSON.parse,
 * which would otherwise build millions of arrays (a 30 MB `[[[…]]]` stalled the whole
 * process for seconds and kept a gigabyte).
 */
import { ApiError } from '../contract/api/errors.js';
import { jsonTooDeepMessage } from '../contract/api/messages.js';
import { MAX_JSON_DEPTH, tooDeepAt } from '../domain/json-depth.js';

/** 400 malformed_json naming the limit and the byte offset where the body goes past it (`at`: where tooDeepAt found it), or nothing. */
export function checkJsonDepth(text: string, at = tooDeepAt(text, MAX_JSON_DEPTH)): void {
  if (at === -1) return;
  const offset = Buffer.byteLength(text.slice(0, at));
  throw new ApiError('malformed_json', jsonTooDeepMessage(MAX_JSON_DEPTH, offset), {
    details: { max_depth: MAX_JSON_DEPTH, byte_offset: offset },
  });
}

/** A JSON body's value: 400 malformed_json when it nests too deep (checked first) or is not JSON. */
export function parseJson(text: string): unknown {
  checkJsonDepth(text);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError(
      'malformed_json',
      `Request body is not valid JSON: ${(e as Error).message.slice(0, 200)}`,
    );
  }
}

const JSON_ESSENCE = /^application\/(?:[a-z0-9.+-]*\+)?json$/i;

/** Whether a Content-Type names JSON (any parameters), whatever its charset. */
export function isJsonMediaType(type: string | undefined): boolean {
  return type !== undefined && JSON_ESSENCE.test(type.split(';', 1)[0]!.trim());
}

/** The charset parameter of a Content-Type (quotes removed), or undefined when there is none. */
function charsetOf(type: string): string | undefined {
  for (const param of type.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/** Why a Content-Type is not a JSON body this server reads (a message), or undefined when it is. */
export function jsonMediaTypeProblem(type: string | undefined): string | undefined {
  if (!type) return 'Content-Type must be application/json (none was sent).';
  if (!isJsonMediaType(type)) return `Content-Type must be application/json (got "${type.slice(0, 100)}").`;
  const charset = charsetOf(type);
  if (charset === undefined || charset.toLowerCase() === 'utf-8') return undefined;
  return `Content-Type must be application/json, in UTF-8: charset "${charset.slice(0, 40)}" is not read (send charset=utf-8 or none).`;
}

/** 415 unsupported_media_type naming the header, unless the Content-Type is JSON in UTF-8. */
export function checkJsonMediaType(type: string | undefined): void {
  const problem = jsonMediaTypeProblem(type);
  if (problem) throw new ApiError('unsupported_media_type', problem, { details: { header: 'Content-Type' } });
}

/**
 * Why a request body is coded in a way this server does not read (the header and a message),
 * or undefined when it is sent as it is: no Content-Encoding (or `identity`), and no transfer
 * coding but `chunked`. Nothing is decoded, so a compressed body must not be read as plain
 * bytes (RFC 9110 §8.4.1: 415 for an unsupported content coding; RFC 9112 §6.1 for transfer codings).
 */
export function bodyCodingProblem(
  contentEncoding: string | undefined,
  transferEncoding: string | undefined,
): { header: string; message: string } | undefined {
  const coding = contentEncoding?.trim();
  if (coding && coding.toLowerCase() !== 'identity') {
    return {
      header: 'Content-Encoding',
      message: `Content-Encoding "${coding.slice(0, 100)}" is not read: send the body uncompressed (no Content-Encoding, or identity).`,
    };
  }
  const transfer = transferEncoding?.trim() ?? '';
  const codings = transfer === '' ? [] : transfer.split(',').map((t) => t.trim().toLowerCase());
  if (codings.some((t) => t !== 'chunked')) {
    return {
      header: 'Transfer-Encoding',
      message: `Transfer-Encoding "${transfer.slice(0, 100)}" is not read: send the body uncompressed (chunked alone, or a Content-Length).`,
    };
  }
  return undefined;
}

/** 415 unsupported_media_type naming the header (with `Accept-Encoding: identity`), unless the body is uncoded. */
export function checkBodyCoding(
  contentEncoding: string | undefined,
  transferEncoding: string | undefined,
): void {
  const problem = bodyCodingProblem(contentEncoding, transferEncoding);
  if (problem) {
    throw new ApiError('unsupported_media_type', problem.message, {
      details: { header: problem.header },
      headers: { 'Accept-Encoding': 'identity' },
    });
  }
}
