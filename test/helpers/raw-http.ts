/**
 * A listening sandbox from the outside: the demo partner's token and an account over
 * fetch, and HTTP over a raw socket for what no HTTP client would send (no Host, a
 * malformed request line, a body cut off): write the bytes, read until the server closes.
 */
import { connect } from 'node:net';
import { expect } from 'vitest';
import { DEMO, registerBody } from './harness.js';

/** A partner's token request (client credentials, a form) to the sandbox at `url`, as answered. */
export function tokenResponse(url: string, clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
}

/** The demo partner's (fixtures) token request to the sandbox at `url`, as answered. */
export const demoTokenResponse = (url: string) => tokenResponse(url, DEMO.clientId, DEMO.clientSecret);

/** A token of the demo partner (fixtures) from the sandbox at `url`. */
export async function demoToken(url: string): Promise<string> {
  const res = await demoTokenResponse(url);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Registers an account of the demo partner at `url` with `token`; its ID. */
export async function demoAccount(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/v1/accounts/register/partnership`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(registerBody()),
  });
  return ((await res.json()) as { data: { account_id: string } }).data.account_id;
}

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  body: any;
  text: string;
}

/** Status, headers (lower-case names) and the JSON body (null when none or not JSON). */
export function parseReply(text: string): RawReply {
  const cut = text.indexOf('\r\n\r\n');
  const head = cut === -1 ? text : text.slice(0, cut);
  const body = cut === -1 ? '' : text.slice(cut + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  let parsed: unknown = null;
  try {
    parsed = body ? JSON.parse(body) : null;
  } catch {
    parsed = null;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: parsed, text };
}

/**
 * Writes `request` on a raw socket; then closes it (`hangUp`), ends its writing side
 * (`end`), or leaves it open; resolves with what the server sent once it closes.
 */
export function raw(
  port: number,
  request: string,
  o: { hangUp?: boolean; end?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (o.end) socket.end(request);
      else
        socket.write(request, () => {
          if (o.hangUp) socket.destroy();
        });
    });
    let text = '';
    socket.on('data', (d) => {
      text += d;
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(text));
  });
}

/** An answer no route produced, in the envelope: the status, the code, X-Request-Id, nosniff, Connection: close. */
export function expectRawEnvelope(res: RawReply, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers.connection).toBe('close');
  expect(res.body).toEqual({
    status,
    error: { code },
    message: expect.any(String),
    request_id: res.headers['x-request-id'],
    data: null,
  });
  expect(res.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
}
