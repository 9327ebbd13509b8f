/**
 * The field rules of the partner API: what a string, an integer, a URL or a domain must
 * be, with the message that names what is wrong (messages.ts). The schemas of
 * schemas.ts and the control plane's (control-schemas.ts) build on them, so each rule lives once.
 */
import { z } from '@hono/zod-openapi';
import {
  enumMessage as allowedValuesMessage,
  BLANK_MESSAGE,
  controlCharacterMessage,
  DOMAIN_NAME_MESSAGE,
  DOMAIN_PATH_MESSAGE,
  DOMAIN_PORT_MESSAGE,
  domainEmailMessage,
  domainSchemeMessage,
  EDGE_WHITESPACE_MESSAGE,
  EMPTY_MESSAGE,
  enumRequiredMessage,
  innerWhitespaceMessage,
  negativeMessage,
  notAnIntegerMessage,
  STORE_IDENTIFIER_HOST_MESSAGE,
  STORE_IDENTIFIER_INVALID_MESSAGE,
  storeIdentifierNoSchemeMessage,
  storeIdentifierSchemeMessage,
  storeIdentifierSlashesMessage,
  unpairedSurrogateMessage,
  wrongTypeMessage,
} from './messages.js';

export const enumMessage = (allowed: readonly string[]) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? enumRequiredMessage(allowed) : allowedValuesMessage(allowed),
});

/** An integer field: a wrong value is named for what it is (zod says "expected int, received number" of 10.5). */
export const integer = () =>
  z.int({
    error: (issue) =>
      issue.input === undefined
        ? undefined
        : typeof issue.input === 'number'
          ? notAnIntegerMessage(issue.input)
          : wrongTypeMessage('integer', issue.input),
  });
export const nonNegativeInteger = () =>
  integer().nonnegative({
    error: (issue) => (typeof issue.input === 'number' ? negativeMessage(issue.input) : undefined),
  });

// ---- characters in string values ---------------------------------------------------

/** C0 controls, DEL and C1 controls (U+0000-U+001F, U+007F-U+009F). */
const CONTROL = /\p{Cc}/u;
/** With the u flag, only a surrogate that is not half of a pair is a Cs code point. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;
export const EDGE_WHITESPACE = /^\s|\s$/;

/**
 * Characters no string field accepts: control characters (a newline or a NUL is not
 * whitespace to trim but a character that should not be there), and unpaired surrogates
 * (the store keeps UTF-8, where they would all become U+FFFD and distinct values equal).
 */
export function characterProblem(value: string): string | undefined {
  const control = CONTROL.exec(value);
  if (control) return controlCharacterMessage(control[0], control.index);
  const surrogate = UNPAIRED_SURROGATE.exec(value);
  if (surrogate) return unpairedSurrogateMessage(surrogate[0], surrogate.index);
  return undefined;
}

/**
 * Identifiers and names are kept and compared exactly as sent, never trimmed (trimming
 * made " m-1" and "m-1" one merchant): a value with whitespace at either end is 400.
 */
export function textProblem(value: string): string | undefined {
  const bad = characterProblem(value);
  if (bad) return bad;
  if (EDGE_WHITESPACE.test(value)) return value.trim() === '' ? BLANK_MESSAGE : EDGE_WHITESPACE_MESSAGE;
  return undefined;
}

export const problemCheck =
  (problem: (value: string) => string | undefined) => (value: string, ctx: z.core.$RefinementCtx<string>) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: 'custom', message });
  };

// ---- limits (docs/guarantees-and-limits.md#limits) ---------------------------------

export const limits = {
  storeIdentifierMin: 3,
  storeIdentifierMax: 400,
  stringMax: 200,
  idMax: 128,
  blockedVerticalsMax: 1000,
  domainsMax: 1000,
  pagesMax: 20,
  domainMax: 253,
} as const;

// ---- names, URLs and domains -----------------------------------------------------

/**
 * textProblem's rules as a JSON Schema pattern, for the documents: no control character (C0,
 * DEL, C1), no whitespace at either end. No lookaround, so RE2 (Go's validators) reads it too.
 */
