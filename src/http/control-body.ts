/** Control-plane bodies: JSON validated with zod, errors in the one error envelope. */
import type { Context } from 'hono';
import type { z } from 'zod';
import { validationError } from '../contract/api/errors.js';
import { issuesToFields } from '../contract/api/issues.js';
import { checkJsonHeaders } from './body.js';
import type { AppEnv } from './env.js';
import { parseJson } from './json.js';
import { readJsonText } from './read-body.js';

/**
 * Reads a control-plane JSON body (an empty one reads as `{}`); `limit` overrides the body
 * limit; `read`: its text, when the body was read already (http/bind.ts, before the swap gate).
 */
export async function controlJson(
  c: Context<AppEnv>,
  limit?: number,
  read?: Promise<string>,
): Promise<unknown> {
  const text = await controlJsonText(c, limit, read);
  return text === undefined ? {} : parseJson(text);
}

/** A control-plane JSON body's text, its media type checked (undefined: an empty body). */
export async function controlJsonText(
  c: Context<AppEnv>,
  limit?: number,
  read: Promise<string> = readJsonText(c, limit),
): Promise<string | undefined> {
  const text = await read;
  if (text.trim() === '') return undefined;
  // The partnership API's rule: the whole media type, and UTF-8 only.
  checkJsonHeaders(c);
  return text;
}

/** Reads and validates a control-plane JSON body (`read`: its text, read already). */
export async function controlBody<T extends z.ZodType>(
  c: Context<AppEnv>,
  schema: T,
  read?: Promise<string>,
): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await controlJson(c, undefined, read));
  if (!parsed.success) throw validationError(issuesToFields(parsed.error.issues));
  return parsed.data;
}
