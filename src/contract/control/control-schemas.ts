/**
 * The control plane (docs/control-plane.md) as data: request bodies validated by the control
 * routes and the shapes of their answers, for the control-plane OpenAPI document. The
 * journal, chaos, scenario and report answers are in contract/control/control-journal.ts, the bundle
 * format in contract/control/bundle.ts.
 */
import { z } from '@hono/zod-openapi';
import { nonEmpty } from '../api/fields.js';
import { ControlsData, LayoutType, Surface, VerticalMapping } from '../api/schemas.js';
import { DEFAULT_CHAOS_SCENARIOS } from './default-chaos.js';

import { about } from './journal-filters.js';

// The journal's filters and its count (journal-filters.ts), named here as before.
export * from './journal-filters.js';

/** An identifier as the partner will send it: compared as sent, so nothing to trim. */
export const id = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters (no spaces or control characters)');

/**
 * RFC 6749 appendix A: a client secret is VSCHAR (%x20-7E). OAuth libraries refuse other
 * characters, so a partner could never use such a secret.
 */
export const clientSecret = z
  .string()
  .min(8)
  .max(256)
  .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII (RFC 6749 appendix A: %x20-7E)');

/** What the 400 says of an identifier that is not a safe path segment. */
export const PATH_SEGMENT_MESSAGE =
  'must be 1 to 128 URL-unreserved characters (letters, digits, ".", "_", "~", "-"), and not "." or ".." (it is a URL path segment)';

/**
 * An identifier that ends up in a URL path segment (`/__sandbox/partners/{parent}/reset`,
 * `/v1/partnership/accounts/{account_id}/...`): only RFC 3986 unreserved characters, so
 * it is never percent-encoded, and never "." or "..", which URL parsers (clients, proxies,
 * the WHATWG URL of fetch and of the server) resolve as dot segments: `partners/../reset`
 * is `/__sandbox/reset`, the global reset. One schema for every such identifier.
 */
export const pathSegment = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{1,128}$/, PATH_SEGMENT_MESSAGE)
  .refine((v) => v !== '.' && v !== '..', PATH_SEGMENT_MESSAGE);

export const PartnerCreate = z.strictObject({
  parent_account_id: pathSegment.optional(),
  client_id: pathSegment.optional(),
  client_secret: clientSecret.optional(),
  name: z.string().min(1).max(200).optional(),
});

/** One mapping row as the operator seeds it (spec §2.1 without created_at). */
export const MappingSeedEntry = z.strictObject({
  partner_vertical_id: z.int().nonnegative(),
  partner_vertical_name: z.string().min(1).max(200),
  partner_sub_vertical_id: z.int().nonnegative(),
  partner_sub_vertical_name: z.string().min(1).max(200),
  vertical_name: z.string().min(1).max(200),
});

export const MappingSeed = z.strictObject({
  vertical_mappings: z.array(MappingSeedEntry).max(10_000),
});

export const VariantCreate = z.strictObject({
  page_id: z.string().min(1).max(128),
  // The partner reads it in its status answers: the API's own rule for names, kept as sent.
  name: nonEmpty(),
  enabled: z.boolean().default(true),
});

export const VariantPatch = z
  .strictObject({ enabled: z.boolean().optional(), archived: z.boolean().optional() })
  .refine((v) => v.enabled !== undefined || v.archived !== undefined, {
    error: 'send enabled, archived or both',
  })
  .openapi({ minProperties: 1 });

export const ClockAdvance = z.strictObject({
  seconds: z
    .number()
    .positive()
    .max(10 * 365 * 86_400)
    .openapi({
      description:
        'How far to move the clock forward, in seconds: more than 0, at most 10 years; fractions allowed.',
      example: 3600,
    }),
});

/**
 * Arming a scenario (docs/control-plane.md): for one parent, one account, or (neither) every
 * partner. `null` is read as absent, as Python's None and Go's nil serialise an unset field.
 */
export const ArmRequest = z
  .strictObject({
    scenario: z.string().min(1).max(100).openapi({
      description:
        'A scenario or preset name, as GET /__sandbox/scenarios (listScenarios) lists them with their values.',
      example: 'server-error',
    }),
    value: z
      .union([z.number(), z.string().max(20)])
      .nullish()
      .openapi({
        description:
          "The scenario's value, a whole number (seconds, milliseconds, a status or a count: the catalogue says which and its range); without it, the scenario's default. A preset takes none. A string of digits is accepted too.",
        example: 503,
      }),
    parent_account_id: z.string().min(1).max(128).nullish().openapi({
      description:
        "Arm it for this partner's calls. At most one of parent_account_id and account_id; with neither, it is armed for every partner.",
      example: 'pa_demo_platform',
    }),
    account_id: z.string().min(1).max(128).nullish().openapi({
      description:
        'Arm it for the calls about this account only (instead of parent_account_id; with neither, for every partner).',
    }),
    times: z.int().min(1).max(1_000_000).nullish().openapi({
      description: 'For this many requests it applies to, then it is spent; without it, until disarmed.',
      example: 1,
    }),
  })
  .refine((r) => r.parent_account_id == null || r.account_id == null, {
    error: 'send at most one of parent_account_id, account_id (neither arms it for every partner)',
    path: ['account_id'],
  });

