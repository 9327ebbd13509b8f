/**
 * How deep a JSON text nests, found without parsing it: one linear pass, so a body can be
 * refused before JSON.parse builds millions of arrays (RFC 8259 §9 lets a parser limit
 * nesting). Used by every JSON body reader and by the journal.
 */

/** How many levels arrays and objects may nest in a JSON body (the API's own bodies need 4). */
export const MAX_JSON_DEPTH = 64;

/**
 * The index of the first `[` or `{` that opens level `max + 1`, or -1. One pass over the
 * text: brackets inside strings (escapes included) do not count. Text that is not JSON
 * may pass; JSON.parse rejects it afterwards. It names nothing outside itself, so that a
 * worker thread can run its source (http/json-aside.ts).
 */
export function tooDeepAt(text: string, max: number): number {
  if (text.length <= max) return -1;
  // " \ [ { ] }
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  const OPEN_ARRAY = 0x5b;
  const OPEN_OBJECT = 0x7b;
  const CLOSE_ARRAY = 0x5d;
  const CLOSE_OBJECT = 0x7d;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i++;
      else if (ch === QUOTE) inString = false;
    } else if (ch === QUOTE) inString = true;
    else if (ch === OPEN_ARRAY || ch === OPEN_OBJECT) {
      if (++depth > max) return i;
    } else if (ch === CLOSE_ARRAY || ch === CLOSE_OBJECT) depth--;
  }
  return -1;
}
