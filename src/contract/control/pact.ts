/**
 * Contracts with Pact (docs/contracts.md) as data: the provider states a Pact verifier sets up
 * through `POST /__sandbox/pact/states`, each with its parameters (names fixed: consumers write
 * them into their pacts), the body a verifier sends, and the query and answer of
 * `GET /__sandbox/pact`. The states' names and parameters are declared here once: the handler
 * validates against them, the unknown-state 400 lists them, and the exported pacts use them.
 */
import { z } from '@hono/zod-openapi';
import { clientSecret, pathSegment } from './control-schemas.js';

/** A count or a value a verifier may send as a JSON number or as a string of digits. */
const digits = z.union([z.int().nonnegative(), z.string().regex(/^\d{1,15}$/, 'must be digits')]);

/**
 * Any string a consumer's pact carries as a token or a content hash: the state makes it valid.
 * Visible ASCII, as an HTTP header value or a JSON string round-trips it.
 */
const literal = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters (no spaces or control characters)');

/** `a partner`: the partner exists with these credentials, seeded (or not), and the token is valid. */
export const PartnerStateParams = z.strictObject({
  parent_account_id: pathSegment.optional(),
  client_id: pathSegment.optional(),
  client_secret: clientSecret.optional(),
  access_token: literal.optional(),
  taxonomy: z
    .enum(['fixtures', 'empty'])
    .optional()
    .openapi({ description: '"empty": unseeded; otherwise the fixtures\' taxonomy.' }),
});

export const ACCOUNT_STATUSES = ['active', 'paused', 'mixed'] as const;

/** `an account`: the account exists with that ID, past its auth propagation. */
export const AccountStateParams = z.strictObject({
  account_id: pathSegment,
  parent_account_id: pathSegment.optional(),
  external_account_id: z.string().min(1).max(128).optional(),
  status: z.enum(ACCOUNT_STATUSES).optional(),
  content_hash: literal.optional(),
});

/** `a scenario`: armed as `PUT /__sandbox/scenarios` arms it. */
export const ScenarioStateParams = z
  .strictObject({
    scenario: z.string().min(1).max(100),
    value: z.union([z.number(), z.string().max(20)]).optional(),
    times: digits.optional(),
    account_id: pathSegment.optional(),
    parent_account_id: pathSegment.optional(),
  })
  .refine((r) => r.parent_account_id === undefined || r.account_id === undefined, {
    error: 'send at most one of parent_account_id, account_id',
    path: ['account_id'],
  });

/** The provider states, by the names pacts give them (fixed), with what each sets up. */
export const PACT_STATES = {
  'a partner': {
    params: PartnerStateParams,
    description:
      'The partner exists with these credentials (all optional: the last partner set up since the teardown, else the fixtures\' first), its taxonomy seeded from the fixtures (taxonomy "empty": unseeded); access_token, when given (any string), is a valid token of it until the teardown. Answers parent_account_id, client_id and access_token (one issued when none is given).',
  },
  'an account': {
    params: AccountStateParams,
    description:
      "The account exists with that ID (of parent_account_id, else the partner set up last, else the fixtures' first), with the default pages, past its auth propagation; status sets its variants (active, paused, mixed); content_hash, when given (any string), is its controls list's current hash. Answers the account's IDs (layout_id: its first layout).",
  },
  'a scenario': {
    params: ScenarioStateParams,
    description:
      'Arms the scenario (value, times) for account_id or parent_account_id (neither: the partner set up last), as PUT /__sandbox/scenarios does.',
  },
} as const;

export type PactStateName = keyof typeof PACT_STATES;
export const PACT_STATE_NAMES = Object.keys(PACT_STATES) as PactStateName[];

/** What a Pact verifier posts to a provider-states URL (Pact JS, Pact JVM, the Rust verifier). */
export const PactStateRequest = z
  .object({
    state: z.string().min(1).max(200),
    params: z.record(z.string(), z.unknown()).optional(),
    action: z.enum(['setup', 'teardown']).optional().openapi({ description: 'Default: setup.' }),
  })
  .openapi('PactStateRequest', {
    example: { state: 'a partner', params: { parent_account_id: 'pa_demo_platform' }, action: 'setup' },
  });

/** `{}` or the values set up, which a verifier uses as provider-state injected values. */
export const PactStateAnswer = z
  .record(z.string(), z.union([z.string(), z.array(z.string())]))
  .openapi('PactStateAnswer', {
    example: { parent_account_id: 'pa_demo_platform', access_token: 'pact-access-token' },
  });

export const PactQuery = z.object({
  parent_account_id: z.string().min(1).max(128).openapi({ description: 'Whose calls.' }),
  consumer: z.string().min(1).max(200).openapi({ description: "The consumer's name in the pact." }),
  provider: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'The provider\'s name (default "partnership-accounts-api").' }),
});

/** A Pact V4 file (https://github.com/pact-foundation/pact-specification/tree/version-4). */
export const PactFile = z
  .object({
    consumer: z.object({ name: z.string() }),
    provider: z.object({ name: z.string() }),
    interactions: z.array(z.record(z.string(), z.unknown())),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi('PactFile');
