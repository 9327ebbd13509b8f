/** Every control-plane operation, in the order the control-plane document lists them. */

import { type ControlRoute, controlRoutes } from './control-routes.js';
import { isolationRoutes } from './control-routes-isolation.js';

export const CONTROL_ROUTES: readonly ControlRoute[] = [
  ...Object.values(controlRoutes),
  ...Object.values(isolationRoutes),
];
