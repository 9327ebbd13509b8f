/**
 * Answers no route produced, with the envelope and `Connection: close` (server.ts): errors
 * of Node's HTTP parser (headers too large, a malformed request such as a duplicate
 * Content-Length, a request that did not arrive in time), a request @hono/node-server could
 * not turn into a Request, an HTTP/1.1 request without one Host header, and an Expect
 * other than 100-continue; not Node's empty body.
 */
import { type IncomingMessage, maxHeaderSize, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../contract/api/errors.js';
import { ids } from '../domain/ids.js';
import { markTimedOut } from './read-body.js';
import { commonHeaders } from './request-context.js';

const parserErrors: Record<string, { status: number; code: ErrorCode; message: (reason: string) => string }> =
  {
    HPE_HEADER_OVERFLOW: {
      status: 431,
      code: 'request_headers_too_large',
      message: () =>
        `The request line and headers exceed ${maxHeaderSize} bytes in all; send fewer or shorter headers.`,
    },
    HPE_CHUNK_EXTENSIONS_OVERFLOW: {
      status: 413,
      code: 'payload_too_large',
      message: () => 'The chunk extensions of the request body are too large.',
    },
    ERR_HTTP_REQUEST_TIMEOUT: {
      status: 408,
      code: 'request_timeout',
      message: () => 'The request was not received in time; send it again.',
    },
  };
const malformed = {
  status: 400,
  code: 'malformed_request' as ErrorCode,
  message: (reason: string) => `Malformed HTTP request: ${reason}.`,
};

/** The envelope of an error no route produced (parser errors, unusable request targets). */
function errorEnvelope(status: number, code: ErrorCode, message: string) {
  const requestId = ids.request();
  const body = JSON.stringify({ status, error: { code }, message, request_id: requestId, data: null });
  const headers = { ...commonHeaders(requestId), 'content-type': 'application/json' };
  return { body, headers };
}

/** A request @hono/node-server could not turn into a Request (no usable URL), or a fetch that threw. */
export function requestError(err: unknown): Response {
  const bad = err instanceof Error && err.name === 'RequestError';
  const reason = err instanceof Error ? err.message.replace(/[^\x20-\x7e]/g, '').slice(0, 200) : 'unknown';
  const { body, headers } = bad
    ? errorEnvelope(400, 'malformed_request', malformed.message(reason))
    : errorEnvelope(500, 'internal_error', 'Internal error.');
  return new Response(body, { status: bad ? 400 : 500, headers: { ...headers, connection: 'close' } });
}

/** An answer no route produced, written with the envelope and `Connection: close`. */
function answerOutsideApp(res: ServerResponse, status: number, code: ErrorCode, message: string): void {
  const { body, headers } = errorEnvelope(status, code, message);
  res.writeHead(status, {
    ...headers,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  });
  res.end(body);
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request carries exactly one Host header, or it is a 400 (with
 * the envelope: Node's own answer is a bare 400). HTTP/1.0 may omit it: the URL the app
 * sees then names the address and port the client reached. Returns whether it answered.
 */
export function hostProblem(req: IncomingMessage, res: ServerResponse): boolean {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') count++;
  const host = req.headers.host;
  if (count === 1 && host) return false;
  if (count === 0 && req.httpVersion === '1.0') {
    const address = req.socket.localAddress ?? '127.0.0.1';
    req.headers.host = `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
    return false;
  }
  const has = count === 0 ? 'has none' : count > 1 ? `has ${count}` : 'is empty';
  answerOutsideApp(
    res,
    400,
    'malformed_request',
    malformed.message(
      `an HTTP/${req.httpVersion} request must carry one Host header (RFC 9112 section 3.2), and this one ${has}`,
    ),
  );
  return true;
}

/** `checkExpectation`: an Expect other than 100-continue is a 417 (RFC 9110 §10.1.1), with the envelope. */
export function answerExpectation(req: IncomingMessage, res: ServerResponse): void {
  const expectation = String(req.headers.expect ?? '')
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, 100);
  answerOutsideApp(
    res,
    417,
    'expectation_failed',
    `Expectation failed: the only expectation this server meets is "Expect: 100-continue" (got "${expectation}").`,
  );
}

/** How long a connection answered by answerParserError (a 408 included) may stay half-closed. */
const RELEASE_MS = 500;

/** `clientError`: the envelope, `Connection: close`, then the socket ends and is destroyed RELEASE_MS later. */
export function answerParserError(err: NodeJS.ErrnoException & { reason?: string }, socket: Duplex): void {
  const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy();
    return;
  }
  // A request whose body stops arriving is in the app, awaiting it: tell its reader why it ends.
  const inFlight = (socket as Duplex & { _httpMessage?: { req?: IncomingMessage } })._httpMessage?.req;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && inFlight) markTimedOut(inFlight);
  const kind = parserErrors[err.code ?? ''] ?? malformed;
  const reason = (err.reason ?? err.message).replace(/[^\x20-\x7e]/g, '').slice(0, 200);
  const envelope = errorEnvelope(kind.status, kind.code, kind.message(reason));
  const body = envelope.body;
  const headers = {
    ...envelope.headers,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${kind.status} ${STATUS_CODES[kind.status]}\r\n${head}\r\n${body}`);
  // end() only half-closes: the socket would stay open until the client closes its side, which
  // one that never reads never does (200 stalled clients held 200 descriptors for minutes). A
  // client that reads has the answer and closes well within RELEASE_MS; then it is destroyed.
  setTimeout(() => socket.destroy(), RELEASE_MS).unref();
}
