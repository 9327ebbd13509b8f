/**
 * Text for an XML 1.0 document (the JUnit reports): the five special characters escaped, and
 * what XML 1.0 allows nowhere, escaped or not, left out: C0 controls but tab, newline and
 * carriage return, U+FFFE, U+FFFF and lone surrogates (an API value may hold those).
 */
export const xmlText = (s: string): string =>
  s
    .replace(
      /[&<>"']/g,
      (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!,
    )
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');
