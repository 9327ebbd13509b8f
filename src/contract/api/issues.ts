/**
 * Zod issues as the fields of the one validation error: every field
 * named the way the client sent it, unknown fields listed, and a hint where a snake_case
 * name was sent for a camelCase field (or the other way round). Used for requests
 * (http/validation.ts, the control plane) and for bundle files (state/bundles/bundle-import.ts).
 */
import type { z } from 'zod';
import type { FieldIssue } from './errors.js';
import { EMPTY_MESSAGE, REQUIRED_MESSAGE, UNKNOWN_FIELD_MESSAGE, unknownFieldHint } from './messages.js';
import { knownFieldNames } from './schemas.js';

/**
 * A length or range zod words itself ("Too small: expected string to have >=1 characters"), in
 * the sandbox's words ("must not be empty"); undefined for a message a schema gave its own.
 */
function boundMessage(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'too_small' && issue.code !== 'too_big') return undefined;
  if (!/^Too (small|big): /.test(issue.message)) return undefined;
  const small = issue.code === 'too_small';
  const n = Number(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      if (small) return n === 1 ? EMPTY_MESSAGE : `must be at least ${n} characters`;
      return `must be at most ${n} characters`;
    case 'array':
      if (small) return n === 1 ? 'must have at least one entry' : `must have at least ${n} entries`;
      return `must have at most ${n} entries`;
    case 'number':
    case 'int':
      if (small) return inclusive ? `must be at least ${n}` : `must be greater than ${n}`;
      return inclusive ? `must be at most ${n}` : `must be less than ${n}`;
    default:
      return undefined;
  }
}

/** At most this many fields are named in one validation error. */
export const MAX_ISSUES = 20;

const toCamel = (s: string) => s.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());
const toSnake = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([a-z])([0-9])/g, '$1_$2')
    .toLowerCase();

/** The right name for a wrongly cased field, if the contract knows one. */
export function suggestField(key: string): string | undefined {
  for (const candidate of [toCamel(key), toSnake(key), toCamel(key).replace(/_/g, '')]) {
    if (candidate !== key && knownFieldNames.has(candidate)) return candidate;
  }
  // position_1_policy -> position1Policy
  const squashed = toCamel(key.replace(/_(\d)/g, '$1'));
  if (squashed !== key && knownFieldNames.has(squashed)) return squashed;
  return undefined;
}

export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/**
 * How the fields are worded. `request` (a request's query, path, headers or body): once a
 * field's type is wrong that is its one problem, an unknown field gets a hint where a
 * near miss of a known name was sent, a missing one "is required". `bundle` (a bundle
 * file, and the stored answers in it): every issue as zod words it, an unknown field
 * "unknown field".
 */
export type IssueStyle = 'request' | 'bundle';

/**
 * Zod's issues as named fields (`accounts[0].pages[1].page_id`, under `prefix` when one is
 * given, else "(body)" for the whole value), unknown keys one by one, at most MAX_ISSUES.
 */
export function issuesToFields(
  issues: readonly z.core.$ZodIssue[],
  prefix = '',
  style: IssueStyle = 'request',
): FieldIssue[] {
  const fields: FieldIssue[] = [];
  const at = (path: readonly PropertyKey[]) => {
    const p = fieldPath(path);
    return prefix ? (p ? `${prefix}.${p}` : prefix) : p || '(body)';
  };
  // zod 4 still runs length checks on a value of the wrong type (an array has a length):
  // once a field's type is wrong, that is its one problem.
  const wrongType = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => fieldPath(i.path)));
  for (const issue of issues) {
    if (style === 'bundle') {
      if (issue.code === 'unrecognized_keys')
        for (const key of issue.keys)
          fields.push({ field: at([...issue.path, key]), message: UNKNOWN_FIELD_MESSAGE });
      else fields.push({ field: at(issue.path), message: issue.message.replace(/^Invalid input: /, '') });
      continue;
    }
    if (issue.code !== 'invalid_type' && wrongType.has(fieldPath(issue.path))) continue;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const hint = suggestField(key);
        fields.push({
          field: at([...issue.path, key]),
          message: hint ? unknownFieldHint(hint) : UNKNOWN_FIELD_MESSAGE,
        });
      }
      continue;
    }
    let message = boundMessage(issue) ?? issue.message;
    if (issue.code === 'invalid_type' && /received undefined/.test(message)) message = REQUIRED_MESSAGE;
    else if (issue.code === 'invalid_type') message = message.replace(/^Invalid input: /, '');
    fields.push({ field: at(issue.path), message });
  }
  return fields.slice(0, MAX_ISSUES);
}
