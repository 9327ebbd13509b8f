/** Bundles on the control plane (docs/parallel-tests.md): one partner out, one partner in. */
import type { ServerResponse } from 'node:http';
import { type Context, Hono } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import {
  BUNDLE_LIMIT_BYTES,
  LARGE_IMPORTS_AT_ONCE,
  LARGE_IMPORTS_RETRY_AFTER_SECONDS,
} from '../contract/control/bundle.js';
import { isolationRoutes as iso } from '../contract/control/control-routes-isolation.js';
import { bind } from '../http/bind.js';
import { controlJsonText } from '../http/control-body.js';
import type { AppEnv } from '../http/env.js';
import { parseJson } from '../http/json.js';
import { ASIDE_MIN_CHARS, parseJsonAside } from '../http/json-aside.js';
import type { Sandbox } from '../state/index.js';
import { ACCOUNTS_PER_TURN, exportBundlePieces, importBundleInTurns, piecesStream } from '../state/index.js';

export function bundleRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, iso.exportBundle, async (call, c) => {
    const parent = call.params.parent_account_id;
    const { pieces, recycle } = await exportBundlePieces(s, parent);
    // Its buffers are reused once the answer is closed (sent, or the client gone): not before.
    (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing?.once('close', recycle);
    const length = pieces.reduce((n, piece) => n + piece.length, 0);
    const file = `sandbox-bundle-${parent.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
    // The bundle's JSON (state/bundles/bundle-export.ts), written by turns and sent a chunk at a time.
    return c.body(piecesStream(pieces), 200, {
      'Content-Length': String(length),
      'Content-Type': 'application/json',
      'Content-Disposition': `attachment; filename="${file}"`,
    }) as never;
  });

  bind(api, iso.importBundle, async (_call, c) => {
    // A large body (or one of no stated length) takes a place before it is read: past the
    // last, a 429 and nothing read (its bytes are discarded as they come).
    const length = Number(c.req.header('content-length') ?? Number.NaN);
    const release = length < ASIDE_MIN_CHARS ? () => {} : s.gate.largeImport(LARGE_IMPORTS_AT_ONCE);
    if (!release) {
      const seconds = LARGE_IMPORTS_RETRY_AFTER_SECONDS;
      throw new ApiError(
        'rate_limited',
        `${LARGE_IMPORTS_AT_ONCE} imports of a large bundle are in progress already: retry after ${seconds} s. Nothing was read or loaded.`,
        { headers: { 'Retry-After': String(seconds) }, details: { retry_after_seconds: seconds } },
      );
    }
    try {
      return await importFrom(c);
    } finally {
      release();
    }
  });

  async function importFrom(c: Context<AppEnv>) {
    const text = await controlJsonText(c, BUNDLE_LIMIT_BYTES);
    // A large bundle is parsed on another thread, its accounts handed back as texts of one turn's worth.
    if (text !== undefined && text.length >= ASIDE_MIN_CHARS) {
      const { value, slices, count } = await parseJsonAside(text, 'accounts', ACCOUNTS_PER_TURN);
      const imported = await s.gate.oneImport(() =>
        importBundleInTurns(s, value, slices && { slices, count }),
      );
      return c.json({ imported }, 200);
    }
    const json = text === undefined ? {} : parseJson(text);
    return c.json({ imported: await s.gate.oneImport(() => importBundleInTurns(s, json)) }, 200);
  }
  return api;
}
