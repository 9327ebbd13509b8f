#!/usr/bin/env node
// Ceiling for reads: a plain Hono route on @hono/node-server returning constant JSON of
// about the size of a controls GET answer. PORT env; GET /json and GET /health.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const body = {
  status: 'success',
  error: null,
  message: 'OK',
  request_id: '6f1c1a2e-5b7d-4c1e-9a57-0d4b2f9c8e11',
  data: {
    account_id: 'acct_0123456789abcdefghij',
    marketplace_controls_list: {
      marketplace_controls_list_id: '0b9d6a4e-2f51-4e2c-8d3a-6c7e1f2a9b40',
      domains: [],
      content_hash: '3f0c8e1d2b4a5968778695a4b3c2d1e0f9a8b7c6',
    },
    translated_verticals: [
      { partnerVerticalId: 40, partnerSubVerticalId: 4002, policy: 'Block', position1Policy: 'Block' },
      { partnerVerticalId: 40, partnerSubVerticalId: 4003, policy: 'Block', position1Policy: 'Block' },
      { partnerVerticalId: 50, partnerSubVerticalId: 5003, policy: 'Block', position1Policy: 'Block' },
    ],
  },
};

const app = new Hono();
app.get('/json', (c) => c.json(body));
app.get('/health', (c) => c.json({ status: 'ok' }));

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 4020), hostname: '127.0.0.1' });
