/** Every control-plane operation, in the order the control-plane document lists them. */

import { type ControlRoute, controlRoutes } from './control-routes.js';
import { isolationRoutes } from './control-routes-isolation.js';
import { pactRoutes } from './control-routes-pact.js';

export const CONTROL_ROUTES: readonly ControlRoute[] = [
  ...Object.values(controlRoutes),
  ...Object.values(isolationRoutes),
  ...Object.values(pactRoutes),
];

/** A control-plane operation's name: the key of its declaration. */
export type ControlOperationId =
  | keyof typeof controlRoutes
  | keyof typeof isolationRoutes
  | keyof typeof pactRoutes;
