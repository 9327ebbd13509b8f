/**
 * The API sends no CORS headers (docs/api.md "Browsers: no CORS"): the real service is called
 * server to server, so a browser page calling it directly must fail here as it would there. A
 * preflight is answered as any method a route does not take: 405 with Allow, in the envelope.
 */
import { describe, expect, it } from 'vitest';
import { createHarness, expectErrorEnvelope, MAPPINGS } from '../helpers/harness.js';

const ORIGIN = 'http://localhost:5173';
const corsHeaders = (headers: Headers) =>
  [...headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('CORS: none on the API', () => {
  it('a call from a page (Origin) is answered without Access-Control-* headers, the token call too', async () => {
    const h = createHarness();
    const partner = await h.client();
    const read = await partner.get(MAPPINGS, { Origin: ORIGIN });
    expect(read.status).toBe(200);
    expect(corsHeaders(read.headers)).toEqual([]);
    const token = await h.request('POST', '/oauth/token', {
      raw: 'grant_type=client_credentials&client_id=sandbox-demo-client&client_secret=sandbox-demo-secret',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN },
    });
    expect(token.status).toBe(200);
    expect(corsHeaders(token.headers)).toEqual([]);
  });

  it('a preflight (OPTIONS) is 405 with Allow, no Access-Control-* header', async () => {
    const h = createHarness();
    for (const [path, allow] of [
      [MAPPINGS, 'GET, HEAD'],
      ['/oauth/token', 'POST'],
    ] as const) {
      const res = await h.request('OPTIONS', path, {
        headers: {
          Origin: ORIGIN,
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization',
        },
      });
      expectErrorEnvelope(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow'), path).toBe(allow);
      expect(corsHeaders(res.headers), path).toEqual([]);
    }
  });
});
