/**
 * The control plane (docs/control-plane.md) as data: request bodies validated by the admin
 * routes and the shapes of their answers, for the control-plane OpenAPI document.
 */
import { z } from '@hono/zod-openapi';
import { nonEmpty } from './fields.js';
import {
  ControlsData,
  DomainWrite,
  LayoutType,
  RegisterRequest,
  Surface,
  VerticalMapping,
} from './schemas.js';

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
const clientSecret = z
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
const MappingSeedEntry = z.strictObject({
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
  });

export const ClockAdvance = z.strictObject({
  seconds: z
    .number()
    .positive()
    .max(10 * 365 * 86_400),
});

/**
 * Arming a scenario (docs/control-plane.md): for one parent, one account, or (neither) every
 * partner. `null` is read as absent, as Python's None and Go's nil serialise an unset field.
 */
export const ArmRequest = z
  .strictObject({
    scenario: z.string().min(1).max(100),
    value: z.union([z.number(), z.string().max(20)]).nullish(),
    parent_account_id: z.string().min(1).max(128).nullish(),
    account_id: z.string().min(1).max(128).nullish(),
    times: z.int().min(1).max(1_000_000).nullish(),
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
  seed: z.int().openapi({ description: 'Any integer: the same seed fails the same calls.', example: 42 }),
  scenarios: z.array(z.string().min(1).max(100)).min(1).max(20).nullish().openapi({
    description:
      'Transient scenarios or presets to draw from; default auth-propagation, stale-content-hash, server-error, rate-limited, connection-reset.',
  }),
  parent_account_id: z.string().min(1).max(128).nullish(),
});

/** The journal's filters (GET /__sandbox/requests query), as a client sends them. */
/**
 * The journal's filters (docs/control-plane.md), one set for GET /__sandbox/requests and the count
 * of §10. A filter that cannot match anything by its form (a method that is no HTTP method, a
 * time that is no time, a status outside 0-599) is a 400, never a silent "nothing matched":
 * "this call was never made" must not pass because of a typo.
 */
