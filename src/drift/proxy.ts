/**
 * `record` (docs/drift.md): a recording proxy. Each request goes to the upstream unchanged
 * but for `Host` (and the hop-by-hop headers of RFC 9110 §7.6.1, which belong to one
 * connection); the upstream's answer comes back unchanged (status, headers, body, streamed as
 * it arrives); a reset upstream connection is a reset of the client's. Each exchange is then
 * appended to the HAR file, redacted, with its `_contract` problems; a line on stderr names
 * each answer that breaks the partner document.
 */
import { once } from 'node:events';
import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { StartupError } from '../core/startup-error.js';
import { packageVersion } from '../package-dir.js';
import { ContractChecker } from './contract-check.js';
import { type HarEntry, type HarHeader, HarWriter, RESET_ERROR } from './har.js';
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
  /** Called with one line for each answer that breaks the partner document; default: stderr. */
  onContractBreak?: (line: string) => void;
  /** The OpenAPI 3.0 document to check answers against; default: the partner document the sandbox serves. */
  document?: object;
}

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

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the exchange. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

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
  const redactor = new Redactor();
  const report = options.onContractBreak ?? ((line: string) => process.stderr.write(`${line}\n`));
  const secure = upstream.protocol === 'https:';
  // Idle upstream sockets are dropped after a second, well before a server's keep-alive timeout
  // (Node's is 5 s), so a reused socket is never one the upstream has closed meanwhile.
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, timeout: 1000, maxSockets: 256 })
    : new HttpAgent({ keepAlive: true, timeout: 1000, maxSockets: 256 });
  const send = secure ? httpsRequest : httpRequest;
  const inFlight = new Set<Promise<void>>();

  let writeFailed = false;
  const write = (entry: HarEntry, method: string, path: string) => {
    const index = writer.count;
    if (writeFailed) return;
    try {
      writer.append(entry);
    } catch (err) {
      // A full disk or a file gone: the exchanges still pass through; the file keeps what it had.
      writeFailed = true;
      report(
        `record: cannot write ${out} (${(err as NodeJS.ErrnoException).code ?? err}): exchanges from entries[${index}] on are not recorded`,
      );
      return;
    }
    if (entry._contract?.length) {
      report(
        `record: entries[${index}] ${method} ${path} ${entry.response.status}: ${entry._contract.join('; ')}`,
      );
    }
  };

  const server: Server = createServer({ keepAlive: true }, (req, res) => {
    const startedAt = Date.now();
    const startedDateTime = new Date(startedAt).toISOString();
    const path = req.url ?? '/';
    const target = new URL(upstream.prefix + path, upstream.origin);
    const requestChunks: Buffer[] = [];
    let done!: () => void;
    const settled = new Promise<void>((resolve) => {
      done = resolve;
    });
    inFlight.add(settled);
    settled.then(() => inFlight.delete(settled));

    req.on('data', (chunk: Buffer) => requestChunks.push(chunk));
    req.on('error', () => done());
    req.on('end', () => {
      const body = Buffer.concat(requestChunks);
      const headers = forwardedHeaders(req.rawHeaders, target.host);
      const up = send(target, { method: req.method, headers, agent });
      let firstByteAt = 0;
      const entryOf = (
        status: number,
        statusText: string,
        resHeaders: HarHeader[],
        content: HarEntry['response']['content'],
        error?: string,
      ): HarEntry => {
        const end = Date.now();
        const requestMime = req.headers['content-type'] ?? '';
        const url = redactor.url(target.href);
        return {
          startedDateTime,
          time: end - startedAt,
          request: {
            method: req.method ?? 'GET',
            url,
            httpVersion: `HTTP/${req.httpVersion}`,
            cookies: [],
            headers: redactor.headers(
              pairs(req.rawHeaders).map((h) =>
                h.name.toLowerCase() === 'host' ? { name: h.name, value: target.host } : h,
              ),
            ),
            queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
            ...(body.length
              ? {
                  postData: {
                    mimeType: requestMime,
                    text: redactor.body(body.toString('utf8'), requestMime),
                  },
                }
              : {}),
            headersSize: -1,
            bodySize: body.length,
          },
          response: {
            status,
            statusText,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: redactor.headers(resHeaders),
            content,
            redirectURL: '',
            headersSize: -1,
            bodySize: content.size,
            ...(error ? { _error: error } : {}),
          },
          cache: {},
          timings: {
            send: 0,
            wait: firstByteAt ? firstByteAt - startedAt : end - startedAt,
            receive: firstByteAt ? end - firstByteAt : 0,
          },
          _contract: [],
        };
      };
      const resetClient = () => {
        write(entryOf(0, '', [], { size: 0, mimeType: '' }, RESET_ERROR), req.method ?? 'GET', path);
        (req.socket as Socket).resetAndDestroy();
        done();
      };
      up.on('response', (ures: IncomingMessage) => {
        firstByteAt = Date.now();
        const status = ures.statusCode ?? 502;
        const resPairs = pairs(ures.rawHeaders);
        res.writeHead(status, ures.statusMessage, withoutHopByHop(ures.rawHeaders));
        const chunks: Buffer[] = [];
        ures.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          res.write(chunk);
        });
        ures.on('end', () => {
          res.end();
          const raw = Buffer.concat(chunks);
          const mimeType = ures.headers['content-type'] ?? '';
          const decoded = decode(raw, ures.headers['content-encoding']);
          const textual = decoded !== undefined && isTextual(mimeType, decoded);
          const text = textual ? decoded.toString('utf8') : undefined;
          const entry = entryOf(status, ures.statusMessage ?? '', resPairs, {
            size: decoded?.length ?? raw.length,
            mimeType,
            ...(text !== undefined
              ? { text: redactor.body(text, mimeType) }
              : { text: raw.toString('base64'), encoding: 'base64' }),
          });
          try {
            entry._contract = checker.check({
              method: req.method ?? 'GET',
              path,
              status,
              headers: Object.fromEntries(resPairs.map((h) => [h.name, h.value])),
              body: text ?? '',
            });
          } catch (err) {
            entry._contract = [`not checked: ${(err as Error).message}`];
          }
          write(entry, req.method ?? 'GET', path);
          done();
        });
        ures.on('error', () => resetClient());
        ures.on('aborted', () => resetClient());
      });
      up.on('timeout', () => {}); // the agent's idle timeout; an exchange in flight is never cut
      up.on('error', (err: NodeJS.ErrnoException) => {
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
      });
      up.end(body);
    });
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
        await Promise.race([Promise.all([...inFlight]), new Promise((r) => setTimeout(r, 5000).unref())]);
        server.closeAllConnections();
        await closed;
        agent.destroy();
        writer.close();
      })();
      return stopped;
    },
  };
}

function parseUpstream(raw: string): { origin: string; protocol: string; prefix: string } {
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
  return { origin: url.origin, protocol: url.protocol, prefix: url.pathname.replace(/\/+$/, '') };
}

function pairs(raw: readonly string[]): HarHeader[] {
  const out: HarHeader[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push({ name: raw[i]!, value: raw[i + 1]! });
  return out;
}

function withoutHopByHop(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** The client's headers for the upstream: the same, but for Host and the hop-by-hop ones. */
function forwardedHeaders(raw: readonly string[], host: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (lower === 'host' || (HOP_BY_HOP.has(lower) && lower !== 'transfer-encoding')) continue;
    const value = raw[i + 1]!;
    const had = out[name];
    out[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  out.Host = host;
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
