/**
 * `record` (docs/drift.md): a recording proxy. Each request goes to the upstream unchanged
 * but for `Host` (and the hop-by-hop headers of RFC 9110 §7.6.1, which belong to one
 * connection); the upstream's answer comes back unchanged (status, headers, body, streamed as
 * it arrives); a reset upstream connection is a reset of the client's. Once the client has its
 * answer, each exchange is appended to the HAR file, redacted, with its `_contract` problems, at
 * the end of that turn of the event loop, in the order the exchanges completed (one write for
 * those that completed in the same turn); a line on stderr names each answer that breaks the
 * partner document.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { StartupError } from '../base/startup-error.js';
import { packageVersion } from '../package-dir.js';
import { HOP_BY_HOP } from './api.js';
import { ContractChecker } from './contract-check.js';
import { entryText, type HarEntry, HarWriter, RESET_ERROR } from './har.js';
import { Redactor } from './redact.js';

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
   * answered 413 by record itself (not sent, not recorded); a larger answer is passed on whole
   * but not recorded. Bounds what record holds in memory and what one HAR entry can be.
   */
  maxBodyBytes?: number;
}

/** An exchange as written: its entry's JSON text, and what its stderr line names. */
interface Recorded {
  text: string;
  contract: readonly string[];
  status: number;
  method: string;
  path: string;
}

/** Request line and headers passed on: four times Node's default (what the sandbox accepts). */
const MAX_HEADER_BYTES = 64 * 1024;

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