const journalFilterFields = {
  account_id: z.string().min(1).max(128).optional(),
  parent_account_id: z.string().min(1).max(128).optional(),
  method: z
    .string()
    .regex(
      /^(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/i,
      'must be an HTTP method: GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS',
    )
    .optional(),
  path: z.string().min(1).max(2048).optional(),
  since: z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. "2026-01-31T12:00:00Z"' })
    .transform((v) => new Date(v).toISOString())
    .optional(),
};
const journalStatus = z
  .int()
  .min(0, 'must be an HTTP status, or 0 for a reset connection')
  .max(599, 'must be an HTTP status, or 0 for a reset connection');

/** The filters as a client sends them (GET /__sandbox/requests query, typed). */
export const JournalFilters = z.object({
  ...journalFilterFields,
  status: journalStatus.optional(),
  limit: z.int().min(1).optional(),
});

/** The same filters as they arrive in a query string: digits become numbers; nothing else is allowed. */
const digits = (schema: z.ZodInt) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(schema)
    .optional();
export const JournalQuery = z.strictObject({
  ...journalFilterFields,
  status: digits(journalStatus),
  limit: digits(z.int().min(1, 'must be a positive integer')),
});

export const Health = z
  .object({
    status: z.literal('ok').openapi({ description: 'The server serves (liveness).' }),
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
  })
  .openapi('AccountDetail');
export const ChaosEvidence = z
  .object({ seed: z.int(), call: z.int().min(1), scenario: z.string() })
  .openapi('ChaosEvidence');
/** `request_body_truncated` / `response_body_truncated` of a journal entry. */
const BodyTruncated = z
  .object({
    original_bytes: z.int().openapi({
      description:
        'The length in bytes (UTF-8) of the whole body as it would be shown (redacted, JSON compact).',
      example: 204_900,
    }),
  })
  .nullable()
  .openapi({
    description:
      'null when the body is shown whole; else it was cut at SANDBOX_JOURNAL_BODY_BYTES (after redaction) and this is how long it was.',
  });

export const JournalEntry = z
  .object({
    id: z.int(),
    time: z.string().openapi({ description: 'The sandbox clock (global) when the call was answered.' }),
    partner_time: z.string().nullable().openapi({
      description:
        "The caller's partner clock (global clock plus its own offset) when the call was answered; null when no partner was authenticated.",
    }),
    method: z.string(),
    path: z.string(),
    query: z.record(z.string(), z.string()),
    request_headers: z.record(z.string(), z.string()),
    request_body: z.string().nullable().openapi({
      description:
        'Secrets redacted (JSON compact), then cut at SANDBOX_JOURNAL_BODY_BYTES (never inside a character): see request_body_truncated.',
    }),
    request_body_truncated: BodyTruncated,
    status: z.int(),
    response_body: z.string().nullable().openapi({
      description: 'Redacted, then cut as request_body is: see response_body_truncated.',
    }),
    response_body_truncated: BodyTruncated,
    request_id: z.string(),
    parent_account_id: z.string().nullable(),
    account_id: z.string().nullable(),
    scenarios_applied: z.array(z.string()),
    chaos: ChaosEvidence.nullable().openapi({
      description:
        "The chaos failure this call met (docs/chaos.md): the profile seed, the call position n in its partner's sequence, and the scenario drawn (a reset connection included); null for none.",
    }),
    warnings: z.array(z.string()),
    duration_ms: z.number(),
  })
  .openapi('JournalEntry');
export const ChaosProfileView = z
  .object({
    parent_account_id: z.string().nullable().openapi({ description: 'null: every partner.' }),
    rate: z.number(),
    seed: z.int(),
    scenarios: z.array(z.string()),
    set_at: z.string(),
    calls_seen: z.int().openapi({ description: 'Partner calls (partnership and token) since it was set.' }),
    calls_failed: z.int(),
    failed_by_scenario: z.record(z.string(), z.int()),
    positions: z.record(z.string(), z.int()).openapi({
      description:
        "Each partner's call position n: its calls seen so far (each partner has its own sequence).",
    }),
  })
  .openapi('ChaosProfile');
export const ChaosAnswer = z.object({ profile: ChaosProfileView });
export const ChaosList = z.object({ profiles: z.array(ChaosProfileView) }).openapi('ChaosProfiles');
export const ChaosEndQuery = z.strictObject({ parent_account_id: z.string().min(1).max(128).optional() });
export const ResetAnswer = z.object({ reset: z.literal(true), clock: ClockView });
export const ClearedAnswer = z.object({ cleared: z.literal(true) });
export const JournalAnswer = z.object({ requests: z.array(JournalEntry), max: z.int() }).openapi('Journal');
export const Armed = z
  .object({
    id: z.int(),
    scenario: z.string(),
    effects: z.array(z.object({ name: z.string(), value: z.number().optional() })),
    parent_account_id: z.string().optional(),
    account_id: z.string().optional(),
    remaining: z.int().optional(),
    armed_at: z.string(),
  })
  .openapi('ArmedScenario');
export const ArmAnswer = z.object({ armed: Armed });
export const DisarmAnswer = z.object({ armed: z.array(Armed) });
export const Catalogue = z
  .object({
    built_ins: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        value: z.string(),
        applies_to: z.array(z.string()),
      }),
    ),
    presets: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        effects: z.array(z.object({ name: z.string(), value: z.number().optional() })),
        source: z.string(),
      }),
    ),
    armed: z.array(Armed),
  })
  .openapi('ScenarioCatalogue');
export const ReportAnswer = z
  .object({
    parent_account_id: z.string(),
    generated_at: z.string(),
    requests_analyzed: z.int(),
    summary: z.object({ passed: z.int(), failed: z.int(), not_exercised: z.int() }),
    checks: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        outcome: z.enum(['passed', 'failed', 'not_exercised']),
        evidence: z.array(z.string()),
      }),
    ),
    resilience: z
      .array(
        z.object({
          scenario: z.string(),
          injected: z.int(),
          recovered: z.int(),
          outcome: z.enum(['passed', 'failed']),
          evidence: z.array(z.string()),
        }),
      )
      .openapi({
        description:
          'Per scenario chaos injected (docs/chaos.md): how many times, and how many the client recovered from (its next call of the same method and path succeeded, after Retry-After where one was sent); evidence with request_ids.',
      }),
  })
  .openapi('IntegrationReport');
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

