/**
 * A form body or query string with some values replaced: `replace(key, value)` returns the new
 * value, or undefined to keep it. The text comes back as it was when nothing changed.
 */
export function rewriteForm(
  text: string,
  replace: (key: string, value: string) => string | undefined,
): string {
  const params = new URLSearchParams(text);
  let changed = false;
  for (const [key, value] of [...params]) {
    const next = replace(key, value);
    if (next !== undefined && next !== value) {
      params.set(key, next);
      changed = true;
    }
  }
  return changed ? params.toString() : text;
}