/**
 * A chaos profile (docs/chaos.md): for one parent or (none) every partner. Which scenario
 * names a profile may draw is checked after this (src/scenarios/chaos.ts), naming the entry.
 */
export const ChaosRequest = z.strictObject({
  rate: z
    .number()
    .min(0)
    .max(1)
    .openapi({ description: 'The share of calls that fail: 0 to 1.', example: 0.1 }),
  seed: z.int().openapi({
    description: 'Any integer: the same seed fails the same calls.',
    example: 42,
    // zod's int is JavaScript's safe integer range
    minimum: Number.MIN_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
  }),
  scenarios: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(20)
    .nullish()
    .openapi({
      description: `Transient scenarios or presets to draw from; default ${DEFAULT_CHAOS_SCENARIOS.join(', ')}.`,
    }),
  parent_account_id: z.string().min(1).max(128).nullish().openapi({
    description:
      "This partner's profile; without it, a profile for every partner (each partner its own sequence of calls).",
    example: 'pa_demo_platform',
  }),
  from_call: z
    .int()
    .min(1)
    .max(2 ** 40)
    .nullish()
    .openapi({
      description:
        "The position of the partner's next partnership call (default 1): the `call` of a failed test's first call (its X-Sandbox-Chaos header or the journal) replays that test's failures.",
      example: 1,
    }),
});

export const Health = z
  .object({
    status: z.literal('ok').openapi({ description: 'The server serves (liveness).' }),
    cell: z.string().optional().openapi({
      description:
        "This sandbox's cell (SANDBOX_CELL, a DNS label) when it is one of a hosted sandbox's cells (docs/hosting.md); absent when none is set, so a sandbox without cells answers as it always did.",
      example: 'cell-a',
    }),
    store: z
      .object({
        writable: z.boolean().openapi({
          description:
            'false while the store (SANDBOX_DB) refuses writes (a full disk, a read-only store, an I/O error): writes answer 503 store_not_writable, reads still work, and writes work again once space is freed, without a restart.',
        }),
        problem: z
          .object({
            code: z.string().openapi({ example: 'SQLITE_FULL' }),
            cause: z.string().openapi({ example: 'the disk is full' }),
            message: z.string(),
            since: z.string().openapi({ description: 'When writes started to be refused (real time).' }),
            failed_writes: z.int().openapi({ description: 'Writes refused since then.' }),
          })
          .nullable(),
      })
      .openapi({
        description: 'Whether the store takes writes; checked again by a probe write while it does not.',
      }),
  })
  .openapi('Health');
export const PartnerCredentials = z
  .object({ parent_account_id: z.string(), client_id: z.string(), client_secret: z.string() })
  .openapi('PartnerCredentials');
export const MappingsAnswer = z
  .object({ vertical_mappings: z.array(VerticalMapping) })
  .openapi('SeededMappings');
export const ClockView = z.object({ now: z.string(), offset_seconds: z.number() }).openapi('Clock');
export const VariantAdmin = z
  .object({
    variant_id: z.string(),
    page_id: z.string(),
    account_id: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    archived: z.boolean(),
    created_at: z.string(),
  })
  .openapi('VariantAdmin');
export const StatusWriteRecord = z
  .object({
    request_id: z.string(),
    at: z.string().openapi({ format: 'date-time' }),
    requested: z.enum(['active', 'paused']),
    status: z.enum(['active', 'paused', 'mixed']),
    variants: z.array(
      z.object({
        variant_id: z.string(),
        page_id: z.string(),
        name: z.string(),
        status: z.enum(['active', 'paused']),
        result: z.enum(['updated', 'unchanged', 'failed']).openapi({
          description: 'failed: the status-partial-failure scenario; the variant kept its previous state.',
        }),
      }),
    ),
  })
  .openapi('StatusWriteRecord', {
    description: 'What the latest real status PUT did to each variant (dry runs and replays leave none).',
  });
