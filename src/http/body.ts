/** Reading a write's JSON body: 415 for another media type, charset or a content coding, 400 for malformed JSON, JSON nested too deep or bytes that are not UTF-8. */
import type { Context } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import type { AppEnv } from './env.js';
import { checkBodyCoding, checkJsonMediaType, parseJson } from './json.js';
import { readJsonText } from './read-body.js';
import { requestHeader } from './request-headers.js';

/** A JSON body's headers (http/json.ts's rules): the whole media type, and UTF-8 with no content coding. */
export function checkJsonHeaders(c: Context<AppEnv>): void {
  checkJsonMediaType(requestHeader(c, 'content-type'));
  checkBodyCoding(requestHeader(c, 'content-encoding'), requestHeader(c, 'transfer-encoding'));
}

export async function jsonBody(c: Context<AppEnv>): Promise<void> {
  checkJsonHeaders(c);
  // Read once: a request that starts over after a reset keeps the body it read.
  const text = c.get('rawBody') ?? (await readJsonText(c));
  if (text.trim() === '') throw new ApiError('malformed_json', 'Request body is empty: send a JSON object.');
  c.set('jsonBody', parseJson(text));
}
