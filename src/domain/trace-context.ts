/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): what a partner's `traceparent`
 * says, for the journal (docs/journal-and-report.md#traces). A header that breaks the format
 * is no trace at all, never an error: the partner API answers as if it were absent.
 */

/** The trace a call carried: `trace_id` and `span_id` (the caller's parent-id), `tracestate` as sent. */
export interface TraceContext {
  trace_id: string;
  span_id: string;
  tracestate: string | null;
}

// version "-" trace-id "-" parent-id "-" trace-flags, lower-case hex only (§3.2.2).
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
/** The length of a version 00 traceparent: exactly this, nothing after it. */
const V00_LENGTH = 55;

/**
 * The trace of a call from its `traceparent` and `tracestate` headers (repeated headers joined
 * with ", ", as the journal reads them), or null when `traceparent` is absent or invalid:
 * version ff, an all-zero trace-id or parent-id, upper-case hex, a wrong length, or two
 * traceparent headers. A later version is read by its first four fields when what follows
 * them starts with "-" (§4.3). `tracestate` is kept as sent, and only with a valid traceparent
 * (§3.3: a vendor that cannot read traceparent must not read tracestate).
 */
export function traceOf(
  traceparent: string | undefined,
  tracestate: string | undefined,
): TraceContext | null {
  if (traceparent === undefined) return null;
  const m = TRACEPARENT.exec(traceparent);
  if (!m) return null;
  const [, version, traceId, spanId] = m as unknown as [string, string, string, string];
  if (version === 'ff' || traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return null;
  if (version === '00' ? traceparent.length !== V00_LENGTH : !isFutureTail(traceparent)) return null;
  return { trace_id: traceId, span_id: spanId, tracestate: tracestate ?? null };
}

/** A later version may add fields, each after a "-". */
const isFutureTail = (value: string) => value.length === V00_LENGTH || value[V00_LENGTH] === '-';
