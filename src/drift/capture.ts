/**
 * `record`'s first step (docs/drift.md): one exchange passed through and captured. The request
 * goes to the upstream unchanged but for `Host` (and the hop-by-hop headers of RFC 9110 §7.6.1,
 * which belong to one connection); the upstream's answer comes back unchanged (status, headers,
 * body, streamed as it arrives); a reset upstream connection is a reset of the client's. What
 * went each way is handed on as a Captured exchange, for the entry (record-entry.ts) and the
 * file (record-writer.ts); the answer's last chunk is held until its entry is written, so a
 * kill never loses an exchange a client has whole.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Pool } from 'undici';
import { HOP_BY_HOP } from './api.js';
import { RESET_ERROR } from './har.js';
import { type Target, targetOf, type Upstream } from './upstream.js';

/** One exchange as it went: what the client sent, what the upstream answered (or that it reset). */
export interface Captured {
  /** Epoch ms the request arrived, the answer's first byte came, the exchange ended. */
  startedAt: number;
  firstByteAt: number;
  end: number;
  method: string;
  /** The request-target as a path and query (what stderr lines name). */
  path: string;
  target: Target;
  httpVersion: string;
  /** The client's headers as Node's raw name/value list. */
  requestHeaders: readonly string[];
  requestBody: Buffer;
  requestMime: string;
  status: number;
  statusText: string;
  /** The upstream's headers as a raw name/value list (latin1). */
  responseHeaders: readonly string[];
  /** The answer's body as it came (in its content coding), its chunks. */
  answer: readonly Buffer[];
  /** Its size in bytes, counted whole even when larger than what is kept. */
  answerBytes: number;
  /** Why there is no answer (`_error`): the upstream reset the connection. */
  error?: string;
}

export interface CaptureContext {
  upstream: Upstream;
  pool: Pool;
  /** The largest body kept, in bytes (RecorderOptions.maxBodyBytes). */
  maxBody: number;
  /** The largest status line and headers taken from the upstream (the pool's maxHeaderSize). */
  maxAnswerHeaderBytes: number;
  report: (line: string) => void;
  /** An exchange begins: stop() waits until the function it returns has been called. */
  begin: () => () => void;
  /**
   * The exchange has ended: its entry is to be written, then `finish` called (which sends the
   * answer's last bytes: a client never has a whole answer whose entry is not in the file),
   * then `done`.
   */
  complete: (captured: Captured, finish: () => void, done: () => void) => void;
}

/** Errors that mean the upstream reset or dropped the connection: the client's is reset too. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

const EMPTY = Buffer.alloc(0);
const noop = () => {};

/** The request listener of record's server: each request passed through and captured. */
export function captureExchanges(ctx: CaptureContext) {
  return function capture(req: IncomingMessage, res: ServerResponse): void {
    const startedAt = Date.now();
    const path = originForm(req.url ?? '/');
    if (path === undefined) {
      refuseNotAPath(ctx, req, res);
      return;
    }
    // The upstream's origin, always: a path starting with '//' or a request-target in absolute
    // form (a client that takes record for a forward proxy) never names the host.
    const target = targetOf(ctx.upstream, path);
    const done = settleOnce(ctx.begin());
    const { headers, contentType, framed } = upstreamHeaders(req.rawHeaders, ctx.upstream.host);
    const exchange: Captured = {
      startedAt,
      firstByteAt: 0,
      end: 0,
      method: req.method ?? 'GET',
      path,
      target,
      httpVersion: `HTTP/${req.httpVersion}`,
      requestHeaders: req.rawHeaders,
      requestBody: EMPTY,
      requestMime: contentType ?? '',
      status: 0,
      statusText: '',
      responseHeaders: [],
      answer: [],
      answerBytes: 0,
    };
    const forwarding: Forwarding = { ctx, req, res, exchange, headers, done };
    // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 §6.3):
    // it goes to the upstream now, not a turn later when its stream ends.
    if (framed) readRequestBody(forwarding);
    else {
      req.on('error', () => done());
      forward(forwarding, EMPTY);
    }
  };
}

/** '*' or a CONNECT authority: nothing of the API's, and never a tunnel to another host. */
function refuseNotAPath(ctx: CaptureContext, req: IncomingMessage, res: ServerResponse): void {
  ctx.report(`record: ${req.method} ${req.url}: not a path of the upstream; answered 400, not recorded`);
  req.resume();
  res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
  res.end(`record forwards paths to ${ctx.upstream.origin} only\n`);
}

/** The exchange is settled once: written, or over without an entry (any of the ways below). */
function settleOnce(settle: () => void): () => void {
  let settled = false;
  return () => {
    if (settled) return;
    settled = true;
    settle();
  };
}

/**
 * The client's headers for the upstream (without Host and the hop-by-hop ones, Host added),
 * and what the request says of its body.
 */
function upstreamHeaders(
  raw: readonly string[],
  host: string,
): { headers: string[]; contentType: string | undefined; framed: boolean } {
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
  headers.push('Host', host);
  return { headers, contentType, framed };
}

/** One exchange on its way: what capture's steps share. */
interface Forwarding {
  ctx: CaptureContext;
  req: IncomingMessage;
  res: ServerResponse;
  exchange: Captured;
  /** The headers sent upstream. */
  headers: string[];
  done: () => void;
}

