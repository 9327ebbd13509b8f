/**
 * Turns zod issues into the one validation error: every field named the way the client
 * sent it, unknown fields listed, and a hint where a snake_case name was sent for a
 * camelCase field (or the other way round).
 */
import type { z } from 'zod';
import { type FieldIssue, validationError } from '../contract/errors.js';
import { knownFieldNames } from '../contract/schemas.js';

const MAX_ISSUES = 20;

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

export function issuesToFields(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldIssue[] {
  const fields: FieldIssue[] = [];
  const at = (path: readonly PropertyKey[]) => {
    const p = fieldPath(path);
    return prefix ? (p ? `${prefix}.${p}` : prefix) : p || '(body)';
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const hint = suggestField(key);
        fields.push({
          field: at([...issue.path, key]),
          message: hint ? `unknown field; did you mean "${hint}"?` : 'unknown field',
        });
      }
      continue;
    }
    let message = issue.message;
    if (issue.code === 'invalid_type' && /received undefined/.test(message)) message = 'is required';
    else if (issue.code === 'invalid_type') message = message.replace(/^Invalid input: /, '');
    fields.push({ field: at(issue.path), message });
  }
  return fields.slice(0, MAX_ISSUES);
}

/** The OpenAPIHono defaultHook: a failed validation becomes the 400 envelope. */
export function validationHook(
  result: { success: true } | { success: false; error: z.ZodError; target: string },
): void {
  if (result.success) return;
  const prefix =
    result.target === 'query'
      ? 'query'
      : result.target === 'header'
        ? 'header'
        : result.target === 'param'
          ? 'path'
          : '';
  throw validationError(issuesToFields(result.error.issues, prefix));
}
