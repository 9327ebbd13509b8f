/**
 * `record` (docs/drift.md): a recording proxy, in three steps. Each exchange is passed through
 * and captured (capture.ts), made into its HAR entry, redacted, with its `_contract` problems
 * (record-entry.ts), and appended to the file (record-writer.ts). This module starts the
 * proxy: the upstream's connection pool, the server, and its stop.
 */
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { packageVersion } from '../base/package-dir.js';
import { StartupError } from '../base/startup-error.js';
import { captureExchanges } from './capture.js';
import { ContractChecker } from './contract-check.js';
import { HarWriter } from './har.js';
import { dropInterim100 } from './interim.js';
import { recordEntry } from './record-entry.js';
import { EntryLog } from './record-writer.js';
import { Redactor } from './redact.js';
import { parseUpstream } from './upstream.js';

export interface RecorderOptions {
  /** The API's base URL (http or https), e.g. https://staging.example.com. */
  upstream: string;
  /** Port to listen on; default 4010 (what a partner's client points at), 0 takes a free one. */
  port?: number;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** The HAR file written; default `recording.har` (replaced if it exists). */
  out?: string;
  /** Called with one line for each answer that breaks the partner document, and for each exchange not recorded; default: stderr. */
  onContractBreak?: (line: string) => void;
  /** The OpenAPI 3.0 document to check answers against; default: the partner document the sandbox serves. */
  document?: object;
  /**
   * The largest request or answer body recorded, in bytes; default 64 MiB. A larger request is
   * answered 413 by record itself (not sent, not recorded); a larger answer (counted decoded) is
   * passed on whole and recorded without its body. Bounds what record holds in memory and what
   * one HAR entry can be.
   */
  maxBodyBytes?: number;
}

/** Request line and headers passed on: four times Node's default (what the sandbox accepts). */
const MAX_HEADER_BYTES = 64 * 1024;

/** An answer's status line and headers taken from the upstream (undici's own default is 16 KiB). */
export const MAX_ANSWER_HEADER_BYTES = 1024 * 1024;

/** 64 MiB: four times the largest body limit the sandbox can be set to (16 MiB). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface Recorder {
  /** The URL to point a client at, e.g. http://127.0.0.1:4010 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** The HAR file being written. */
  readonly out: string;
  /** Exchanges written so far. */
  readonly entries: number;
  /** Stops listening, waits for the exchanges in flight to be written, closes the file. */
  stop(): Promise<void>;
}

export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const upstream = parseUpstream(options.upstream);
  const out = options.out ?? 'recording.har';
  const checker = await ContractChecker.create(options.document);
  refuseSpecialFile(out);
  const writer = openWriter(out);
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const report = options.onContractBreak ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pool = await upstreamPool(upstream.origin);
  // Exchanges not yet settled (passing through, or answered and not yet written); stop() waits for 0.
  let open = 0;
  let onIdle: (() => void) | undefined;
  const entryContext = { redactor: new Redactor(), checker, host: upstream.host };
  const log = new EntryLog(writer, (x) => recordEntry(x, entryContext, maxBody, report), report);

  // Headers up to 64 KiB pass to the upstream, which decides (Node's own 16 KiB would answer a
  // bare 431 the service never gave); past that, and for what is no HTTP at all, record answers
  // itself in plain text and says so on stderr.
  const server: Server = createServer(
    { keepAlive: true, maxHeaderSize: MAX_HEADER_BYTES },
    captureExchanges({
      upstream,
      pool,
      maxBody,
      maxAnswerHeaderBytes: MAX_ANSWER_HEADER_BYTES,
      report,
      begin: () => {
        open++;
        return () => {
          if (--open === 0) onIdle?.();
        };
      },
      complete: (captured, finish, done) => log.complete(captured, finish, done),
    }),
  );

  // The bound on request headers is their bytes alone: Node's other one, 2,000 names and values
  // (1,000 headers), would answer an 11 KB request with the 431 that says 64 KiB.
  server.maxHeadersCount = 0;
  server.on('clientError', answerUnparsed(report));
  server.listen(options.port ?? 4010, options.host ?? '127.0.0.1');
  try {
    await once(server, 'listening');
  } catch (err) {
    writer.close();
    const e = err as NodeJS.ErrnoException;
    throw new StartupError(
      `--port ${options.port ?? 4010}: cannot listen on ${options.host ?? '127.0.0.1'} (${e.code ?? e.message})`,
    );
  }
  const host = options.host ?? '127.0.0.1';
  const idle = () =>
    new Promise<void>((resolve) => {
      onIdle = resolve;
      if (open === 0) resolve();
    });
  return recorder({ server, pool, writer, out, host, idle });
}

