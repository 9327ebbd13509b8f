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
 * sums that column instead of reading every answer's body.
 */
export function answerBytesSql(
  value: (column: (typeof ANSWER_COLUMNS)[number]) => string = (c) => c,
): string {
  const bytes = (v: string) => `coalesce(length(CAST(${v} AS BLOB)), 4)`;
  const body = value('body');
  const escapes = `coalesce(length(${body}) - length(replace(replace(${body}, '"', ''), '\\', '')), 0)`;
  return `(${ROW_BYTES} + ${ANSWER_COLUMNS.map((c) => bytes(value(c))).join(' + ')} + ${escapes})`;
}
