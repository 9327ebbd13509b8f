#!/usr/bin/env node
// Ceiling for writes: a plain Hono route that parses a JSON body, validates it with zod
// (the controls PUT body shape) and inserts one row with better-sqlite3 inside a
// transaction (in-memory database), then answers a small JSON envelope.
// PORT env; PUT /insert and GET /health.
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { z } from 'zod';

const Body = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  blockedVerticals: z.array(
    z.strictObject({
      partnerVerticalId: z.number().int(),
      partnerSubVerticalId: z.number().int(),
      policy: z.literal('Block').optional(),
      position1Policy: z.literal('Block').optional(),
    }),
  ),
  domains: z.array(
    z.strictObject({ domain: z.string().min(1).max(253), policy: z.literal('Block').optional() }),
  ),
  contentHash: z.string().nullable(),
});

const db = new Database(':memory:');
db.exec(`CREATE TABLE rows (
  id INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL,
  blocked TEXT NOT NULL,
  domains TEXT NOT NULL,
  content_hash TEXT,
  created_at TEXT NOT NULL
) STRICT`);
const insert = db.prepare(
  'INSERT INTO rows (request_id, blocked, domains, content_hash, created_at) VALUES (?, ?, ?, ?, ?)',
);
const write = db.transaction((id, b) =>
  insert.run(
    id,
    JSON.stringify(b.blockedVerticals),
    JSON.stringify(b.domains),
    b.contentHash,
    new Date().toISOString(),
  ),
);

const app = new Hono();
app.put('/insert', async (c) => {
  let json;
  try {
    json = await c.req.json();
  } catch {
    return c.json({ status: 'error', error: { code: 'malformed_json' } }, 400);
  }
  const parsed = Body.safeParse(json);
  if (!parsed.success) return c.json({ status: 'error', error: { code: 'validation_error' } }, 400);
  const id = randomUUID();
  const info = write(id, parsed.data);
  return c.json({
    status: 'success',
    error: null,
    request_id: id,
    data: { row_id: Number(info.lastInsertRowid) },
  });
});
app.get('/health', (c) => c.json({ status: 'ok' }));

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 4021), hostname: '127.0.0.1' });
