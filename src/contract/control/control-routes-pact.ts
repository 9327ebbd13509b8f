/**
 * The control plane's Pact operations (docs/contracts.md), declared as those of
 * control-routes.ts are: the document, the handlers and the control client take them from here.
 * Admin-only: the admin token opens them; a partner's token (a hosted sandbox) is refused.
 */
import { createRoute } from '@hono/zod-openapi';
import { body, byOperationId, err, ok } from './control-routes.js';
import { PactFile, PactQuery, PactStateAnswer, PactStateRequest } from './pact.js';

export const pactRoutes = byOperationId({
  pactStates: createRoute({
    method: 'post',
    path: '/__sandbox/pact/states',
    summary: 'Set up or tear down a Pact provider state',
    description:
      'The provider-states URL of a Pact verifier (`{state, params, action}`): `a partner`, `an account` and `a scenario` set the sandbox up so that a pact recorded with literal values verifies; `teardown` resets the partners the setups touched. Answers `{}` or the values set up (provider-state injected values).',
    request: body(PactStateRequest),
    responses: {
      200: ok('Set up, or torn down.', PactStateAnswer),
      400: err('An unknown state (the known ones listed) or a bad parameter (named).'),
    },
  }),
  exportPact: createRoute({
    method: 'get',
    path: '/__sandbox/pact',
    summary: "A Pact V4 file of a partner's calls",
    description:
      'One interaction per distinct call (method, path shape, dry run, status, scenario), with the provider states that reproduce it, identifiers and timestamps as matching rules, and no secret.',
    request: { query: PactQuery },
    responses: {
      200: ok('The pact.', PactFile),
      400: err('A missing or bad parameter.'),
      404: err('No such partner.'),
    },
  }),
});