const MAX_OFFSET_SECONDS = 100 * 365 * 86_400;

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

/** A header name as RFC 9110 allows it (a token). */
const headerName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');

export const CountRequest = z.strictObject({
  ...journalFilterFields,
  status: journalStatus.optional(),
  header: z.strictObject({ name: headerName, value: z.string().max(8192).optional() }).optional(),
  body_contains: z.string().min(1).max(65_536).optional().openapi({
    description:
      'A substring of the request body as the journal shows it (redacted, JSON compact). Only what the journal kept is searched: a body cut at SANDBOX_JOURNAL_BODY_BYTES is not searched past the cut (the answer says how many were cut).',
  }),
});
export const CountAnswer = z
  .object({
    count: z.int(),
    bodies_truncated: z.int().optional().openapi({
      description:
        'With body_contains only: how many entries the other filters match had their request body cut (request_body_truncated), so body_contains searched only the part kept of them.',
    }),
  })
  .openapi('RequestCount');

// A bundle: one partner's whole state, its journal, clock and armed scenarios.

export const BUNDLE_KIND = 'partnership-sandbox-bundle';
/** Version 2: the partner's client secret as a salted hash. Version 1 (a clear client_secret) is still read. */
export const BUNDLE_VERSION = 2;
export const BUNDLE_VERSIONS_READ: readonly number[] = [1, 2];
/** The largest bundle `POST /__sandbox/bundles` reads. */
export const BUNDLE_LIMIT_BYTES = 32 * 1024 * 1024;

const isoTime = z.iso.datetime({ offset: true });
const text = (max = 1000) => z.string().max(max);
const epochMs = z.int().min(0).max(8_640_000_000_000_000);

/** A content_hash as the sandbox makes it (domain/controls.ts contentHash): 40 lower-case hex digits. */
const CONTENT_HASH = /^[0-9a-f]{40}$/;
const CONTENT_HASH_FORMAT_MESSAGE = 'must be 40 lower-case hex digits, as the sandbox makes a content_hash';

const BundleEffect = z.strictObject({ name: z.string().min(1).max(100), value: z.number().optional() });
/** The most SANDBOX_JOURNAL_BODY_BYTES may keep of a body: 1 MiB (a bundle carries bodies up to it). */
export const JOURNAL_BODY_MAX_BYTES = 1024 * 1024;
const BundleTruncated = z
  .strictObject({ original_bytes: z.int().min(0).max(Number.MAX_SAFE_INTEGER) })
  .nullable()
  .default(null);
const BundleJournalEntry = z.strictObject({
  time: isoTime,
  partner_time: isoTime.nullable(),
  method: z.string().min(1).max(16),
  path: text(2048),
  query: z.record(text(1000), text(8192)),
  request_headers: z.record(headerName, text(16_384)),
  // Bodies as the journal kept them (cut at SANDBOX_JOURNAL_BODY_BYTES, at most 1 MiB); older bundles have no *_truncated.
  request_body: text(JOURNAL_BODY_MAX_BYTES + 100).nullable(),
  request_body_truncated: BundleTruncated,
  status: z.int().min(0).max(599),
  response_body: text(JOURNAL_BODY_MAX_BYTES + 100).nullable(),
  response_body_truncated: BundleTruncated,
  request_id: text(128),
  parent_account_id: id.nullable(),
  account_id: id.nullable(),
  scenarios_applied: z.array(text(200)).max(100),
  // Optional: bundles written before chaos have none.
  chaos: z
    .strictObject({ seed: z.int(), call: z.int().min(1), scenario: z.string().min(1).max(100) })
    .nullable()
    .default(null),
  warnings: z.array(text(4000)).max(100),
  duration_ms: z.number().min(0),
});

