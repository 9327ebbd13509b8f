/**
 * No secret reaches a recording (docs/drift.md): credentials become `[redacted:<n>]`, n a
 * number given to each distinct value in the order first seen, so the same token is the same
 * placeholder in every entry (the token answer and each call that sends it) and verify can map
 * it to the token the sandbox issues.
 *
 * What is secret is the journal's rule (domain/secret-names.ts isSecretKey), applied to header
 * names, query parameters and body fields alike: `client_secret`, `access_token`,
 * `refresh_token`, any password, api key, authorization, cookie or `…token`, however spelt. A
 * header keeps a known authentication scheme in front (`Bearer [redacted:3]`; for Basic the whole
 * `id:secret` pair is one value). Bodies: JSON by one pass over the text at any depth
 * (redact-json.ts), whatever the secret value's type; forms with their keys percent-decoded,
 * whatever the media type says; anything else, and JSON that does not parse, by textual rules
 * (redact-text.ts).
 */
import { AUTH_SCHEME, isSecretKey } from '../domain/secret-names.js';
import type { HarHeader } from './har.js';
import { redactJsonText } from './redact-json.js';
import { looksLikeForm, redactFormText, redactLooseText } from './redact-text.js';

/** A `[redacted:<n>]` placeholder (what verify recognises). */
export const PLACEHOLDER = /^\[redacted:\d+\]$/;

/** Whether a field, parameter or header name holds a secret (isSecretKey), remembered per name. */
const secretNames = new Map<string, boolean>();
export function isSecretName(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = isSecretKey(name);
    if (secretNames.size < 10_000) secretNames.set(name, secret);
  }
  return secret;
}

export class Redactor {
  readonly #numbers = new Map<string, number>();
  readonly #replace = (value: string) => this.placeholder(value);

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
    if (!isSecretName(name)) return value;
    const m = /^(\s*)([A-Za-z][\w.+-]*)(\s+)(\S.*)$/.exec(value);
    if (!m || !AUTH_SCHEME.test(m[2]!)) return this.placeholder(value);
    const [, lead, scheme, gap, credential] = m;
    if (scheme!.toLowerCase() === 'basic') {
      // The pair is one value; a Basic pair whose secret is also sent in a form gets its own n.
      return `${lead}${scheme}${gap}${this.placeholder(decodeBasic(credential!))}`;
    }
    return `${lead}${scheme}${gap}${this.placeholder(credential!)}`;
  }

  /**
   * A body as text, its secrets replaced: JSON (by its content, whatever the media type), a form
   * (by its media type or its look), else textual rules.
   */
  body(text: string, mimeType: string): string {
    if (!text) return text;
    const mime = mimeType.toLowerCase();
    if (mime.includes('json') || /^\uFEFF?\s*[{[]/.test(text)) {
      const redacted = redactJsonText(text, isSecretName, this.#replace);
      if (redacted !== undefined) return redacted;
    } else if (mime.includes('x-www-form-urlencoded') || looksLikeForm(text)) {
      return this.form(text);
    }
    return redactLooseText(text, isSecretName, this.#replace);
  }

  /** A query string or form body with its secret fields replaced. */
  form(text: string): string {
    return redactFormText(text, isSecretName, this.#replace);
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
