/**
 * Reading a request body, with the size limit, in one place (partnership writes, the
 * token endpoint, the control plane). Under @hono/node-server the bytes are read straight
 * from Node's IncomingMessage, which skips building a Fetch API Request per write; under
 * `app.request()` (tests) the Fetch body is read. Either way the text is handed to Hono's
 * body cache, so c.req.text()/json() later do not read the stream again.
 *
 * JSON bodies must be UTF-8 (RFC 8259 §8.1): `readJsonText` rejects bytes that are not,
 * where a lenient decode would turn them into U+FFFD and make distinct values equal.
 */
import { isUtf8 } from 'node:buffer';
import type { Context } from 'hono';
import { ApiError } from '../contract/errors.js';
import { invalidUtf8Message } from '../contract/messages.js';
import type { AppEnv } from './env.js';
import { incoming as nodeRequest, requestHeader } from './headers.js';

const tooLarge = (limit: number) =>
  new ApiError('payload_too_large', `Request body is larger than ${limit} bytes.`, {
    details: { limit_bytes: limit },
  });

async function readBytes(c: Context<AppEnv>, limit: number): Promise<Buffer> {
  const declared = Number(requestHeader(c, 'content-length'));
  if (declared > limit) throw tooLarge(limit);
  const incoming = nodeRequest(c);
  if (incoming && !incoming.readableEnded) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength > limit) throw tooLarge(limit);
  return Buffer.from(bytes);
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
