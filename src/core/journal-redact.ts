/**
 * The journal's redaction (docs/control-plane.md): secrets are never shown in clear, in
 * headers, query parameters or bodies (JSON, forms or other text), whatever their depth.
 */
import { MAX_JSON_DEPTH, tooDeepAt } from '../domain/json-depth.js';
import { setOwn } from '../domain/own.js';
import { AUTH_SCHEME, isSecretKey } from '../domain/secret-names.js';

export { isSecretKey };

// Text that is neither JSON nor a form: any quoted key or form name that looks secret.
const SECRET_FIELDS = /("((?:[^"\\]|\\.)*)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;
const SECRET_FORM_FIELDS = /((?:^|&)([^=&]*)=)[^&]*/g;
export const REDACTED = '[REDACTED]';

/**
 * A request's headers as the HTTP layer kept them, uncopied: Node's raw name/value list
 * when served over a socket, Fetch Headers in process.
 */
export type RequestHeaders = readonly string[] | Headers;

/**
 * Lower-case name -> value, repeated names joined with ", ", sorted by name (the view
 * Fetch Headers gives, from either form), secrets redacted.
 */
export function redactHeaders(headers: RequestHeaders): Record<string, string> {
  const joined = new Map<string, string>();
  if (headers instanceof Headers) {
    for (const [name, value] of headers) joined.set(name, value);
  } else {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const name = headers[i]!.toLowerCase();
      const prev = joined.get(name);
      joined.set(name, prev === undefined ? headers[i + 1]! : `${prev}, ${headers[i + 1]!}`);
    }
  }
  const out: Record<string, string> = {};
  for (const name of [...joined.keys()].sort()) {
    const value = joined.get(name)!;
    setOwn(out, name, isSecretKey(name) ? redactCredential(value) : value);
  }
  return out;
}

/** `Bearer abc` -> `Bearer [REDACTED]` (a known scheme is kept); anything else -> `[REDACTED]`. */
function redactCredential(value: string): string {
  const match = /^(\S+) +\S/.exec(value);
  return match && AUTH_SCHEME.test(match[1]!) ? `${match[1]} ${REDACTED}` : REDACTED;
}

/** Redacts secret-named keys at any depth of a parsed JSON value. */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, isSecretKey(k) ? REDACTED : redactJson(v)]),
    );
  }
  return value;
}

/**
 * Removes secret values from a JSON or form-encoded body. Keys are compared after
 * decoding (as the server reads them), so `client%5Fsecret` or `"client_\u0073ecret"`
 * is redacted too; text that is neither JSON nor a form falls back to the patterns.
 */
export function redactBody(body: string | null): string | null {
  if (body === null) return null;
  let redacted: string;
  try {
    // A body nested too deep was refused unparsed: it is not parsed here either.
    if (tooDeepAt(body, MAX_JSON_DEPTH) !== -1) throw new Error('nested too deep');
    redacted = JSON.stringify(redactJson(JSON.parse(body)));
  } catch {
    if (/^[^{[\s][^\s]*=/.test(body) || body.includes('&')) {
      const form = new URLSearchParams(body);
      for (const key of new Set(form.keys())) if (isSecretKey(key)) form.set(key, REDACTED);
      redacted = form.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED);
    } else {
      redacted = body
        .replace(SECRET_FIELDS, (all, head: string, key: string) =>
          isSecretKey(key) ? `${head}"${REDACTED}"` : all,
        )
        .replace(SECRET_FORM_FIELDS, (all, head: string, key: string) =>
          isSecretKey(safeDecode(key)) ? `${head}${REDACTED}` : all,
        );
    }
  }
  return redacted;
}

/** Query parameters by the same field rules as bodies: `?access_token=…` is not kept in clear. */
export function redactQuery(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of params) setOwn(out, key, isSecretKey(key) ? REDACTED : value);
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
