/**
 * Secret values in JSON text, replaced without parsing the text into objects: one pass over the
 * text with an explicit stack, so a body nested 10,000 (or a million) deep costs its length and
 * never the call stack (docs/drift.md, "No secret in the file"). Everything but the replaced
 * values is kept as it came, byte for byte.
 */

const OBJECT = 1;
const ARRAY = 2;
/** A JSON number, `true`, `false` or `null`, at the position the scan is at. */
const SCALAR = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** A value under a secret key: its decoded string, or the JSON text of any other value. */
export type SecretValue = string;

/**
 * `text` with the value of every key that `isSecret` names (after JSON unescaping, at any depth,
 * whatever the value's type: a string, a number, an array, an object) replaced by the JSON
 * string `replace(value)`; a value inside one already replaced goes with it. A leading
 * byte-order mark is kept. Undefined when the text is not one JSON value.
 */
export function redactJsonText(
  text: string,
  isSecret: (key: string) => boolean,
  replace: (value: SecretValue) => string,
): string | undefined {
  const stack: number[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let out = '';
  let copied = 0;
  /** Where the secret value being scanned starts, and the depth it starts at (-1: none). */
  let secretAt = 0;
  let secretDepth = -1;
  let nextIsSecret = false;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
  };
  for (;;) {
    // A value.
    ws();
    if (nextIsSecret) {
      nextIsSecret = false;
      secretAt = i;
      secretDepth = stack.length;
    }
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      stack.push(c === 0x7b ? OBJECT : ARRAY);
      i++;
      ws();
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (text.charCodeAt(i) !== close) {
        if (c === 0x7b && !key()) return undefined;
        continue;
      }
      stack.pop();
      i++;
    } else if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      i = end;
    } else {
      SCALAR.lastIndex = i;
      if (!SCALAR.test(text)) return undefined;
      i = SCALAR.lastIndex;
    }
    // After a value: close what it ends, then a comma and the next member, or the end.
    for (;;) {
      if (secretDepth === stack.length) {
        const raw = text.slice(secretAt, i);
        let value: string;
        try {
          value = raw.charCodeAt(0) === 0x22 ? (JSON.parse(raw) as string) : raw;
        } catch {
          return undefined;
        }
        out += `${text.slice(copied, secretAt)}${JSON.stringify(replace(value))}`;
        copied = i;
        secretDepth = -1;
      }
      ws();
      if (stack.length === 0) return i === n ? out + text.slice(copied) : undefined;
      const top = stack[stack.length - 1];
      const d = text.charCodeAt(i);
      if (d === 0x2c /* , */) {
        i++;
        if (top === OBJECT) {
          ws();
          if (!key()) return undefined;
        }
        break;
      }
      if ((d === 0x7d && top === OBJECT) || (d === 0x5d && top === ARRAY)) {
        stack.pop();
        i++;
        continue;
      }
      return undefined;
    }
  }

  /** A member's key and its colon; marks the value that follows when the key is a secret's. */
  function key(): boolean {
    if (text.charCodeAt(i) !== 0x22) return false;
    const end = stringEnd(text, i);
    if (end === -1) return false;
    let name = text.slice(i + 1, end - 1);
    if (name.includes('\\')) {
      try {
        name = JSON.parse(text.slice(i, end)) as string;
      } catch {
        return false;
      }
    }
    i = end;
    ws();
    if (text.charCodeAt(i) !== 0x3a /* : */) return false;
    i++;
    if (secretDepth === -1 && isSecret(name)) nextIsSecret = true;
    return true;
  }
}

/** The index just past the JSON string starting at `start` (a quote), or -1 when it never ends. */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}
