/**
 * Serving: start a listening server for a sandbox, and close it gracefully. Used by the
 * CLI (main.ts), startSandbox() and tests that need a real socket.
 *
 * Start-up problems a user can fix (a folder that is not there, a port in use, a store
 * that cannot be opened) become one StartupError naming the setting and the cause.
 *
 * Closing drains: no new connections; sockets without a request in flight (idle
 * keep-alive ones, and stalled ones that sent part of a request line or headers) are
 * closed at once; a request whose body stopped arriving is stalled too; requests in
 * flight get up to DRAIN_MS to finish; then every socket left is closed and the store
 * is closed last.
 *
 * Errors of Node's HTTP parser (headers too large, a malformed request such as a
 * duplicate Content-Length), an HTTP/1.1 request without one Host header and an Expect
 * other than 100-continue are answered with the envelope, not Node's empty body.
 */
import { existsSync, statSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  maxHeaderSize,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener, type ServerType, serve } from '@hono/node-server';
import { createApp } from './app.js';
import type { Config } from './config.js';
import type { ErrorCode } from './contract/errors.js';
import { ids } from './domain/ids.js';
import { markTimedOut } from './http/read-body.js';
import { commonHeaders } from './http/request-context.js';
import { createSandbox, type Logger, type Sandbox } from './sandbox.js';
import { StartupError } from './startup-error.js';

/** How long requests in flight may take to finish once closing starts. */
export const DRAIN_MS = 5_000;
/** A request whose body has not advanced for this long while closing is a stalled upload. */
const STALL_MS = 500;
const TICK_MS = 25;

export interface Running {
  sandbox: Sandbox;
  server: ServerType;
  url: string;
  port: number;
  /** Drains (see the header) and closes the store; the same promise on every call. */
  close(): Promise<void>;
}

export async function startServer(config: Config, log?: Logger): Promise<Running> {
  checkFolders(config);
  const sandbox = createSandbox(config, log);
  let server: ServerType;
  try {
    server = await listen(sandbox, config);
  } catch (err) {
    sandbox.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const sockets = trackSockets(server as Server);
  let closing: Promise<void> | undefined;
  return {
    sandbox,
    server,
    port,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host}:${port}`,
    close() {
      closing ??= drain(server as Server, sockets).then(() => sandbox.close());
      return closing;
    },
  };
}

/** A fixtures or presets folder that is not there is named with its setting, before anything opens. */
function checkFolders(config: Config): void {
  const folders = [
    ['SANDBOX_FIXTURES (--fixtures)', config.fixtures],
    ['SANDBOX_SCENARIOS (--scenarios)', config.scenarios],
  ] as const;
  for (const [setting, dir] of folders) {
    if (dir === undefined) continue;
    if (!existsSync(dir)) throw new StartupError(`${setting}=${dir}: no such folder`);
    if (!statSync(dir).isDirectory()) throw new StartupError(`${setting}=${dir}: not a folder`);
  }
}

function listen(sandbox: Sandbox, config: Config): Promise<ServerType> {
  const app = createApp(sandbox);
  return new Promise<ServerType>((resolve, reject) => {
    // A request whose target or Host cannot make a URL (`Host: a b`, `OPTIONS *`) never
    // reaches the app; @hono/node-server would answer a bare 400. It gets the envelope.
    const fallbackHost = config.host.includes(':') ? `[${config.host}]` : config.host;
    const listener = getRequestListener(app.fetch, { hostname: fallbackHost, errorHandler: requestError });
    const checked = (req: IncomingMessage, res: ServerResponse) => {
      if (hostProblem(req, res)) return;
      void listener(req, res);
    };
    // Node would answer a request without Host a bare 400: checked() answers it with the envelope.
    // A request (headers and body) must arrive within the request timeout, or it is answered 408
    // (answerParserError) and its connection closed; Node's default holds it for 5 minutes. The
    // timeout ends once the request is in: a latency drill delays the answer, not the request.
    const timeout = config.requestTimeoutSeconds * 1000;
    const createServer = ((options: object) =>
      createHttpServer(
        {
          ...options,
          requireHostHeader: false,
          requestTimeout: timeout,
          headersTimeout: timeout,
          // How often Node looks for requests past the timeout (its default is 30 s).
          connectionsCheckingInterval: Math.min(1000, timeout / 4),
        },
        checked,
      )) as never;
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host, createServer }, () => {
      s.off('error', failed);
      // After listening, a server error (accept failing for lack of file descriptors) is logged, not fatal.
      s.on('error', (err) => sandbox.log.error('server error', { error: `${err.name}: ${err.message}` }));
      s.on('clientError', answerParserError);
      s.on('checkExpectation', answerExpectation);
      resolve(s);
    });
    function failed(err: NodeJS.ErrnoException) {
      reject(listenError(err, config));
    }
    s.once('error', failed);
  });
}

function listenError(err: NodeJS.ErrnoException, config: Config): Error {
  const where = `${config.host}:${config.port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return new StartupError(
        `PORT (--port)=${config.port}: ${where} is in use by another process; choose another port (0 takes a free one)`,
      );
    case 'EACCES':
      return new StartupError(
        `PORT (--port)=${config.port}: permission denied to listen on ${where} (ports below 1024 need privileges)`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(`HOST (--host)=${config.host}: not an address of this machine (${err.code})`);
    default:
      return err;
  }
}

// ---- closing ---------------------------------------------------------------------------

interface SocketState {
  /** Requests on this socket whose response has not finished. */
  active: number;
  request: IncomingMessage | undefined;
  bytesRead: number;
  progressAt: number;
}

function trackSockets(server: Server): Map<Socket, SocketState> {
  const sockets = new Map<Socket, SocketState>();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { active: 0, request: undefined, bytesRead: 0, progressAt: performance.now() });
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = sockets.get(req.socket as Socket);
    if (!state) return;
    state.active++;
    state.request = req;
    res.once('close', () => {
      state.active--;
      if (state.request === req) state.request = undefined;
    });
  });
  return sockets;
}

function drain(server: Server, sockets: Map<Socket, SocketState>): Promise<void> {
  return new Promise<void>((resolve) => {
    const deadline = performance.now() + DRAIN_MS;
    const tick = () => {
      const now = performance.now();
      for (const [socket, state] of sockets) {
        if (now >= deadline || state.active === 0) {
          socket.destroy();
          continue;
        }
        if (socket.bytesRead !== state.bytesRead) {
          state.bytesRead = socket.bytesRead;
          state.progressAt = now;
        } else if (state.request && !state.request.complete && now - state.progressAt >= STALL_MS) {
          socket.destroy();
        }
      }
    };
    for (const state of sockets.values()) state.progressAt = performance.now();
    const timer = setInterval(tick, TICK_MS);
    server.close(() => {
      clearInterval(timer);
      // Handlers of a request whose socket was closed settle on the next turns; then the store closes.
      setImmediate(resolve);
    });
    tick();
  });
}

// ---- errors of Node's HTTP parser --------------------------------------------------------

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
function requestError(err: unknown): Response {
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
function hostProblem(req: IncomingMessage, res: ServerResponse): boolean {
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
function answerExpectation(req: IncomingMessage, res: ServerResponse): void {
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

/** `clientError`: the envelope, `Connection: close`, then the socket ends. */
function answerParserError(err: NodeJS.ErrnoException & { reason?: string }, socket: Duplex): void {
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
}
