/**
 * The control plane's test-isolation operations (docs/parallel-tests.md), declared as those
 * of control-routes.ts are: the document, the handlers and the control client take them from here.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { header } from '../api/openapi-parts.js';
import { partnerMay } from './access.js';
import { Bundle, BundleImported } from './bundle.js';
import { body, byOperationId, err, ok, parentParam, snapshotParam } from './control-routes.js';
import {
  ClockAdvance,
  CountAnswer,
  CountRequest,
  PartnerClockView,
  PartnerResetAnswer,
  SnapshotInfo,
  SnapshotList,
  SnapshotRestored,
  SnapshotSave,
  SnapshotSaved,
} from './control-schemas.js';

/** The test-isolation routes (docs/parallel-tests.md): partner reset and clock, snapshots, the request count, bundles. */
export const isolationRoutes = byOperationId({
  resetPartner: createRoute({
    tool: 10,
    access: partnerMay('parent'),
    method: 'post',
    path: '/__sandbox/partners/{parent_account_id}/reset',
    summary: 'Wipe one partner',
    description:
      "Wipes that partner's accounts (pages, layouts, variants, controls lists), idempotency keys, journal entries, armed scenarios and clock offset; its credentials, mapping and tokens stay; no other partner is touched.",
    request: { params: parentParam },
    responses: { 200: ok('Reset.', PartnerResetAnswer), 404: err('No such partner.') },
  }),
  getPartnerClock: createRoute({
    tool: 13,
    access: partnerMay('parent'),
    method: 'get',
    path: '/__sandbox/partners/{parent_account_id}/clock',
    summary: "A partner's clock",
    description: "The global clock plus this partner's own offset.",
    request: { params: parentParam },
    responses: { 200: ok("The partner's time.", PartnerClockView), 404: err('No such partner.') },
  }),
  advancePartnerClock: createRoute({
    tool: 14,
    access: partnerMay('parent'),
    method: 'post',
    path: '/__sandbox/partners/{parent_account_id}/clock/advance',
    summary: "Advance one partner's clock",
    description:
      'Token expiry, the idempotency window, propagation and timestamps of its calls follow it; other partners are untouched.',
    request: { params: parentParam, ...body(ClockAdvance) },
    responses: {
      200: ok("The partner's time.", PartnerClockView),
      400: err('Invalid seconds.'),
      404: err('No such partner.'),
    },
  }),
  saveSnapshot: createRoute({
    method: 'post',
    path: '/__sandbox/snapshots',
    summary: 'Save the whole state under a name',
    description:
      'Store, clocks, armed scenarios and journal, in memory; saving a name again replaces it (200).',
    request: body(SnapshotSave),
    responses: {
      200: ok('Saved, replacing a snapshot of that name.', SnapshotSaved),
      201: ok('Saved.', SnapshotSaved),
      400: err('Invalid name, or too many snapshots.'),
    },
  }),
  listSnapshots: createRoute({
    method: 'get',
    path: '/__sandbox/snapshots',
    summary: 'The saved snapshots',
    description: 'Each with its size and time.',
    responses: { 200: ok('Snapshots.', SnapshotList) },
  }),
  restoreSnapshot: createRoute({
    method: 'post',
    path: '/__sandbox/snapshots/{name}/restore',
    summary: 'Put the whole sandbox back to a snapshot',
    description: 'Atomic with respect to requests: a request in flight sees the state before or after it.',
    request: { params: snapshotParam },
    responses: { 200: ok('Restored.', SnapshotRestored), 404: err('No such snapshot.') },
  }),
  deleteSnapshot: createRoute({
    method: 'delete',
    path: '/__sandbox/snapshots/{name}',
    summary: 'Drop a snapshot',
    description: 'Frees its memory (or its file, for a file store).',
    request: { params: snapshotParam },
    responses: {
      200: ok('Dropped.', z.object({ deleted: SnapshotInfo })),
      404: err('No such snapshot.'),
    },
  }),
  countRequests: createRoute({
    tool: 2,
    access: partnerMay('own'),
    method: 'post',
    path: '/__sandbox/requests/count',
    summary: 'How many journaled calls match',
    description:
      "The journal's filters plus a header (by name, and value as sent) and a substring of the request body as the journal shows it (redacted). body_contains searches only what the journal kept of each body (SANDBOX_JOURNAL_BODY_BYTES, default 16 KiB): a match past the cut is not counted, and the answer's bodies_truncated says how many of the entries the other filters match were cut.",
    request: body(CountRequest),
    responses: { 200: ok('The count.', CountAnswer), 400: err('Invalid filter.') },
  }),
  exportBundle: createRoute({
    access: partnerMay('parent'),
    method: 'get',
    path: '/__sandbox/partners/{parent_account_id}/bundle',
    summary: 'One partner as one JSON file',
    description: 'Its whole state, journal, clock and armed scenarios: what a failed CI job uploads.',
    request: { params: parentParam },
    responses: { 200: ok('The bundle.', Bundle), 404: err('No such partner.') },
  }),
  importBundle: createRoute({
    method: 'post',
    path: '/__sandbox/bundles',
    summary: 'Load a bundle',
    description: 'The partner is replaced if it exists; nothing is loaded unless all of the bundle is valid.',
    request: body(Bundle),
    responses: {
      200: ok('Loaded.', BundleImported),
      400: err('Invalid, inconsistent or foreign bundle: the field is named; nothing was loaded.'),
      413: err('Bundle larger than the limit (32 MiB).'),
      429: {
        ...err(
          'Three imports of a large bundle (1 MiB or more) are in progress already: wait Retry-After seconds (2); nothing was read or loaded.',
        ),
        headers: { 'X-Request-Id': header('XRequestId'), 'Retry-After': header('RetryAfter') },
      },
    },
  }),
});