/** What the latest real status PUT did (StatusWriteRecord), as a bundle carries it: checked strictly. */
/** A variant as a bundle names it (its own list, and the status record's). */
const bundleVariant = { variant_id: pathSegment, page_id: pathSegment, name: text(200) };

const BundleStatusWrite = z.strictObject({
  request_id: text(128),
  at: isoTime,
  requested: z.enum(['active', 'paused']),
  status: z.enum(['active', 'paused', 'mixed']),
  variants: z
    .array(
      z.strictObject({
        ...bundleVariant,
        status: z.enum(['active', 'paused']),
        result: z.enum(['updated', 'unchanged', 'failed']),
      }),
    )
    .max(1000),
});

/** The algorithms of domain/secrets.ts (services/bundles.ts checks at compile time that they agree). */
export const BUNDLE_SECRET_ALGORITHMS = ['scrypt-n16384-r8-p1', 'sha256-salted'] as const;

/** A partner's client secret as a bundle carries it (domain/secrets.ts): never in clear. */
const BundleSecretHash = z
  .strictObject({
    algorithm: z.enum(BUNDLE_SECRET_ALGORITHMS),
    salt: z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lower-case hex digits (a 16-byte salt)'),
    hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits (a 32-byte key)'),
  })
  .openapi({
    description:
      'The client secret as a salted hash, which the importing sandbox accepts: scrypt-n16384-r8-p1 (scrypt, N 16384, r 8, p 1, a 32-byte key) for a secret a person chose, sha256-salted (SHA-256 of salt and secret) for one the sandbox generated (238 random bits). The bundle holds no secret in clear.',
  });

const bundlePartner = {
  parent_account_id: pathSegment,
  client_id: pathSegment,
  name: z.string().min(1).max(200),
  created_at: isoTime,
};

