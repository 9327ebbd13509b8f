#!/usr/bin/env node
// The floor of any answer on Node's HTTP server: a plain node:http listener (no Hono, no
// Fetch objects) answering every request with constant bytes of a limited call's size (a 429
// envelope and the same headers). PORT env. Every path answers those bytes: with 200 at
// /__sandbox/health and 201 to POST /__sandbox/partners, so that the bench helpers (start-up,
// partnerWithToken) and bench/instructions.mjs --main=bench/baselines/constant-node.mjs
// --workload='limited GET' run against it as against a sandbox.
import { createServer } from 'node:http';

const body = JSON.stringify({
  status: 429,
  error: { code: 'rate_limited', details: { retry_after_seconds: 1 } },
  message:
    'Too many requests: this partner may make 25 calls a second (burst 25); retry after 1 s. Nothing was applied.',
  request_id: '019ac9c2-5a1e-7f3e-9c0d-2b6f1d7e8a90',
  data: null,
});
const headers = {
  'x-request-id': '019ac9c2-5a1e-7f3e-9c0d-2b6f1d7e8a90',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'content-type': 'application/json',
  'retry-after': '1',
  'Content-Length': String(Buffer.byteLength(body)),
};

createServer((req, res) => {
  const status =
    req.url === '/__sandbox/health'
      ? 200
      : req.method === 'POST' && req.url === '/__sandbox/partners'
        ? 201
        : 429;
  res.writeHead(status, headers);
  res.end(body);
}).listen(Number(process.env.PORT ?? 4021), '127.0.0.1');
