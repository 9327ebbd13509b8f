/**
 * X-Sandbox-Partner in the control document (docs/hosting.md): the served
 * `/__sandbox/openapi.json` declares the header once (components.headers) and lists it on every
 * answer but the 401 of each route a partner's token opens, and on none of the others; a
 * partner's answer carries it as declared.
 */
import { describe, expect, it } from 'vitest';
import { createHarness, DEMO } from '../helpers/harness.js';

type Operation = {
  operationId: string;
  security: Record<string, string[]>[];
  responses: Record<string, { headers?: Record<string, { $ref?: string }> }>;
};

describe('X-Sandbox-Partner in the control document', () => {
  it('is declared once and listed on each answer of the routes a partner token opens', async () => {
    const h = createHarness();
    const doc = (await h.request('GET', '/__sandbox/openapi.json')).body;
    expect(doc.components.headers.XSandboxPartner).toMatchObject({ schema: { type: 'string' } });
    const ops = Object.values(doc.paths as Record<string, Record<string, Operation>>).flatMap((m) =>
      Object.values(m),
    );
    const partnerOps = ops.filter((op) => op.security.some((s) => 'partnerToken' in s));
    expect(partnerOps.map((op) => op.operationId)).toEqual(
      expect.arrayContaining(['resetPartner', 'addVariant', 'listRequests', 'countRequests', 'exportBundle']),
    );
    for (const op of ops) {
      const opens = partnerOps.includes(op);
      for (const [status, answer] of Object.entries(op.responses)) {
        const named = answer.headers?.['X-Sandbox-Partner'];
        if (opens && status !== '401')
          expect(named, `${op.operationId} ${status}`).toEqual({
            $ref: '#/components/headers/XSandboxPartner',
          });
        else expect(named, `${op.operationId} ${status}`).toBeUndefined();
      }
    }
    // Not in the partner API's documents: a control-plane header only.
    expect(JSON.stringify((await h.request('GET', '/openapi.json')).body)).not.toContain('X-Sandbox-Partner');
  });

  it("a partner's answer carries it, as the document says", async () => {
    const h = createHarness({ adminToken: 'admin-token-0123456789abcdef' });
    const demo = await h.client(DEMO);
    const res = await h.request('GET', '/__sandbox/requests', {
      headers: { Authorization: `Bearer ${demo.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sandbox-partner')).toBe(DEMO.parent);
  });
});
