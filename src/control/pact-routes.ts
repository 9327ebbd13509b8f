/**
 * Pact on the control plane (docs/contracts.md): the provider-states URL a Pact verifier
 * calls (`POST /__sandbox/pact/states`), and a partner's calls as a Pact V4 file
 * (`GET /__sandbox/pact`).
 */
import { type Context, Hono } from 'hono';
import type { z } from 'zod';
import { packageVersion } from '../base/package-dir.js';
import { validationError } from '../contract/api/errors.js';
import { issuesToFields } from '../contract/api/issues.js';
import { pactRoutes as op } from '../contract/control/control-routes-pact.js';
import {
  PACT_STATE_NAMES,
  PACT_STATES,
  type PactFile,
  type PactStateName,
} from '../contract/control/pact.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { mappingWrite, rowsWrite } from '../http/room.js';
import { buildPact } from '../pact/build.js';
import { fromJournal } from '../pact/exchange.js';
import { partnerOr404 } from '../services/lookup.js';
import {
  type RoomWrites,
  setUpAccount,
  setUpPartner,
  tearDown,
  touchPartner,
} from '../services/pact-states.js';
import type { Sandbox } from '../state/index.js';
import { armScenario } from './scenario-routes.js';

const known = (state: string): state is PactStateName => Object.hasOwn(PACT_STATES, state);

/** The state's params checked against its declaration: a 400 names each bad one as `params.<name>`. */
function paramsOf<N extends PactStateName>(
  name: N,
  params: Record<string, unknown>,
): z.output<(typeof PACT_STATES)[N]['params']> {
  const parsed = (PACT_STATES[name].params as z.ZodType).safeParse(params);
  if (!parsed.success) throw validationError(issuesToFields(parsed.error.issues, 'params'));
  return parsed.data as z.output<(typeof PACT_STATES)[N]['params']>;
}

async function setUp(s: Sandbox, state: PactStateName, params: Record<string, unknown>, c: Context<AppEnv>) {
  // What a state writes counts in its partner's room like the control plane's other writes.
  const room: RoomWrites = {
    mapping: (parent, rows, write) => mappingWrite(c, parent, rows, write),
    rows: (parent, write) => rowsWrite(c, parent, write),
  };
  switch (state) {
    case 'a partner':
      return setUpPartner(s, paramsOf(state, params), room);
    case 'an account':
      return setUpAccount(s, paramsOf(state, params), room);
    case 'a scenario': {
      const p = paramsOf(state, params);
      const target =
        p.account_id !== undefined
          ? { account_id: p.account_id }
          : { parent_account_id: await touchPartner(s, p.parent_account_id, room) };
      if (p.account_id !== undefined) {
        const owner = s.store.accounts.byId(p.account_id)?.parent_account_id;
        if (owner) await touchPartner(s, owner, room);
      }
      const armed = armScenario(s, {
        scenario: p.scenario,
        value: p.value ?? null,
        times: p.times === undefined ? null : Number(p.times),
        ...target,
      });
      return { scenario: armed.scenario, ...target };
    }
  }
}

export function pactApi(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, op.pactStates, async (input, c) => {
    const { state, params = {}, action = 'setup' } = await input.body();
    if (!known(state)) {
      throw validationError([
        {
          field: 'state',
          message: `unknown provider state "${state}"; the known ones: ${PACT_STATE_NAMES.map((n) => `"${n}"`).join(', ')}`,
        },
      ]);
    }
    if (action === 'teardown') {
      tearDown(s);
      return c.json({}, 200);
    }
    return c.json(await setUp(s, state, params, c), 200);
  });

  bind(api, op.exportPact, ({ query }, c) => {
    const parent = query.parent_account_id;
    const partner = partnerOr404(s, parent);
    const { pact } = buildPact(fromJournal(s.journal.list({ parent_account_id: parent })), {
      consumer: query.consumer,
      ...(query.provider ? { provider: query.provider } : {}),
      parent,
      clientId: partner.client_id,
      unseeded: s.store.partners.mappings(parent).length === 0,
      sandboxVersion: packageVersion(),
    });
    return c.json(pact as z.output<typeof PactFile>, 200);
  });

  return api;
}