export const TEXT_PATTERN =
  '^[^\\s\\x00-\\x1F\\x7F-\\x9F](?:[^\\x00-\\x1F\\x7F-\\x9F]*[^\\s\\x00-\\x1F\\x7F-\\x9F])?$';

/** A name or identifier kept exactly as sent: not empty, no control character, no blank at either end. */
export const nonEmpty = (max: number = limits.stringMax) =>
  z
    .string()
    .min(1, { error: EMPTY_MESSAGE })
    .max(max, { error: `must be at most ${max} characters` })
    .superRefine(problemCheck(textProblem))
    .openapi({ pattern: TEXT_PATTERN });

/** Spec §2.2: a valid URL including the scheme, 3 to 400 characters; a bare host is 400. */
export const StoreIdentifier = z
  .string()
  .min(limits.storeIdentifierMin, {
    error: `must be ${limits.storeIdentifierMin} to ${limits.storeIdentifierMax} characters`,
  })
  .max(limits.storeIdentifierMax, {
    error: `must be ${limits.storeIdentifierMin} to ${limits.storeIdentifierMax} characters`,
  })
  .superRefine(problemCheck(storeIdentifierProblem))
  .openapi({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://\\S+$', example: 'https://shop.example.com' });

/** A scheme at the start of a value ("mailto:"), unless what follows the colon is a port. */
const SCHEME = /^([a-z][a-z0-9+.-]*):(?!\d)/i;

/** Whitespace at either end, or inside: a URL or a host name has none. */
function whitespaceProblem(value: string): string | undefined {
  if (EDGE_WHITESPACE.test(value)) return EDGE_WHITESPACE_MESSAGE;
  const space = /\s/.exec(value);
  return space ? innerWhitespaceMessage(space[0], space.index) : undefined;
}

export function storeIdentifierProblem(value: string): string | undefined {
  const bad = characterProblem(value) ?? whitespaceProblem(value);
  if (bad) return bad;
  const scheme = SCHEME.exec(value);
  if (!scheme) {
    // a bare host, a host with a port, or a scheme-relative URL
    return storeIdentifierNoSchemeMessage(`https://${value.replace(/^\/+/, '') || 'shop.example.com'}`);
  }
  const name = scheme[1]!.toLowerCase();
  if (name !== 'http' && name !== 'https') return storeIdentifierSchemeMessage(scheme[1]!.slice(0, 20));
  if (!value.slice(scheme[0].length).startsWith('//')) return storeIdentifierSlashesMessage(name);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value.length === scheme[0].length + 2
      ? STORE_IDENTIFIER_HOST_MESSAGE
      : STORE_IDENTIFIER_INVALID_MESSAGE;
  }
  if (!url.hostname) return STORE_IDENTIFIER_HOST_MESSAGE;
  return undefined;
}

/** Spec §2.5 domains: bare host names; the rules below are the sandbox's choice (docs/where-the-spec-is-silent.md). */
export function domainProblem(value: string): string | undefined {
  if (value.length === 0) return EMPTY_MESSAGE;
  const bad = characterProblem(value) ?? whitespaceProblem(value);
  if (bad) return bad;
  const scheme = SCHEME.exec(value);
  if (scheme) return domainSchemeMessage(hostOf(value.slice(scheme[0].length)));
  if (value.includes('/')) return DOMAIN_PATH_MESSAGE;
  if (value.includes('@')) return domainEmailMessage(hostOf(value));
  if (value.includes(':')) return DOMAIN_PORT_MESSAGE;
  if (value.length > limits.domainMax) return `must be at most ${limits.domainMax} characters`;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
  const labels = value.split('.');
  if (labels.length < 2 || !labels.every((l) => label.test(l))) return DOMAIN_NAME_MESSAGE;
  return undefined;
}

/** domainProblem's host name rule as a JSON Schema pattern (two or more labels; RE2-readable). */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
export const DOMAIN_PATTERN = `^${LABEL}(?:\\.${LABEL})+$`;

/** The host part of what was sent after a scheme (no slashes, user, path or port): the hint. */
function hostOf(rest: string): string {
  const host = rest.replace(/^\/+/, '').split(/[/?#]/)[0]!.replace(/^.*@/, '').replace(/:\d*$/, '');
  return host || 'example.com';
}