/** The running recorder's face: where it listens, and its stop. */
function recorder(parts: {
  server: Server;
  pool: Awaited<ReturnType<typeof upstreamPool>>;
  writer: HarWriter;
  out: string;
  host: string;
  /** Settles once no exchange is in flight. */
  idle: () => Promise<void>;
}): Recorder {
  const { server, pool, writer, out, host, idle } = parts;
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    out,
    get entries() {
      return writer.count;
    },
    stop() {
      stopped ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await Promise.race([idle(), new Promise((r) => setTimeout(r, 5000).unref())]);
        server.closeAllConnections();
        await closed;
        await pool.destroy().catch(() => {});
        writer.close();
      })();
      return stopped;
    },
  };
}

export { targetOf, type Upstream } from './upstream.js';

/**
 * `--out` naming a FIFO or a socket: refused before it is opened (opening a FIFO for writing
 * waits for a reader, before record listens and where no signal reaches it; the file is
 * rewritten in place after each entry, which a pipe cannot be). HarWriter opens without
 * blocking, so one made meanwhile fails to open rather than hangs.
 */
function refuseSpecialFile(out: string): void {
  const stat = statSync(out, { throwIfNoEntry: false });
  const kind = stat?.isFIFO() ? 'a FIFO' : stat?.isSocket() ? 'a socket' : undefined;
  if (kind) throw new StartupError(`--out ${out}: not a regular file (${kind}); record writes a HAR file`);
}

/** The HAR file `--out` names, opened (a start-up error if it cannot be written). */
function openWriter(out: string): HarWriter {
  try {
    return new HarWriter(out, { name: 'partnership-sandbox record', version: packageVersion() });
  } catch (err) {
    throw new StartupError(
      `--out ${out}: cannot write the recording (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
}

// The upstream's client: undici's Pool, which takes a request there for about a sixth less CPU
// than node:http's request and Agent (bench/drift.mjs), with up to 256 keep-alive connections.
// Idle ones are dropped after a second, well before a server's keep-alive timeout (Node's is
// 5 s), so a reused connection is never one the upstream has closed meanwhile; an exchange in
// flight is never cut (no headers or body timeout). HTTPS uses Node's CA store and
// NODE_EXTRA_CA_CERTS, as node:https does.
async function upstreamPool(origin: string) {
  const { buildConnector, Pool } = await import('./openapi-validator.js');
  const connector = buildConnector({});
  return new Pool(origin, {
    // Each connection's reads drop interim 100 answers, which undici refuses (interim.ts).
    connect: (opts, callback) =>
      connector(opts, (err, socket) =>
        err ? callback(err, null) : callback(null, dropInterim100(socket as Socket)),
      ),
    connections: 256,
    pipelining: 1,
    keepAliveTimeout: 1000,
    keepAliveMaxTimeout: 1000,
    headersTimeout: 0,
    bodyTimeout: 0,
    maxHeaderSize: MAX_ANSWER_HEADER_BYTES,
  });
}

/** What record answers itself, in plain text, to a request it cannot pass on: 431 or 400. */
function answerUnparsed(report: (line: string) => void) {
  return (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const text = tooLarge
      ? `record passes request headers up to ${MAX_HEADER_BYTES} bytes in all`
      : `record could not parse the request (${err.code ?? err.message})`;
    report(
      tooLarge
        ? `record: a request whose headers exceed ${MAX_HEADER_BYTES} bytes; answered 431, not sent, not recorded`
        : `record: a request it could not parse (${err.code ?? err.message}); answered 400, not sent, not recorded`,
    );
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
        `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text) + 1}\r\nConnection: close\r\n\r\n${text}\n`,
    );
  };
}