export const Bundle = z
  .strictObject({
    kind: z.literal(BUNDLE_KIND),
    version: z.literal(BUNDLE_VERSION),
    exported_at: isoTime,
    partner: z.strictObject({ ...bundlePartner, client_secret_hash: BundleSecretHash }),
    clock: z.strictObject({
      now: isoTime.openapi({
        description:
          "The partner's time at the export. An import sets the partner's own offset so that its time is this again, as far as an offset of 0 or more allows (the target's global clock may be ahead, or real time moved on); every deadline (auth_ready_at, expires_at) is moved by what remains, so the time left until each is what it was at this moment.",
      }),
      offset_seconds: z.number().min(0).max(MAX_OFFSET_SECONDS).openapi({
        description:
          "The partner's whole offset at the export (global plus its own): information; the import reads `now`.",
      }),
    }),
    vertical_mappings: z.array(MappingSeedEntry.extend({ created_at: isoTime })).max(10_000),
    accounts: z
      .array(
        z.strictObject({
          account_id: pathSegment,
          // The values a register would have taken: the API's own field schemas.
          external_account_id: RegisterRequest.shape.external_account_id,
          brand: RegisterRequest.shape.brand,
          vertical_id: RegisterRequest.shape.vertical_id,
          sub_vertical_id: RegisterRequest.shape.sub_vertical_id,
          country_code: RegisterRequest.shape.country_code,
          store_identifier: RegisterRequest.shape.store_identifier,
          auth_ready_at: epochMs.openapi({
            description: "Epoch ms of the partner's clock; an import keeps its distance from clock.now.",
          }),
          created_at: isoTime,
          pages: z
            .array(
              z.strictObject({
                page_id: pathSegment,
                surface: Surface,
                page_identifier: text(200),
                created_at: isoTime,
              }),
            )
            .max(100),
          layouts: z
            .array(
              z.strictObject({
                layout_id: pathSegment,
                page_id: pathSegment,
                layout_type: LayoutType,
                name: text(200),
                updated_at: isoTime,
              }),
            )
            .max(100),
          variants: z
            .array(
              z.strictObject({
                ...bundleVariant,
                enabled: z.boolean(),
                archived: z.boolean(),
                created_at: isoTime,
              }),
            )
            .max(1000),
          controls: z.strictObject({
            list_id: pathSegment,
            name: text(200),
            version: z.int().nonnegative(),
            content_hash: z.string().regex(CONTENT_HASH, CONTENT_HASH_FORMAT_MESSAGE),
            blocked: z
              .array(
                z.strictObject({
                  vertical_name: z.string().min(1).max(200),
                  policy: z.literal('Block'),
                  position_1_policy: z.literal('Block'),
                }),
              )
              .max(10_000),
            domains: z
              .array(z.strictObject({ domain: DomainWrite.shape.domain, policy: z.literal('Block') }))
              .max(10_000),
            updated_at: isoTime,
          }),
          last_status_write: BundleStatusWrite.nullable().optional().openapi({
            description:
              "What the latest real status PUT did to each variant (the account view's last_status_write); absent or null: none. Its variants must be this account's.",
          }),
        }),
      )
      .max(100_000),
    idempotency_keys: z
      .array(
        z.strictObject({
          key: z
            .string()
            .regex(
              /^[\x21-\x7e]{1,255}$/,
              'must be 1 to 255 visible ASCII characters, as an Idempotency-Key',
            ),
          operation: text(2100),
          fingerprint: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits (a SHA-256)'),
          dry_run: z.boolean(),
          status: z.int().min(100).max(599),
          body: text(1_000_000),
          expires_at: epochMs.openapi({
            description: "Epoch ms of the partner's clock; an import keeps its distance from clock.now.",
          }),
        }),
      )
      .max(100_000),
    armed: z
      .array(
        z.strictObject({
          scenario: z.string().min(1).max(100),
          effects: z.array(BundleEffect).min(1).max(20),
          account_id: pathSegment.optional(),
          remaining: z.int().min(1).max(1_000_000).optional(),
          armed_at: isoTime,
        }),
      )
      .max(1000),
    journal: z
      .array(BundleJournalEntry)
      .max(100_000)
      .openapi({ description: 'Newest first, redacted as the journal is.' }),
    chaos: z
      .strictObject({
        rate: z.number().min(0).max(1),
        seed: z.int(),
        scenarios: z.array(z.string().min(1).max(100)).min(1).max(20),
        call: z
          .int()
          .min(0)
          .openapi({ description: "The partner's call position at the export: its calls seen." }),
        owed: z.array(text(2200)).max(1000).openapi({
          description:
            'Operations (`METHOD path`) chaos failed last, whose next call gets through (docs/chaos.md, convergent).',
        }),
      })
      .nullable()
      .optional()
      .openapi({
        description:
          "The chaos profile in force for the partner (its own, or the one for every partner) and its place in the sequence: an import sets it as the partner's own profile, so a replay continues the same sequence. Absent or null (bundles written before chaos): none.",
      }),
  })
  .openapi('Bundle', {
    description:
      'One partner: credentials, mapping, accounts with everything under them, completed idempotency keys, its clock, armed scenarios and journal. No secret in clear: the client secret only as a salted hash, which the importing sandbox accepts (the replay authenticates with the same client_id and client_secret); no tokens; the journal redacted as the journal is. An import also reads version 1, an earlier export: the same with the client_secret in clear instead of client_secret_hash; only its hash is kept.',
  });
export type BundleData = z.infer<typeof Bundle>;

/** Version 1, as earlier versions exported it: the partner's client_secret in clear. */
export const BundleV1 = Bundle.extend({
  version: z.literal(1),
  partner: z.strictObject({ ...bundlePartner, client_secret: clientSecret }),
});

export const BundleImported = z
  .object({
    imported: z.object({
      parent_account_id: z.string(),
      replaced: z.boolean(),
      accounts: z.int(),
      idempotency_keys: z.int(),
      armed: z.int(),
      journal: z.int(),
    }),
  })
  .openapi('BundleImported');
