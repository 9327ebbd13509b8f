/** Reading a write's JSON body: 415 for another media type, 400 for malformed JSON, JSON nested too deep or bytes that are not UTF-8. */
import type { Context } from 'hono';
import { ApiError } from '../contract/errors.js';
import type { AppEnv } from './env.js';
import { requestHeader } from './headers.js';
import { parseJson } from './json.js';
import { readJsonText } from './read-body.js';

const JSON_TYPE = /^application\/(?:[a-z0-9.+-]*\+)?json\s*(?:;.*)?$/i;

export async function jsonBody(c: Context<AppEnv>): Promise<void> {
  const type = requestHeader(c, 'content-type');
  if (!type || !JSON_TYPE.test(type)) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type must be application/json${type ? ` (got "${type.slice(0, 100)}")` : ' (none was sent)'}.`,
      { details: { header: 'Content-Type' } },
    );
  }
  // Read once: a request that starts over after a reset keeps the body it read.
  const text = c.get('rawBody') ?? (await readJsonText(c));
  if (text.trim() === '') throw new ApiError('malformed_json', 'Request body is empty: send a JSON object.');
  c.set('jsonBody', parseJson(text));
}
