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
  const { upstream, maxBody, report } = ctx;
  return function capture(req: IncomingMessage, res: ServerResponse): void {
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
    const settle = ctx.begin();
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
    const exchange: Captured = {
      startedAt,
      firstByteAt: 0,
      end: 0,
      method,
      path,
      target,
      httpVersion: `HTTP/${req.httpVersion}`,
      requestHeaders: raw,
      requestBody: EMPTY,
      requestMime: contentType ?? '',
      status: 0,
      statusText: '',
      responseHeaders: [],
      answer: [],
      answerBytes: 0,
    };

    /** Sends the request with its whole body to the upstream, and its answer back. */
    const forward = (body: Buffer) => {
      exchange.requestBody = body;
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
      // An upstream that dies mid-answer is one reset, one entry.
      let reset = false;
      const resetClient = () => {
        if (reset) return;
        reset = true;
        (req.socket as Socket).resetAndDestroy();
        ctx.complete(
          {
            ...exchange,
            end: Date.now(),
            status: 0,
            statusText: '',
            responseHeaders: [],
            answer: [],
            answerBytes: 0,
            error: RESET_ERROR,
          },
          noop,
          done,
        );
      };
      const chunks: Buffer[] = [];
      /** The answer's last chunk so far: it goes out once the next one comes, or the entry is written. */
      let held: Buffer | undefined;
      /** The exchange once the answer has ended: its entry is queued, the last chunk sent after it. */
      const ended = () => {
        exchange.end = Date.now();
        exchange.answer = chunks;
        ctx.complete(exchange, () => res.end(held), done);
      };
      const failed = (err: NodeJS.ErrnoException) => {
        if (clientGone) return;
        if (res.headersSent || RESET_CODES.has(err.code ?? '')) {
          if (!res.writableEnded) resetClient();
          return;
        }
        // No answer at all (refused, unknown host, a certificate not trusted), or headers past
        // what record takes: not the service's answer, so not recorded; a 502 that says why.
        const why =
          err.code === 'UND_ERR_HEADERS_OVERFLOW'
            ? `record: ${req.method} ${target.href}: the upstream's answer headers exceed ${ctx.maxAnswerHeaderBytes} bytes; answered 502, not recorded`
            : `record: ${req.method} ${target.href}: upstream unreachable (${err.code ?? err.message})${
                /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(err.code ?? '')
                  ? '; trust its CA with NODE_EXTRA_CA_CERTS'
                  : ''
              }`;
        report(why);
        res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${why}\n`);
        done();
      };
      ctx.pool.dispatch(
        { method, path: target.path, headers, body: body.length ? body : null },
        {
          onConnect(abortRequest) {
            abort = abortRequest;
            if (clientGone) abortRequest(new Error('the client hung up'));
          },
          onHeaders(statusCode, rawHeaders, _resume, statusMessage) {
            if (statusCode < 200) return true; // an interim answer: the final one follows
            answered = true;
            exchange.firstByteAt = Date.now();
            exchange.status = statusCode;
            exchange.statusText = statusMessage;
            const resRaw = new Array<string>(rawHeaders.length);
            for (let i = 0; i < rawHeaders.length; i++) resRaw[i] = rawHeaders[i]!.toString('latin1');
            exchange.responseHeaders = resRaw;
            res.writeHead(statusCode, sendableReason(statusMessage), withoutHopByHop(resRaw));
            return true;
          },
          onData(chunk) {
            exchange.answerBytes += chunk.length;
            if (exchange.answerBytes <= maxBody) chunks.push(chunk);
            else chunks.length = 0;
            if (held) res.write(held);
            held = chunk;
            return true;
          },
          onComplete: ended,
          onError: failed,
        },
      );
    };

    let requestBytes = 0;
    let tooLarge = false;
    const requestChunks: Buffer[] = [];
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
  };
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