/** Errors that mean the upstream reset or dropped the connection: the client's is reset too. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const upstream = parseUpstream(options.upstream);
  const out = options.out ?? 'recording.har';
  const checker = await ContractChecker.create(options.document);
  let writer: HarWriter;
  try {
    writer = new HarWriter(out, { name: 'partnership-sandbox record', version: packageVersion() });
  } catch (err) {
    throw new StartupError(
      `--out ${out}: cannot write the recording (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const redactor = new Redactor();
  const report = options.onContractBreak ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The upstream's client: undici's Pool, which takes a request there for about a sixth less CPU
  // than node:http's request and Agent (bench/drift.mjs), with up to 256 keep-alive connections.
  // Idle ones are dropped after a second, well before a server's keep-alive timeout (Node's is
  // 5 s), so a reused connection is never one the upstream has closed meanwhile; an exchange in
  // flight is never cut (no headers or body timeout). HTTPS uses Node's CA store and
  // NODE_EXTRA_CA_CERTS, as node:https does.
  const { Pool } = await import('./openapi-validator.js');
  const pool = new Pool(upstream.origin, {
    connections: 256,
    pipelining: 1,
    keepAliveTimeout: 1000,
    keepAliveMaxTimeout: 1000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  // Exchanges not yet settled (passing through, or answered and not yet written); stop() waits for 0.
  let open = 0;
  let onIdle: (() => void) | undefined;
  const settle = () => {
    if (--open === 0) onIdle?.();
  };

  /**
   * The exchanges answered and not yet written, in the order they completed. The client has its
   * answer first; the entries are built (redaction, the contract check) and appended at the end
   * of this turn of the event loop, all of them with one write, in that order, before any new
   * request is read: the file is whole HAR after each write, and a kill loses only the exchanges
   * in flight and those answered in the turn it strikes.
   */
  let completed: { build: () => Recorded; done: () => void }[] = [];
  const flush = () => {
    const batch = completed;
    completed = [];
    write(batch.map(({ build }) => build()));
    for (const { done } of batch) done();
  };
  /** Queues the exchange's entry; `done` settles the exchange once it is written. */
  const complete = (build: () => Recorded, done: () => void) => {
    if (completed.push({ build, done }) === 1) setImmediate(flush);
  };

  let writeFailed = false;
  const write = (recorded: readonly Recorded[]) => {
    const first = writer.count;
    if (writeFailed) return;
    try {
      writer.appendAll(recorded.map((r) => r.text));
    } catch (err) {
      // A full disk or a file gone: the exchanges still pass through; the file keeps what it had.
      writeFailed = true;
      report(
        `record: cannot write ${out} (${(err as NodeJS.ErrnoException).code ?? err}): exchanges from entries[${first}] on are not recorded`,
      );
      return;
    }
    recorded.forEach(({ contract, status, method, path }, i) => {
      if (contract.length)
        report(`record: entries[${first + i}] ${method} ${path} ${status}: ${contract.join('; ')}`);
    });
  };

  // Headers up to 64 KiB pass to the upstream, which decides (Node's own 16 KiB would answer a
  // bare 431 the service never gave); past that, and for what is no HTTP at all, record answers
  // itself in plain text and says so on stderr.
  const server: Server = createServer({ keepAlive: true, maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    const startedAt = Date.now();
    const method = req.method ?? 'GET';
    const path = originForm(req.url ?? '/');
    if (path === undefined) {
      // '*' or a CONNECT authority: nothing of the API's, and never a tunnel to another host.
      report(`record: ${req.method} ${req.url}: not a path of the upstream; answered 400, not recorded`);
      req.resume();
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end(`record forwards paths to ${upstream.origin} only\n`);
      return;
    }
    // The upstream's origin, always: a path starting with '//' or a request-target in absolute
    // form (a client that takes record for a forward proxy) never names the host.
    const target = targetOf(upstream, path);
    const requestChunks: Buffer[] = [];
    open++;
    // The exchange is settled once: written, or over without an entry (any of the ways below).
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      settle();
    };

    // The client's headers for the upstream (without Host and the hop-by-hop ones, Host added),
    // and what the request says of its body.
    const raw = req.rawHeaders;
    const headers: string[] = [];
    let contentType: string | undefined;
    let framed = false;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!;
      const lower = name.toLowerCase();
      if (lower === 'content-type') contentType ??= raw[i + 1]!;
      else if (lower === 'transfer-encoding' || (lower === 'content-length' && raw[i + 1] !== '0'))
        framed = true;
      // Expect is answered by record itself (Node's server sends the 100); Transfer-Encoding
      // is how this hop framed the body, which goes on whole, with its Content-Length.
      if (lower === 'host' || lower === 'expect' || HOP_BY_HOP.has(lower)) continue;
      headers.push(name, raw[i + 1]!);
    }
    headers.push('Host', upstream.host);
    const requestMime = contentType ?? '';

    /** Sends the request with its whole body to the upstream, and its answer back. */
    const forward = (body: Buffer) => {
      // A client that hangs up before the upstream answered: the upstream's request is closed too,
      // as it would be without the proxy, and there is no answer to record. (Once the answer
      // has begun it is read to its end and recorded: the service did answer.)
      let answered = false;
      let clientGone = false;
      let abort: ((err?: Error) => void) | undefined;
      res.on('close', () => {
        if (answered || res.writableFinished) return;
        clientGone = true;
        abort?.(new Error('the client hung up'));
        done();
      });
      let firstByteAt = 0;
      /**
       * The entry of the exchange that ended at `end`; built after the client has its answer.
       * Redacted in the order the exchange went (URL, request headers and body, answer headers
       * and body), which is the order placeholders are numbered in.
       */
      const entryOf = (
        end: number,
        status: number,
        statusText: string,
        resHeaders: readonly string[],
        content: () => HarEntry['response']['content'],
        contract: readonly string[],
        error?: string,
      ): string => {
        const url = redactor.url(target.href);
        const requestHeaders = recordedHeaders(raw, redactor, upstream.host);
        const postData = body.length
          ? { mimeType: requestMime, text: redactor.body(body.toString('utf8'), requestMime) }
          : undefined;
        const responseHeaders = recordedHeaders(resHeaders, redactor);
        return entryText({
          startedMs: startedAt,
          time: end - startedAt,
          method,
          url,
          httpVersion: `HTTP/${req.httpVersion}`,
          requestHeaders,
          queryString: target.search
            ? [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
            : [],
          postData,
          requestBodySize: body.length,
          status,
          statusText,
          responseHeaders,
          content: content(),
          error,
          timings: {
            send: 0,
            wait: firstByteAt ? firstByteAt - startedAt : end - startedAt,
            receive: firstByteAt ? end - firstByteAt : 0,
          },
          contract,
        });
      };
      // An upstream that dies mid-answer is one reset, one entry.
      let reset = false;
      const resetClient = () => {
        if (reset) return;
        reset = true;
        const end = Date.now();
        (req.socket as Socket).resetAndDestroy();
        complete(
          () => ({
            text: entryOf(end, 0, '', [], () => ({ size: 0, mimeType: '' }), [], RESET_ERROR),
            contract: [],
            status: 0,
            method,
            path,
          }),
          done,
        );
      };
      let status = 0;
      let statusText = '';
      let resRaw: string[] = [];
      const chunks: Buffer[] = [];
      let answerBytes = 0;
      /** The exchange once the answer has ended: its entry is queued. */
      const ended = () => {
        res.end();
        if (answerBytes > maxBody) {
          report(
            `record: ${req.method} ${path} ${status}: an answer body over ${maxBody} bytes; passed on, not recorded`,
          );
          done();
          return;
        }
        const end = Date.now();
        complete(() => {
          const answer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          // The answer's headers by lower-case name (the last of a repeated one), for the check.
          const byName: Record<string, string> = {};
          // Content-Type and Content-Encoding as Node's `headers` has them: the first, and all joined.
          let contentType: string | undefined;
          let encoding: string | undefined;
          for (let i = 0; i + 1 < resRaw.length; i += 2) {
            const lower = resRaw[i]!.toLowerCase();
            const value = resRaw[i + 1]!;
            byName[lower] = value;
            if (lower === 'content-type') contentType ??= value;
            else if (lower === 'content-encoding')
              encoding = encoding === undefined ? value : `${encoding}, ${value}`;
          }
          const mimeType = contentType ?? '';
          const decoded = decode(answer, encoding);
          const textual = decoded !== undefined && isTextual(mimeType, decoded);
          const text = textual ? decoded.toString('utf8') : undefined;
          let contract: string[];
          try {
            contract = checker.check({ method, path, status, headers: byName, body: text ?? '' });
          } catch (err) {
            contract = [`not checked: ${(err as Error).message}`];
          }
          const entry = entryOf(
            end,
            status,
            statusText,
            resRaw,
            () =>
              text !== undefined
                ? { size: decoded!.length, mimeType, text: redactor.body(text, mimeType) }
                : {
                    size: decoded?.length ?? answer.length,
                    mimeType,
                    text: answer.toString('base64'),
                    encoding: 'base64',
                  },
            contract,
          );
          return { text: entry, contract, status, method, path };
        }, done);
      };
      const failed = (err: NodeJS.ErrnoException) => {
        if (clientGone) return;
        if (res.headersSent || RESET_CODES.has(err.code ?? '')) {
          if (!res.writableEnded) resetClient();
          return;
        }
        // No answer at all (refused, unknown host, a certificate not trusted): not the
        // service's answer, so not recorded; the client gets a 502 that says why.
        const why = `record: ${req.method} ${target.href}: upstream unreachable (${err.code ?? err.message})${
          /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(err.code ?? '')
            ? '; trust its CA with NODE_EXTRA_CA_CERTS'
            : ''
        }`;
        report(why);
        res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${why}\n`);
        done();
      };
      pool.dispatch(
        { method, path: target.path, headers, body: body.length ? body : null },
        {
          onConnect(abortRequest) {
            abort = abortRequest;
            if (clientGone) abortRequest(new Error('the client hung up'));
          },
          onHeaders(statusCode, rawHeaders, _resume, statusMessage) {
            if (statusCode < 200) return true; // an interim answer: the final one follows
            answered = true;
            firstByteAt = Date.now();
            status = statusCode;
            statusText = statusMessage;
            resRaw = new Array(rawHeaders.length);
            for (let i = 0; i < rawHeaders.length; i++) resRaw[i] = rawHeaders[i]!.toString('latin1');
            res.writeHead(status, statusText, withoutHopByHop(resRaw));
            return true;
          },
          onData(chunk) {
            answerBytes += chunk.length;
            if (answerBytes <= maxBody) chunks.push(chunk);
            else chunks.length = 0;
            res.write(chunk);
            return true;
          },
          onComplete: ended,
          onError: failed,
        },
      );
    };

    let requestBytes = 0;
    let tooLarge = false;
    req.on('error', () => done());
    // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 §6.3):
    // it goes to the upstream now, not a turn later when its stream ends.
    if (!framed) {
      forward(EMPTY);
      return;
    }
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      requestBytes += chunk.length;
      if (requestBytes <= maxBody) {
        requestChunks.push(chunk);
        return;
      }
      // Not sent, not recorded: a 413 from record itself, and the connection closed so the
      // rest of the body is not read.
      tooLarge = true;
      requestChunks.length = 0;
      report(
        `record: ${req.method} ${path}: a request body over ${maxBody} bytes; answered 413, not sent, not recorded`,
      );
      res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end(`record keeps request bodies up to ${maxBody} bytes\n`, () => req.socket.destroy());
      done();
    });
    req.on('end', () => {
      if (tooLarge) return;
      forward(requestChunks.length === 1 ? requestChunks[0]! : Buffer.concat(requestChunks));
    });
  });

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
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
  });
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
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
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
        await Promise.race([
          new Promise<void>((resolve) => {
            onIdle = resolve;
            if (open === 0) resolve();
          }),
          new Promise((r) => setTimeout(r, 5000).unref()),
        ]);
        server.closeAllConnections();
        await closed;
        await pool.destroy().catch(() => {});
        writer.close();
      })();
      return stopped;
    },
  };
}

export interface Upstream {
  origin: string;
  protocol: string;
  /** Host and port, as a Host header has them. */
  host: string;
  hostname: string;
  port: string;
  /** The base URL's path, no trailing slash ('' for none). */
  prefix: string;
}

function parseUpstream(raw: string): Upstream {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StartupError(`--upstream ${raw}: not a URL (expected e.g. https://staging.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StartupError(`--upstream ${raw}: the URL must be http or https`);
  }
  if (url.search || url.hash)
    throw new StartupError(`--upstream ${raw}: a base URL has no query or fragment`);
  return {
    origin: url.origin,
    protocol: url.protocol,
    host: url.host,
    hostname: url.hostname,
    port: url.port,
    prefix: url.pathname.replace(/\/+$/, ''),
  };
}

/** A path and query that URL parsing leaves as they are: nothing it percent-encodes, no backslash, no empty query. */
const PLAIN_TARGET = /^\/[\w\-.~!$&()*+,;=:@/%]*(?:\?[\w\-.~!$&()*+,;=:@/?%]+)?$/;
/** A segment that may be a dot segment, which URL parsing resolves. */
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

/**
 * Where a request goes: the upstream's origin and base path with the request's path and query,
 * as `new URL` makes them (dot segments resolved, what it escapes escaped); a plain path, most
 * of them, is taken as it is without parsing it.
 */
export function targetOf(upstream: Upstream, path: string): { path: string; href: string; search: string } {
  const full = upstream.prefix + path;
  if (PLAIN_TARGET.test(path) && !DOT_SEGMENT.test(full)) {
    const q = full.indexOf('?');
    return { path: full, href: upstream.origin + full, search: q === -1 ? '' : full.slice(q) };
  }
  const url = new URL(`${upstream.origin}${full}`);
  return { path: `${url.pathname}${url.search}`, href: url.href, search: url.search };
}

const EMPTY = Buffer.alloc(0);

/**
 * The request-target as a path and query (RFC 9112 §3.2): origin form as it is; absolute form
 * (what a client sends to a forward proxy) by its path and query; anything else undefined.
 */
function originForm(raw: string): string | undefined {
  if (raw.startsWith('/')) return raw;
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return `${url.pathname}${url.search}`;
  } catch {
    // not a URL: below
  }
  return undefined;
}

/**
 * Headers as the file has them: the same names and order, each value redacted (Redactor.header),
 * and Host, when `host` is given, as the upstream's (what the request went to).
 */
function recordedHeaders(raw: readonly string[], redactor: Redactor, host?: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    out.push(
      name,
      host !== undefined && name.toLowerCase() === 'host' ? host : redactor.header(name, raw[i + 1]!),
    );
  }
  return out;
}

function withoutHopByHop(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

function decode(raw: Buffer, encoding: string | undefined): Buffer | undefined {
  try {
    switch ((encoding ?? '').trim().toLowerCase()) {
      case '':
      case 'identity':
        return raw;
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(raw);
      case 'deflate':
        return inflateSync(raw);
      case 'br':
        return brotliDecompressSync(raw);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

function isTextual(mimeType: string, body: Buffer): boolean {
  if (/json|text|xml|x-www-form-urlencoded|javascript/i.test(mimeType)) return true;
  if (body.length === 0) return true;
  return !mimeType && !body.includes(0);
}
