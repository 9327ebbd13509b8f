/** Control-plane bodies: JSON validated with zod, errors in the one error envelope. */
import type { Context } from 'hono';
import type { z } from 'zod';
import { validationError } from '../contract/api/errors.js';
import { issuesToFields } from '../contract/api/issues.js';
import type { AppEnv } from './env.js';
import { requestHeader } from './headers.js';
import { checkBodyCoding, checkJsonMediaType, parseJson } from './json.js';
import { readJsonText } from './read-body.js';

/** Reads a control-plane JSON body (an empty one reads as `{}`); `limit` overrides the body limit. */
export async function controlJson(c: Context<AppEnv>, limit?: number): Promise<unknown> {
  const text = await controlJsonText(c, limit);
  return text === undefined ? {} : parseJson(text);
}

/** A control-plane JSON body's text, its media type checked (undefined: an empty body). */
export async function controlJsonText(c: Context<AppEnv>, limit?: number): Promise<string | undefined> {
  const text = await readJsonText(c, limit);
  if (text.trim() === '') return undefined;
  // The partnership API's rule (http/json.ts): the whole media type, and UTF-8 only.
  checkJsonMediaType(requestHeader(c, 'content-type'));
  checkBodyCoding(requestHeader(c, 'content-encoding'), requestHeader(c, 'transfer-encoding'));
  return text;
}

/** Reads and validates a control-plane JSON body. */
export async function controlBody<T extends z.ZodType>(c: Context<AppEnv>, schema: T): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await controlJson(c));
  if (!parsed.success) throw validationError(issuesToFields(parsed.error.issues));
  return parsed.data;
}
