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
  return new SecretScan(text, isSecret, replace).run();
}

/** What `SecretScan.after` returns when another value follows (a comma, in a container). */
const MORE = null;

/** redactJsonText's one pass: where it is, the containers open there, and what it has written. */
class SecretScan {
  readonly stack: number[] = [];
  readonly n: number;
  i: number;
  out = '';
  copied = 0;
  /** Where the secret value being scanned starts, and the depth it starts at (-1: none). */
  secretAt = 0;
  secretDepth = -1;
  nextIsSecret = false;

  constructor(
    readonly text: string,
    readonly isSecret: (key: string) => boolean,
    readonly replace: (value: SecretValue) => string,
  ) {
    this.n = text.length;
    this.i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  run(): string | undefined {
    for (;;) {
      const opened = this.value();
      if (opened === undefined) return undefined;
      if (opened) continue;
      const done = this.after();
      if (done !== MORE) return done;
    }
  }

  ws(): void {
    const { text, n } = this;
    while (this.i < n) {
      const c = text.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      this.i++;
    }
  }

  /** A value: true when it opens a container with something in it, undefined when it is no JSON. */
  value(): boolean | undefined {
    const { text, stack } = this;
    this.ws();
    if (this.nextIsSecret) {
      this.nextIsSecret = false;
      this.secretAt = this.i;
      this.secretDepth = stack.length;
    }
    const c = text.charCodeAt(this.i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      stack.push(c === 0x7b ? OBJECT : ARRAY);
      this.i++;
      this.ws();
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (text.charCodeAt(this.i) !== close) {
        if (c === 0x7b && !this.key()) return undefined;
        return true;
      }
      stack.pop();
      this.i++;
    } else if (c === 0x22 /* " */) {
      const end = stringEnd(text, this.i);
      if (end === -1) return undefined;
      this.i = end;
    } else {
      SCALAR.lastIndex = this.i;
      if (!SCALAR.test(text)) return undefined;
      this.i = SCALAR.lastIndex;
    }
    return false;
  }

  /**
   * After a value: close what it ends, then a comma and the next member (MORE), or the end (the
   * redacted text, or undefined when it is no JSON).
   */
  after(): string | undefined | typeof MORE {
    const { text, stack } = this;
    for (;;) {
      if (this.secretDepth === stack.length) {
        const raw = text.slice(this.secretAt, this.i);
        let value: string;
        try {
          value = raw.charCodeAt(0) === 0x22 ? (JSON.parse(raw) as string) : raw;
        } catch {
          return undefined;
        }
        this.out += `${text.slice(this.copied, this.secretAt)}${JSON.stringify(this.replace(value))}`;
        this.copied = this.i;
        this.secretDepth = -1;
      }
      this.ws();
      if (stack.length === 0) return this.i === this.n ? this.out + text.slice(this.copied) : undefined;
      const top = stack[stack.length - 1];
      const d = text.charCodeAt(this.i);
      if (d === 0x2c /* , */) {
        this.i++;
        if (top === OBJECT) {
          this.ws();
          if (!this.key()) return undefined;
        }
        return MORE;
      }
      if ((d === 0x7d && top === OBJECT) || (d === 0x5d && top === ARRAY)) {
        stack.pop();
        this.i++;
        continue;
      }
      return undefined;
    }
  }

  /** A member's key and its colon; marks the value that follows when the key is a secret's. */
  key(): boolean {
    const { text } = this;
    if (text.charCodeAt(this.i) !== 0x22) return false;
    const end = stringEnd(text, this.i);
    if (end === -1) return false;
    let name = text.slice(this.i + 1, end - 1);
    if (name.includes('\\')) {
      try {
        name = JSON.parse(text.slice(this.i, end)) as string;
      } catch {
        return false;
      }
    }
    this.i = end;
    this.ws();
    if (text.charCodeAt(this.i) !== 0x3a /* : */) return false;
    this.i++;
    if (this.secretDepth === -1 && this.isSecret(name)) this.nextIsSecret = true;
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
