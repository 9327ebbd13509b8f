/**
 * Reading a request body, with the size limit, in one place (partnership writes, the
 * token endpoint, the control plane). Under @hono/node-server the bytes are read straight
 * from Node's IncomingMessage, which skips building a Fetch API Request per write; under
 * `app.request()` (tests) the Fetch body is read. Either way the text is handed to Hono's
 * body cache, so c.req.text()/json() later do not read the stream again.
 */
import type { Context } from 'hono';
import { ApiError } from '../contract/errors.js';
import type { AppEnv } from './env.js';
import { incoming as nodeRequest, requestHeader } from './headers.js';

const tooLarge = (limit: number) =>
  new ApiError('payload_too_large', `Request body is larger than ${limit} bytes.`, {
    details: { limit_bytes: limit },
  });

/** Reads the body as text; `limit` defaults to the configured body limit (a bundle has its own). */
export async function readBody(
  c: Context<AppEnv>,
  limit = c.get('sandbox').config.bodyLimitBytes,
): Promise<string> {
  const declared = Number(requestHeader(c, 'content-length'));
  if (declared > limit) throw tooLarge(limit);
  const incoming = nodeRequest(c);
  let text: string;
  if (incoming && !incoming.readableEnded) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    const bytes = await c.req.arrayBuffer();
    if (bytes.byteLength > limit) throw tooLarge(limit);
    text = Buffer.from(bytes).toString('utf8');
  }
  // Hono keeps promises in its body cache (its type says otherwise).
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
  c.set('rawBody', text);
  return text;
}