/** The account row as the store keeps it (the control plane shows it whole). */
export const AccountRecord = z
  .object({
    account_id: z.string(),
    parent_account_id: z.string(),
    external_account_id: z.string(),
    brand: z.string(),
    vertical_id: z.int(),
    sub_vertical_id: z.int(),
    country_code: z.string(),
    store_identifier: z.string(),
    auth_ready_at: z.int().openapi({
      description: 'Epoch milliseconds of the sandbox clock from which auth propagation is over.',
    }),
    created_at: z.string(),
  })
  .openapi('AccountRecord');
export const PageRecord = z
  .object({
    page_id: z.string(),
    account_id: z.string(),
    surface: Surface,
    page_identifier: z.string(),
    created_at: z.string(),
  })
  .openapi('PageRecord');
export const LayoutRecord = z
  .object({
    layout_id: z.string(),
    page_id: z.string(),
    account_id: z.string(),
    layout_type: LayoutType,
    name: z.string(),
    updated_at: z.string(),
  })
  .openapi('LayoutRecord');
export const ControlsRecord = z
  .object({
    list_id: z.string(),
    name: z.string(),
    version: z.int(),
    content_hash: z.string(),
    blocked_internal: z
      .array(
        z.object({
          vertical_name: z.string(),
          policy: z.literal('Block'),
          position_1_policy: z.literal('Block'),
        }),
      )
      .openapi({ description: 'The stored list: internal vertical names, as the real service keeps it.' }),
    domains: z.array(z.object({ domain: z.string(), policy: z.literal('Block') })),
    updated_at: z.string(),
    translated: ControlsData,
  })
  .openapi('ControlsRecord');
export const AccountDetail = z
  .object({
    account: AccountRecord,
    propagation: z.object({ ready_at: z.string(), pending: z.boolean() }),
    pages: z.array(PageRecord),
    layouts: z.array(LayoutRecord),
    variants: z.array(VariantAdmin),
    status: z.enum(['active', 'paused', 'mixed']),
    last_status_write: StatusWriteRecord.nullable(),
    controls: ControlsRecord,
    vertical_mappings: z.array(VerticalMapping).openapi({
      description:
        "The partner's vertical mapping (its seeded taxonomy), which names the account's vertical_id and sub_vertical_id and the translated verticals' IDs; [] when the partner is not seeded.",
    }),
  })
  .openapi('AccountDetail');
export const ChaosEndQuery = z.strictObject({
  parent_account_id: about(
    z.string().min(1).max(128).optional(),
    'End only this partner’s own profile.',
    'pa_demo_platform',
  ),
});
export const ResetAnswer = z.object({ reset: z.literal(true), clock: ClockView });
export const ClearedAnswer = z.object({ cleared: z.literal(true) });
export const PartnerList = z
  .object({
    partners: z.array(
      z.object({
        parent_account_id: z.string(),
        name: z.string(),
        client_id: z.string(),
        seeded: z.boolean(),
        accounts: z.array(
          z.object({
            account_id: z.string(),
            external_account_id: z.string(),
            brand: z.string(),
            created_at: z.string(),
          }),
        ),
      }),
    ),
  })
  .openapi('PartnerList');

// ---- Test isolation (docs/parallel-tests.md) ----

export const MAX_OFFSET_SECONDS = 100 * 365 * 86_400;

export const PartnerClockView = z
  .object({
    parent_account_id: z.string(),
    now: z.string().openapi({ description: "This partner's time: the global clock plus its own offset." }),
    offset_seconds: z
      .number()
      .openapi({ description: "This partner's own offset, on top of the global one." }),
    global_offset_seconds: z.number(),
  })
  .openapi('PartnerClock');

export const PartnerResetAnswer = z
  .object({ reset: z.literal(true), parent_account_id: z.string(), clock: PartnerClockView })
  .openapi('PartnerReset');

/** A snapshot's name: it is a path segment and (file stores) a file name. */
export const snapshotName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'must be 1 to 64 letters, digits, ".", "_" or "-", not starting with "." "_" or "-"',
  );

export const SnapshotSave = z.strictObject({ name: snapshotName });

export const SnapshotInfo = z
  .object({
    name: z.string(),
    size_bytes: z.int().openapi({ description: 'The size of the saved database image.' }),
    saved_at: z.string().openapi({ description: 'Real time of the save.' }),
    clock: z.string().openapi({ description: 'The global sandbox clock at the save.' }),
  })
  .openapi('Snapshot');
export const SnapshotSaved = z
  .object({ snapshot: SnapshotInfo, replaced: z.boolean() })
  .openapi('SnapshotSaved');
export const SnapshotList = z.object({ snapshots: z.array(SnapshotInfo), max: z.int() }).openapi('Snapshots');
export const SnapshotRestored = z
  .object({ restored: SnapshotInfo, clock: ClockView })
  .openapi('SnapshotRestored');
