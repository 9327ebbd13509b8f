/**
 * Secret values in a form, and in text that is neither JSON nor a form (or JSON that does not
 * parse), by textual rules (docs/drift.md, "No secret in the file"). Keys are compared as the
 * server reads them: percent-decoded (`client%5Fsecret`), JSON-unescaped (`client_\u0073ecret`).
 * Only the secret values change; the rest of the text is kept as it came.
 */

/**
 * A form body or query string: each `key=value` pair whose decoded key `isSecret` names gets
 * `replace(decoded value)`, percent-encoded; the other pairs are kept as they came.
 */
export function redactFormText(
  text: string,
  isSecret: (key: string) => boolean,
  replace: (value: string) => string,
): string {
  let changed = false;
  const pairs = text.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const key = formDecode(eq === -1 ? pair : pair.slice(0, eq));
    if (!isSecret(key)) return pair;
    changed = true;
    const value = eq === -1 ? '' : formDecode(pair.slice(eq + 1));
    return `${eq === -1 ? pair : pair.slice(0, eq)}=${encodeURIComponent(replace(value))}`;
  });
  return changed ? pairs.join('&') : text;
}

/** Whether text reads as a form (`a=1&b=2`): a first `key=`, and no whitespace but at its end. */
export function looksLikeForm(text: string): boolean {
  return /^[^\s=&]+=/.test(text) && !/\s/.test(text.trimEnd());
}

/** A quoted key and its value: a string, an array or object up to its first closer, or a bare word. */
const QUOTED_KEY =
  /"((?:[^"\\\n]|\\.){1,200})"(\s*:\s*)("(?:[^"\\]|\\.)*"?|\[[^\]]*\]?|\{[^}]*\}?|[^\s,}\]]+)/g;
/** `key=value` anywhere: at the start, after `&`, `;`, `?`, `,` or whitespace. */
const FORM_PAIR = /(^|[&;?,\s])([^\s=&;?,"'<>]{1,200})=([^&\s;,"'<>]*)/g;
/** `<key>value</`: an XML element holding text. */
const XML_ELEMENT = /<([A-Za-z_][\w.:-]{0,199})>([^<]*)<\//g;
/** `key: value`, an unquoted key (YAML, a header block, JavaScript). */
const BARE_KEY = /(^|[\s{,])([A-Za-z_][\w-]{0,199})([ \t]*[:=][ \t]*)("[^"\n]*"?|'[^'\n]*'?|[^\s,}]+)/gm;

/**
 * Text with every value a textual rule finds under a secret name replaced: quoted JSON-like
 * keys (with what follows the colon, an array or object up to its first closer), form pairs,
 * XML elements and `key: value` lines. A last resort for what does not parse: it may take more
 * than the value, never less.
 */
export function redactLooseText(
  text: string,
  isSecret: (key: string) => boolean,
  replace: (value: string) => string,
): string {
  return text
    .replace(QUOTED_KEY, (all, key: string, colon: string, value: string) =>
      isSecret(jsonUnescape(key))
        ? `"${key}"${colon}${JSON.stringify(replace(jsonUnescape(unquote(value))))}`
        : all,
    )
    .replace(FORM_PAIR, (all, lead: string, key: string, value: string) =>
      isSecret(formDecode(key)) ? `${lead}${key}=${encodeURIComponent(replace(formDecode(value)))}` : all,
    )
    .replace(XML_ELEMENT, (all, tag: string, value: string) =>
      isSecret(tag) ? `<${tag}>${replace(value)}</` : all,
    )
    .replace(BARE_KEY, (all, lead: string, key: string, sep: string, value: string) =>
      isSecret(key) && !/^\[redacted:\d+\]$|^"\[redacted:\d+\]"$|^%5Bredacted/.test(value)
        ? `${lead}${key}${sep}${replace(unquote(value))}`
        : all,
    );
}

function unquote(value: string): string {
  return /^["'].*["']$/s.test(value) ? value.slice(1, -1) : value;
}

/** A JSON string's content unescaped (`\u0073` is `s`); as it is when it is no valid JSON string. */
function jsonUnescape(text: string): string {
  if (!text.includes('\\')) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

/** A form key or value as a server reads it: `+` is a space, `%xx` a byte, a bad escape kept. */
function formDecode(text: string): string {
  if (!/[%+]/.test(text)) return text;
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // URLSearchParams decodes what it can and keeps the rest, as servers do.
    return new URLSearchParams(`k=${text}`).get('k') ?? spaced;
  }
}
