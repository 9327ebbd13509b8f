/**
 * No secret reaches a recording (docs/drift.md): credentials become `[redacted:<n>]`, n a
 * number given to each distinct value in the order first seen, so the same token is the same
 * placeholder in every entry (the token answer and each call that sends it) and verify can map
 * it to the token the sandbox issues.
 *
 * What is redacted: the Authorization and Proxy-Authorization headers (the credential after
 * `Bearer ` or `Basic `; for Basic the whole `id:secret` pair is one value), Cookie and
 * Set-Cookie, and the fields `client_secret`, `access_token`, `refresh_token` (and
 * `id_token`, `password`) wherever they appear: form or JSON bodies at any depth, query strings.
 */
import { rewriteForm } from './form.js';
import type { HarHeader } from './har.js';
import { redactJsonText } from './redact-json.js';

export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'client_secret',
  'access_token',
  'refresh_token',
  'id_token',
  'password',
]);

const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization']);
const COOKIE_HEADERS: ReadonlySet<string> = new Set(['cookie', 'set-cookie']);

/** Any secret field's name, as a body may spell it (JSON, or a form, percent-encoded or not). */
// (a JSON key may hide behind \u escapes: such a body is parsed too)
const SECRET_NAME = new RegExp(`${[...SECRET_FIELDS].join('|')}|\\\\u`);

/** A `[redacted:<n>]` placeholder (what verify recognises). */
export const PLACEHOLDER = /^\[redacted:\d+\]$/;

export class Redactor {
  readonly #numbers = new Map<string, number>();

  /** The placeholder of a value: the same value, the same n. */
  placeholder(value: string): string {
    if (PLACEHOLDER.test(value)) return value;
    let n = this.#numbers.get(value);
    if (n === undefined) {
      n = this.#numbers.size + 1;
      this.#numbers.set(value, n);
    }
    return `[redacted:${n}]`;
  }

  headers(headers: readonly HarHeader[]): HarHeader[] {
    return headers.map(({ name, value }) => ({ name, value: this.header(name, value) }));
  }

  header(name: string, value: string): string {
    const lower = name.toLowerCase();
    if (COOKIE_HEADERS.has(lower)) return this.placeholder(value);
    if (!SECRET_HEADERS.has(lower)) return value;
    const m = /^(\s*)([A-Za-z][\w.+-]*)(\s+)(.*)$/.exec(value);
    if (!m) return this.placeholder(value);
    const [, lead, scheme, gap, credential] = m;
    if (scheme!.toLowerCase() === 'basic') {
      // The pair is one value; a Basic pair whose secret is also sent in a form gets its own n.
      return `${lead}${scheme}${gap}${this.placeholder(decodeBasic(credential!))}`;
    }
    return `${lead}${scheme}${gap}${this.placeholder(credential!)}`;
  }

  /** A body as text: JSON or a form redacted field by field; anything else as it is. */
  body(text: string, mimeType: string): string {
    // Most bodies hold no secret field at all: only those are scanned.
    if (!text || !SECRET_NAME.test(text)) return text;
    const mime = mimeType.toLowerCase();
    if (mime.includes('json') || /^\uFEFF?\s*[{[]/.test(text)) {
      const redacted = redactJsonText(
        text,
        (key) => SECRET_FIELDS.has(key),
        (value) => this.placeholder(value),
      );
      if (redacted !== undefined) return redacted;
      return mime.includes('form') ? this.form(text) : text;
    }
    if (mime.includes('x-www-form-urlencoded')) return this.form(text);
    return text;
  }

  /** A query string or form body with its secret fields replaced. */
  form(text: string): string {
    return rewriteForm(text, (key, value) => (SECRET_FIELDS.has(key) ? this.placeholder(value) : undefined));
  }

  /** A URL with its query's secret fields replaced. */
  url(url: string): string {
    const q = url.indexOf('?');
    if (q === -1) return url;
    const hash = url.indexOf('#', q);
    const query = url.slice(q + 1, hash === -1 ? undefined : hash);
    const redacted = this.form(query);
    return redacted === query
      ? url
      : `${url.slice(0, q + 1)}${redacted}${hash === -1 ? '' : url.slice(hash)}`;
  }
}

function decodeBasic(credential: string): string {
  try {
    return Buffer.from(credential.trim(), 'base64').toString('utf8');
  } catch {
    return credential;
  }
}