/** The request's body read whole, then forwarded; one over the limit is answered 413 by record. */
function readRequestBody(f: Forwarding): void {
  const { ctx, req, res, exchange, done } = f;
  let requestBytes = 0;
  let tooLarge = false;
  const requestChunks: Buffer[] = [];
  req.on('error', () => done());
  req.on('data', (chunk: Buffer) => {
    if (tooLarge) return;
    requestBytes += chunk.length;
    if (requestBytes <= ctx.maxBody) {
      requestChunks.push(chunk);
      return;
    }
    // Not sent, not recorded: a 413 from record itself, and the connection closed so the
    // rest of the body is not read.
    tooLarge = true;
    requestChunks.length = 0;
    ctx.report(
      `record: ${req.method} ${exchange.path}: a request body over ${ctx.maxBody} bytes; answered 413, not sent, not recorded`,
    );
    res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
    res.end(`record keeps request bodies up to ${ctx.maxBody} bytes\n`, () => req.socket.destroy());
    done();
  });
  req.on('end', () => {
    if (tooLarge) return;
    forward(f, requestChunks.length === 1 ? requestChunks[0]! : Buffer.concat(requestChunks));
  });
}

/** Where one exchange's answer stands while it is relayed. */
interface Relay {
  answered: boolean;
  clientGone: boolean;
  abort: ((err?: Error) => void) | undefined;
  reset: boolean;
  chunks: Buffer[];
  /** The answer's last chunk so far: it goes out once the next one comes, or the entry is written. */
  held: Buffer | undefined;
}

/** Sends the request with its whole body to the upstream, and its answer back. */
function forward(f: Forwarding, body: Buffer): void {
  const { ctx, res, exchange, headers, done } = f;
  exchange.requestBody = body;
  const relay: Relay = {
    answered: false,
    clientGone: false,
    abort: undefined,
    reset: false,
    chunks: [],
    held: undefined,
  };
  // A client that hangs up before the upstream answered: the upstream's request is closed too,
  // as it would be without the proxy, and there is no answer to record. (Once the answer
  // has begun it is read to its end and recorded: the service did answer.)
  res.on('close', () => {
    if (relay.answered || res.writableFinished) return;
    relay.clientGone = true;
    relay.abort?.(new Error('the client hung up'));
    done();
  });
  ctx.pool.dispatch(
    { method: exchange.method, path: exchange.target.path, headers, body: body.length ? body : null },
    {
      onConnect(abortRequest) {
        relay.abort = abortRequest;
        if (relay.clientGone) abortRequest(new Error('the client hung up'));
      },
      onHeaders(statusCode, rawHeaders, _resume, statusMessage) {
        if (statusCode < 200) return true; // an interim answer: the final one follows
        relay.answered = true;
        answerHeaders(f, statusCode, rawHeaders, statusMessage);
        return true;
      },
      onData(chunk) {
        exchange.answerBytes += chunk.length;
        if (exchange.answerBytes <= ctx.maxBody) relay.chunks.push(chunk);
        else relay.chunks.length = 0;
        if (relay.held) res.write(relay.held);
        relay.held = chunk;
        return true;
      },
      // The exchange once the answer has ended: its entry is queued, the last chunk sent after it.
      onComplete() {
        exchange.end = Date.now();
        exchange.answer = relay.chunks;
        ctx.complete(exchange, () => res.end(relay.held), done);
      },
      onError: (err) => failed(f, relay, err),
    },
  );
}

/** The final answer's status line and headers: kept for the entry, and sent on to the client. */
function answerHeaders(f: Forwarding, statusCode: number, rawHeaders: Buffer[], statusMessage: string): void {
  const { exchange } = f;
  exchange.firstByteAt = Date.now();
  exchange.status = statusCode;
  exchange.statusText = statusMessage;
  const resRaw = new Array<string>(rawHeaders.length);
  for (let i = 0; i < rawHeaders.length; i++) resRaw[i] = rawHeaders[i]!.toString('latin1');
  exchange.responseHeaders = resRaw;
  f.res.writeHead(statusCode, sendableReason(statusMessage), withoutHopByHop(resRaw));
}

/** The upstream failed: a reset (mid-answer, or a reset code) resets the client; no answer at all is a 502. */
function failed(f: Forwarding, relay: Relay, err: NodeJS.ErrnoException): void {
  const { ctx, req, res, exchange, done } = f;
  if (relay.clientGone) return;
  if (res.headersSent || RESET_CODES.has(err.code ?? '')) {
    if (!res.writableEnded) resetClient(f, relay);
    return;
  }
  // No answer at all (refused, unknown host, a certificate not trusted), or headers past
  // what record takes: not the service's answer, so not recorded; a 502 that says why.
  const why =
    err.code === 'UND_ERR_HEADERS_OVERFLOW'
      ? `record: ${req.method} ${exchange.target.href}: the upstream's answer headers exceed ${ctx.maxAnswerHeaderBytes} bytes; answered 502, not recorded`
      : `record: ${req.method} ${exchange.target.href}: upstream unreachable (${err.code ?? err.message})${
          /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(err.code ?? '')
            ? '; trust its CA with NODE_EXTRA_CA_CERTS'
            : ''
        }`;
  ctx.report(why);
  res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${why}\n`);
  done();
}

/** An upstream that dies mid-answer is one reset, one entry. */
function resetClient(f: Forwarding, relay: Relay): void {
  if (relay.reset) return;
  relay.reset = true;
  (f.req.socket as Socket).resetAndDestroy();
  f.ctx.complete(
    {
      ...f.exchange,
      end: Date.now(),
      status: 0,
      statusText: '',
      responseHeaders: [],
      answer: [],
      answerBytes: 0,
      error: RESET_ERROR,
    },
    noop,
    f.done,
  );
}

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

/** Bytes Node refuses in a reason phrase (it throws ERR_INVALID_CHAR): controls but tab, and DEL. */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/g;

/** The upstream's reason phrase as the client can be sent it: without the bytes Node refuses. */
function sendableReason(reason: string): string {
  return reason.replace(UNSENDABLE, '');
}

function withoutHopByHop(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
