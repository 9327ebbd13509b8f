#!/usr/bin/env node
// Ceiling for reads: a plain Hono route on @hono/node-server returning constant JSON, the
// same bytes as a controls GET answer. PORT env; GET /json and GET /health.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

// The same shape and size (1,528 bytes) as a real controls GET answer with the default
// fixtures: 18 translated verticals, three of them blocked by the default preset.
const subs = [
  1001, 1002, 1003, 1004, 2001, 2002, 2003, 2004, 3001, 3002, 3003, 4001, 4002, 4003, 4004, 5001, 5002, 5003,
];
const blocked = new Set([4002, 4003, 5003]);
const body = {
  status: 200,
  error: null,
  message: 'ok',
  request_id: '0003a6f9-a966-4c7d-9f8e-07b1744855a0',
  data: {
    account_id: 'acct_0mwrl6w0m14j3mrs7ai5',
    marketplace_controls_list: {
      marketplace_controls_list_id: '01a20269-e896-72e6-a2b4-f88e5fc278a0',
      domains: [],
      content_hash: 'f9db1d76c07b47668e97c46e2859d34541bc5fe1',
    },
    translated_verticals: subs.map((id) => {
      const policy = blocked.has(id) ? 'Block' : 'Allow';
      return { vertical_id: id, policy, position_1_policy: policy };
    }),
  },
};

const app = new Hono();
app.get('/json', (c) => c.json(body));
app.get('/health', (c) => c.json({ status: 'ok' }));

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 4020), hostname: '127.0.0.1' });
