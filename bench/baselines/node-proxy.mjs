#!/usr/bin/env node
// Ceiling for record (bench/drift.mjs): a bare Node.js reverse proxy that records nothing, with
// the same keep-alive agent as record, piping each request to the upstream and each answer back.
// Usage: node bench/baselines/node-proxy.mjs UPSTREAM_URL; PORT env. GET /health is forwarded.
import { Agent, createServer, request } from 'node:http';

const upstream = new URL(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
createServer({ keepAlive: true }, (req, res) => {
  const up = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  up.on('error', () => req.socket.destroy());
  req.pipe(up);
}).listen(Number(process.env.PORT), '127.0.0.1');
