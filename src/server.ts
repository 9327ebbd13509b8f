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
 * flight get up to DRAIN_MS (http/drain.ts) to finish; then every socket left is closed and the store
 * is closed last.
 *
 * Errors of Node's HTTP parser (headers too large, a malformed request such as a
 * duplicate Content-Length), an HTTP/1.1 request without one Host header and an Expect
 * other than 100-continue are answered with the envelope, not Node's empty body
 * (http/outside-app.ts).
 */

import { tracingChannel } from 'node:diagnostics_channel';
import { existsSync, statSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { getRequestListener, type ServerType } from '@hono/node-server';
import { createApp } from './app.js';
import { StartupError } from './base/startup-error.js';
import type { Config } from './core/config.js';
import { drain, trackSockets } from './http/drain.js';
import { earlyLimit } from './http/early-limit.js';
import { answerExpectation, answerParserError, hostProblem, requestError } from './http/outside-app.js';
import { createSandbox, type Logger, type Sandbox } from './state/index.js';

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
    // A call past its partner's fair share is answered before the app (http/early-limit.ts).
    const limited = earlyLimit(sandbox);
    const checked = (req: IncomingMessage, res: ServerResponse) => {
      if (hostProblem(req, res)) return;
      if (limited?.(req, res)) return;
      void listener(req, res);
    };
    // Node would answer a request without Host a bare 400: checked() answers it with the envelope.
    // A request (headers and body) must arrive within the request timeout, or it is answered 408
    // (answerParserError) and its connection closed; Node's default holds it for 5 minutes. The
    // timeout ends once the request is in: a latency drill delays the answer, not the request.
    const timeout = config.requestTimeoutSeconds * 1000;
    const s = createHttpServer(
      {
        requireHostHeader: false,
        requestTimeout: timeout,
        headersTimeout: timeout,
        // How often Node looks for requests past the timeout (its default is 30 s).
        connectionsCheckingInterval: Math.min(1000, timeout / 4),
      },
      checked,
    );
    s.once('error', failed);
    listenOn(s, config.port, config.host, () => {
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
  });
}

/** Node's trace of a listen (`tracing:net.server.listen:*`), whose start `listen()` publishes. */
const listenTrace = tracingChannel('net.server.listen');

/**
 * `server.listen(port, host, onListening)`, without what that costs a start-up when the host is
 * an IP address: `listen()` looks any host up (an address comes back as it is), then checks
 * the address with Node's IPv6 regular expression, which V8 compiles on its first use (12 M
 * instructions, about 4 ms on a quiet day here), and requires `node:cluster` to ask whether
 * this process is a cluster's worker. Outside a cluster's worker, all of that ends in
 * `server._listen2(address, port, family)` (Node's name for the step that binds and listens,
 * kept for code that wraps it), which is called here directly: the same socket, the same
 * errors, emitted the same way.
 * A host name, a cluster's worker (whose listen goes through the primary) or a Node without
 * `_listen2` take `listen()`.
 */
function listenOn(server: Server, port: number, host: string, onListening: () => void): void {
  const family = isIP(host);
  const bind = (server as unknown as { _listen2?: unknown })._listen2;
  if (family === 0 || typeof bind !== 'function' || 'NODE_UNIQUE_ID' in process.env) {
    server.listen(port, host, onListening);
    return;
  }
  if (listenTrace.hasSubscribers) listenTrace.asyncStart.publish({ server, options: { port, host } });
  server.once('listening', onListening);
  // (address, port, family, backlog: Node's default, fd: none, flags: neither ipv6Only nor reusePort)
  bind.call(server, host, port, family, undefined, undefined, 0);
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
