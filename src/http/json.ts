/**
 * Parsing a JSON body, in one place (partnership writes, the control plane; the token
 * endpoint and the journal use the depth check). RFC 8259 §9 lets a parser limit nesting:
 * a body nested deeper than MAX_JSON_DEPTH is refused by a linear scan BEFORE JSON.parse,
 * which would otherwise build millions of arrays (a 30 MB `[[[…]]]` stalled the whole
 * process for seconds and kept a gigabyte).
 */
import { ApiError } from '../contract/errors.js';
import { jsonTooDeepMessage } from '../contract/messages.js';
import { MAX_JSON_DEPTH, tooDeepAt } from '../domain/json-depth.js';

/** 400 malformed_json naming the limit and the byte offset where the body goes past it, or nothing. */
export function checkJsonDepth(text: string): void {
  const at = tooDeepAt(text);
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
