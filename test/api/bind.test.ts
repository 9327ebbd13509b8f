/**
 * The one binder (src/http/bind.ts) on a control-plane declaration: the declared path, query
 * and body schemas parse the request before the handler sees it, and what they refuse is the
 * one validation error naming the field (path.*, query.*, the body's own names). The control
 * plane's own declarations take any path segment, so a declaration of this test's own, with
 * bounds, shows what the binder does with a path parameter it refuses.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/contract/api/errors.js';
import type { ControlRoute } from '../../src/contract/control/control-routes.js';
import { errorResponse } from '../../src/http/answer-writer.js';
import { bind } from '../../src/http/bind.js';
import type { AppEnv } from '../../src/http/env.js';
import { requestContext } from '../../src/http/request-context.js';
import { createHarness } from '../helpers/harness.js';

const route = {
  ...createRoute({
    method: 'post',
    path: '/__sandbox/things/{name}',
    operationId: 'putThing',
    request: {
      params: z.object({ name: z.string().min(3).max(8) }),
      query: z.object({ mode: z.enum(['a', 'b']).optional() }),
      body: { content: { 'application/json': { schema: z.strictObject({ size: z.int().min(1) }) } } },
    },
    responses: {
      200: {
        description: 'The thing.',
        content: {
          'application/json': {
            schema: z.object({ name: z.string(), mode: z.string(), size: z.int() }),
          },
        },
      },
    },
  }),
  summary: 'A thing',
  description: 'A declaration of this test only.',
} as unknown as ControlRoute & {
  request: {
    params: z.ZodObject<{ name: z.ZodString }>;
    query: z.ZodObject<{ mode: z.ZodOptional<z.ZodEnum<{ a: 'a'; b: 'b' }>> }>;
  };
};

function thingApp() {
  const h = createHarness();
  const app = new Hono<AppEnv>();
  app.use('*', requestContext(h.sandbox));
  bind(app, route, async ({ params, query, body }, c) => {
    const { size } = (await body()) as unknown as { size: number };
    return c.json({ name: params.name, mode: query.mode ?? 'a', size }, 200) as never;
  });
  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    throw err;
  });
  return app;
}

const post = (path: string, body: unknown) =>
  thingApp().request(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the binder on a control-plane declaration', () => {
  it('the handler receives the path, query and body its declaration parsed', async () => {
    const res = await post('/__sandbox/things/abcd?mode=b', { size: 2 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'abcd', mode: 'b', size: 2 });
  });

  it('a path parameter its schema refuses is a 400 naming path.<name>, before the handler', async () => {
    for (const name of ['ab', 'much-too-long']) {
      const res = await post(`/__sandbox/things/${name}`, { size: 2 });
      expect(res.status).toBe(400);
      const body = (await res.json()) as {
        error: { code: string; details: { fields: { field: string }[] } };
      };
      expect(body.error.code).toBe('validation_error');
      expect(body.error.details.fields.map((f) => f.field)).toEqual(['path.name']);
    }
  });

  it('a query or a body its schema refuses is a 400 naming the field', async () => {
    const query = await post('/__sandbox/things/abcd?mode=c', { size: 2 });
    expect(query.status).toBe(400);
    expect(
      ((await query.json()) as { error: { details: { fields: { field: string }[] } } }).error.details
        .fields[0]!.field,
    ).toBe('query.mode');
    const body = await post('/__sandbox/things/abcd', { size: 0 });
    expect(body.status).toBe(400);
    expect(
      ((await body.json()) as { error: { details: { fields: { field: string }[] } } }).error.details
        .fields[0]!.field,
    ).toBe('size');
  });
});
