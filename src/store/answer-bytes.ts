/**
 * A stored answer's bytes in its partner's room (store/sizes.ts), kept in its row
 * (`idempotency_keys.bytes`): the SQL that the statements writing the row (store/idempotency-table.ts)
 * and the migration that made the column (store/migrations.ts) set it with. Imports nothing, so
 * the migrations can use it.
 */

/** A row's field names, quotes, colons, commas and braces, in the export's JSON: more than any row has. */
export const ROW_BYTES = 200;

/**
 * The columns of a stored answer (`idempotency_keys`) that its count covers: every column but
 * `bytes` itself (test/state/stored-answer-bytes.test.ts holds this list to the schema's). A
 * column added later joins it in the migration that adds it, which sets `bytes` again; the
 * migration that made `bytes` then keeps this list as it was.
 */
export const ANSWER_COLUMNS = [
  'parent_account_id',
  'key',
  'fingerprint',
  'dry_run',
  'state',
  'status',
  'body',
  'expires_at',
  'operation',
  'reserved_at',
] as const;

/**
 * A stored answer's bytes as `rowBytes` counts a row (its `body` as a JSON string), for the
 * row's `bytes` column: SQL over each column's value, given as SQL (the column itself, a
 * parameter, a literal). Kept in the row when it is written (store/idempotency-table.ts), so a count
 * sums that column instead of reading every answer's body. `body`: the body's part (its bytes
 * and escapes) as SQL, when known without reading the body (`bodyBytes`, given as a parameter).
 */
export function answerBytesSql(
  value: (column: (typeof ANSWER_COLUMNS)[number]) => string = (c) => c,
  body?: string,
): string {
  const bytes = (v: string) => `coalesce(length(CAST(${v} AS BLOB)), 4)`;
  const text = value('body');
  const escapes = `coalesce(length(${text}) - length(replace(replace(${text}, '"', ''), '\\', '')), 0)`;
  if (body !== undefined)
    return `(${ROW_BYTES} + ${ANSWER_COLUMNS.filter((c) => c !== 'body')
      .map((c) => bytes(value(c)))
      .join(' + ')} + ${body})`;
  return `(${ROW_BYTES} + ${ANSWER_COLUMNS.map((c) => bytes(value(c))).join(' + ')} + ${escapes})`;
}

/** The last text `bodyBytes` counted: a request's answer is counted for its row and for the room. */
let counted = { text: '', bytes: 0 };

/**
 * A stored answer's body as `answerBytesSql` counts it: its UTF-8 bytes, and its quotes and
 * backslashes once more (what escaping it as a JSON string adds). indexOf finds them faster
 * than a loop over each character: an answer is a string built by concatenation.
 */
export function bodyBytes(text: string): number {
  if (text === counted.text) return counted.bytes;
  let bytes = Buffer.byteLength(text);
  for (const ch of ['"', '\\']) for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) bytes++;
  counted = { text, bytes };
  return bytes;
}
