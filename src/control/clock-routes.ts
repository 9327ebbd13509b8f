/**
 * The clocks on the control plane: the global sandbox clock (docs/control-plane.md), which moves
 * every partner, and one partner's own offset on top of it (§10).
 */
import { Hono } from 'hono';
import { validationError } from '../contract/api/errors.js';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import { isolationRoutes as iso } from '../contract/control/control-routes-isolation.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { partnerOr404 } from '../services/lookup.js';
import type { Sandbox } from '../state/index.js';
import { changeClocks } from '../state/index.js';

export function clockView(s: Sandbox) {
  return { now: s.clock.iso(), offset_seconds: s.clock.offsetMs / 1000 };
}

export function partnerClockView(s: Sandbox, parent: string) {
  return {
    parent_account_id: parent,
    now: s.clock.iso(parent),
    offset_seconds: s.clock.partnerOffsetMs(parent) / 1000,
    global_offset_seconds: s.clock.offsetMs / 1000,
  };
}

const tooFar = (headroom: number, whose: string, resetHint: string) =>
  validationError([
    {
      field: 'seconds',
      message: `would move ${whose} more than 100 years ahead in all; it can move ${headroom} more seconds (${resetHint} sets it back)`,
    },
  ]);

export function clockRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, op.getClock, (_call, c) => c.json(clockView(s), 200));
  bind(api, op.advanceClock, async (input, c) => {
    const { seconds } = await input.body();
    if (seconds > s.clock.headroomSeconds)
      throw tooFar(s.clock.headroomSeconds, 'the sandbox clock', 'POST /__sandbox/reset');
    changeClocks(
      s,
      () => s.clock.advance(seconds),
      () => undefined,
    );
    return c.json(clockView(s), 200);
  });

  bind(api, iso.getPartnerClock, (call, c) => {
    const parent = call.params.parent_account_id;
    partnerOr404(s, parent);
    return c.json(partnerClockView(s, parent), 200);
  });
  bind(api, iso.advancePartnerClock, async (input, c) => {
    const parent = input.params.parent_account_id;
    partnerOr404(s, parent);
    const { seconds } = await input.body();
    partnerOr404(s, parent); // again: a reset may have come while the body was read
    const headroom = s.clock.partnerHeadroomSeconds(parent);
    if (seconds > headroom)
      throw tooFar(headroom, "this partner's clock", `POST /__sandbox/partners/${parent}/reset`);
    changeClocks(
      s,
      () => s.clock.advancePartner(parent, seconds),
      () => undefined,
    );
    return c.json(partnerClockView(s, parent), 200);
  });
  return api;
}
