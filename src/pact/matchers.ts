/**
 * Pact V4 matching rules for an answer's body (docs/contracts.md): what the service issues
 * anew on every call is matched by its form, not its value, so a pact recorded once verifies
 * against any fresh provider. Identifiers (`…_id`, `…_hash`, `…_token`, `page_identifier`,
 * as drift names them) by type, `request_id` by the UUID form, timestamps by the ISO 8601
 * form, the arrays of `data` by the type of their first element (any length), and an error's
 * message by type when it quotes an identifier or a time. Everything else by value.
 */
import { isIdentifierField, isTimestamp } from '../drift/api.js';

export interface Matcher {
  match: 'type' | 'regex';
  regex?: string;
  min?: number;
}

export type Rules = Record<string, { combine: 'AND'; matchers: Matcher[] }>;

export const UUID_REGEX = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const TIMESTAMP_REGEX =
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$';
const QUOTES_AN_ID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-|\d{4}-\d{2}-\d{2}T|acct_|sha256:|[0-9a-f]{16}/;

const rule = (...matchers: Matcher[]) => ({ combine: 'AND' as const, matchers });

/** A JSONPath step: `.name`, or `['name']` when the name is not a plain word. */
const step = (key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `['${key.replace(/'/g, "\\'")}']`;

/** The body rules of one answer (an envelope, or the token endpoint's answer). */
export function bodyRules(body: unknown): Rules {
  const rules: Rules = {};
  walk(body, '$', undefined, false, rules);
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const envelope = body as Record<string, unknown>;
    if (typeof envelope.request_id === 'string')
      rules['$.request_id'] = rule({ match: 'regex', regex: UUID_REGEX });
    if (envelope.error && typeof envelope.message === 'string' && QUOTES_AN_ID.test(envelope.message))
      rules['$.message'] = rule({ match: 'type' });
  }
  return rules;
}

function walk(value: unknown, path: string, key: string | undefined, inData: boolean, rules: Rules): void {
  if (Array.isArray(value)) {
    if (inData && value.length) rules[path] = rule({ match: 'type', min: 0 });
    for (const [i, v] of value.entries()) walk(v, `${path}[${inData ? '*' : i}]`, key, inData, rules);
    return;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value))
      walk(v, `${path}${step(k)}`, k, inData || (path === '$' && k === 'data'), rules);
    return;
  }
  if (typeof value !== 'string' || path === '$.request_id') return;
  if (isTimestamp(value)) rules[path] = rule({ match: 'regex', regex: TIMESTAMP_REGEX });
  else if (isIdentifierField(key)) rules[path] = rule({ match: 'type' });
}

/** A request header matched by a regex (the Authorization placeholder). */
export const headerRule = (regex: string) => rule({ match: 'regex', regex });
