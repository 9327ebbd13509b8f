/**
 * Reading a request body, with the size limit, in one place (partnership writes, the
 * token endpoint, the control plane). Under @hono/node-server the bytes are read straight
 * from Node's IncomingMessage, which skips building a Fetch API Request per write; under
 * `app.request()` (tests) the Fetch body is read. Either way the text is handed to Hono's
 * body cache, so c.req.text()/json() later do not read the stream again.
 *
 * JSON bodies must be UTF-8 (RFC 8259 §8.1): `readJsonText` rejects bytes that are not,
 * where a lenient decode would turn them into U+FFFD and make distinct values equal.
 *
 * A body that ends early (the client hung up, or Node's request timeout closed the
 * connection and answered 408 itself) throws BodyCutOff: there is no one to answer, so
 * `answerCutOff` writes nothing and the journal records the call as the connection-reset
 * drill is recorded (status 0, no answer), with a warning saying what happened.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import { invalidUtf8Message } from '../contract/api/messages.js';
import type { AppEnv } from './env.js';
import { incoming as nodeRequest, requestHeader } from './request-headers.js';

const tooLarge = (limit: number) =>
  new ApiError('payload_too_large', `Request body is larger than ${limit} bytes.`, {
    details: { limit_bytes: limit },
  });

/** The request's body ended before it was complete; the connection is gone. */
export class BodyCutOff extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BodyCutOff';
  }
}

/** Requests whose connection Node's request timeout closed (server.ts answered them 408). */
const timedOut = new WeakSet<IncomingMessage>();

/** Called by the server when Node's request timeout ends this request's connection. */
export function markTimedOut(request: IncomingMessage): void {
  timedOut.add(request);
}

function cutOff(c: Context<AppEnv>, received: number, incoming?: IncomingMessage): BodyCutOff {
  const declared = requestHeader(c, 'content-length');
  const arrived =
    declared === undefined ? `${received} bytes of a chunked body` : `${received} of ${declared} body bytes`;
  if (incoming && timedOut.has(incoming)) {
    const seconds = c.get('sandbox').config.requestTimeoutSeconds;
    return new BodyCutOff(
      `the request was not received within ${seconds} s (after ${arrived}): the server answered 408 request_timeout and closed the connection; nothing was done`,
    );
  }
  return new BodyCutOff(
    `the client closed the connection after ${arrived}: nothing was answered and nothing was done`,
  );
}

async function readBytes(c: Context<AppEnv>, limit: number): Promise<Buffer> {
  const declared = Number(requestHeader(c, 'content-length'));
  if (declared > limit) throw tooLarge(limit);
  const incoming = nodeRequest(c);
  if (incoming && !incoming.readableEnded) {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of incoming as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) throw tooLarge(limit);
        chunks.push(chunk);
      }
    } catch (e) {
      if (e instanceof ApiError || incoming.complete) throw e;
      keep(c, Buffer.concat(chunks).toString('utf8')); // the journal shows what arrived
      throw cutOff(c, size, incoming);
    }
    return Buffer.concat(chunks);
  }
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch {
    throw cutOff(c, 0);
  }
  if (bytes.byteLength > limit) throw tooLarge(limit);
  return Buffer.from(bytes);
}

/**
 * The answer to a request whose body was cut off: none. Journaled with status 0 (as the
 * connection-reset drill is) and a warning saying what happened; no error is logged.
 */
export function answerCutOff(c: Context<AppEnv>, err: BodyCutOff): Response {
  c.set('connectionReset', true);
  c.get('warnings').push(err.message);
  // In process (app.request) there is no socket: a network error.
  return nodeRequest(c) ? RESPONSE_ALREADY_SENT : Response.error();
}

function keep(c: Context<AppEnv>, text: string): string {
  // Hono keeps promises in its body cache (its type says otherwise).
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
  c.set('rawBody', text);
  return text;
}

/** The body as text; bytes that are not UTF-8 become U+FFFD (the token endpoint's forms). */
export async function readBody(c: Context<AppEnv>): Promise<string> {
  return keep(c, (await readBytes(c, c.get('sandbox').config.bodyLimitBytes)).toString('utf8'));
}

/**
 * A JSON body's text: 400 malformed_json naming the byte offset of the first sequence
 * that is not UTF-8. The journal still shows what arrived (decoded with U+FFFD). `limit`
 * defaults to the configured body limit (a bundle has its own).
 */
export async function readJsonText(
  c: Context<AppEnv>,
  limit = c.get('sandbox').config.bodyLimitBytes,
): Promise<string> {
  const bytes = await readBytes(c, limit);
  const text = keep(c, bytes.toString('utf8'));
  if (!isUtf8(bytes)) {
    const offset = invalidUtf8Offset(bytes);
    throw new ApiError('malformed_json', invalidUtf8Message(offset), { details: { byte_offset: offset } });
  }
  return text;
}

/**
 * The offset of the first byte that does not start a well-formed UTF-8 sequence
 * (Unicode Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF), or -1.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + need >= n) return i; // truncated at the end
    const second = bytes[i + 1]!;
    if (second < lo || second > hi) return i;
    for (let k = 2; k <= need; k++) {
      const cont = bytes[i + k]!;
      if (cont < 0x80 || cont > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}
