/**
 * The bundle format (docs/parallel-tests.md): one partner's whole state, its journal, clock
 * and armed scenarios, as `GET /__sandbox/partners/{parent}/bundle` exports it and
 * `POST /__sandbox/bundles` reads it, with the checks of its fields. state/bundles/bundle-import.ts
 * checks the rest (its own consistency, IDs held by another partner).
 */
import { z } from '@hono/zod-openapi';
import { DomainWrite, LayoutType, RegisterRequest, Surface } from '../api/schemas.js';
import { JournalEntry } from './control-journal.js';
import {
  clientSecret,
  headerName,
  id,
  MAX_OFFSET_SECONDS,
  MappingSeedEntry,
  pathSegment,
} from './control-schemas.js';

/**
 * The largest counter a bundle may carry (a controls list's version, a chaos call position):
 * far above what any run reaches, far below 2^53, where adding 1 no longer changes a number
 * (a version stuck there would keep every old content_hash valid).
 */
export const COUNTER_MAX = 2 ** 40;

/** The longest journal warning a bundle carries; the export cuts a longer one (a partial failure of hundreds of variants). */
export const BUNDLE_WARNING_MAX = 4000;

/**
 * What a bundle's journal entry carries at most; the export cuts what the journal kept longer
 * (Node accepts a request line and headers of 16 KiB in all), marked, so that an export always
 * imports.
 */
export const BUNDLE_JOURNAL_LIMITS = {
  path: 2048,
  queryName: 1000,
  queryValue: 8192,
  headerName: 256,
  headerValue: 16_384,
  requestId: 128,
} as const;

export const BUNDLE_KIND = 'partnership-sandbox-bundle';
/** Version 2: the partner's client secret as a salted hash. Version 1 (a clear client_secret) is still read. */
export const BUNDLE_VERSION = 2;
export const BUNDLE_VERSIONS_READ: readonly number[] = [1, 2];
/** The most accounts a bundle carries. */
export const BUNDLE_MAX_ACCOUNTS = 100_000;
/** The most scenarios armed for one partner (arming past it is refused: control/scenario-routes.ts). */
export const ARMED_MAX = 1000;
/** The most owed chaos passes a partner keeps, and the longest key of one (scenarios/chaos.ts). */
export const OWED_MAX = 1000;
export const OWED_KEY_MAX = 2200;
/** The largest bundle `POST /__sandbox/bundles` reads. */
export const BUNDLE_LIMIT_BYTES = 32 * 1024 * 1024;
/**
 * The most imports of a large body (1 MiB or more, or of no stated length) in progress at once,
 * from reading it to answering: past it, a 429 with Retry-After (each holds its bundle in
 * memory, a few hundred MB at the largest, while imports go one at a time).
 */
export const LARGE_IMPORTS_AT_ONCE = 3;
/** What the 429 past LARGE_IMPORTS_AT_ONCE asks to wait (about the time of the largest import). */
export const LARGE_IMPORTS_RETRY_AFTER_SECONDS = 2;

const isoTime = z.iso.datetime({ offset: true });
const text = (max = 1000) => z.string().max(max);
const epochMs = z.int().min(0).max(8_640_000_000_000_000);

/** A content_hash as the sandbox makes it (domain/controls-list.ts contentHash): 40 lower-case hex digits. */
const CONTENT_HASH = /^[0-9a-f]{40}$/;
const CONTENT_HASH_FORMAT_MESSAGE = 'must be 40 lower-case hex digits, as the sandbox makes a content_hash';

const BundleEffect = z.strictObject({ name: z.string().min(1).max(100), value: z.number().optional() });
/** The most SANDBOX_JOURNAL_BODY_BYTES may keep of a body: 1 MiB (a bundle carries bodies up to it). */
export const JOURNAL_BODY_MAX_BYTES = 1024 * 1024;
const BundleTruncated = z
  .strictObject({ original_bytes: z.int().min(0).max(Number.MAX_SAFE_INTEGER) })
  .nullable()
  .default(null);
/** A journal entry's trace (domain/trace-context.ts): as the journal keeps a valid traceparent. */
const hexId = (digits: number) =>
  z
    .string()
    .regex(
      new RegExp(`^(?!0+$)[0-9a-f]{${digits}}$`),
      `must be ${digits} lower-case hex digits, not all zero`,
    );
/** The journal entry's own fields but its id (control-journal.ts): what a bundle's entry carries. */
const { id: _entryId, ...entryFields } = JournalEntry.shape;
/**
 * A journal entry as a bundle carries it: the journal's own fields, checked strictly, each given
 * here the limits of a file from outside. A field added to the entry is carried as the entry
 * declares it (within the import's whole-file ceiling) until it is given its limit here.
 */
const BundleJournalEntry = z
  .strictObject({
    ...entryFields,
    time: isoTime,
    partner_time: isoTime.nullable(),
    method: z.string().min(1).max(16),
    path: text(BUNDLE_JOURNAL_LIMITS.path),
    query: z.record(text(BUNDLE_JOURNAL_LIMITS.queryName), text(BUNDLE_JOURNAL_LIMITS.queryValue)),
    request_headers: z.record(headerName, text(BUNDLE_JOURNAL_LIMITS.headerValue)),
    // Bodies as the journal kept them (cut at SANDBOX_JOURNAL_BODY_BYTES, at most 1 MiB); older bundles have no *_truncated.
    request_body: text(JOURNAL_BODY_MAX_BYTES + 100).nullable(),
    request_body_truncated: BundleTruncated,
    status: z.int().min(0).max(599),
    response_body: text(JOURNAL_BODY_MAX_BYTES + 100).nullable(),
    response_body_truncated: BundleTruncated,
    // Older bundles have none.
    response_headers: z.record(headerName, text(16_384)).default({}),
    request_id: text(BUNDLE_JOURNAL_LIMITS.requestId),
    // Optional: bundles written before traces have none.
    trace_id: hexId(32).nullable().default(null),
    span_id: hexId(16).nullable().default(null),
    tracestate: text(16_384).nullable().default(null),
    parent_account_id: id.nullable(),
    account_id: id.nullable(),
    scenarios_applied: z.array(text(200)).max(100),
    // Optional: bundles written before chaos have none.
    chaos: z
      .strictObject({
        seed: z.int(),
        call: z.int().min(1).max(COUNTER_MAX).optional(),
        token_call: z.int().min(1).max(COUNTER_MAX).optional(),
        scenario: z.string().min(1).max(100),
      })
      .nullable()
      .default(null),
    warnings: z.array(text(BUNDLE_WARNING_MAX)).max(100),
    duration_ms: z.number().min(0),
  })
  // The journal keeps the three together: a trace-id and span-id from one traceparent, its tracestate only beside them.
  .refine((e) => (e.trace_id === null) === (e.span_id === null), {
    error: 'trace_id and span_id come together (both null without a trace)',
    path: ['span_id'],
  })
  .refine((e) => e.tracestate === null || e.trace_id !== null, {
    error: 'must be null without a trace_id (a tracestate is kept only with a valid traceparent)',
    path: ['tracestate'],
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

/** The algorithms of domain/secrets.ts (state/bundles/bundle-import.ts checks at compile time that they agree). */
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
            version: z.int().nonnegative().max(COUNTER_MAX),
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
      .max(BUNDLE_MAX_ACCOUNTS),
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
      .max(ARMED_MAX),
    journal: z
      .array(BundleJournalEntry)
      .max(100_000)
      .openapi({ description: 'Newest first, redacted as the journal is.' }),
    journal_left_out: z.int().min(1).max(100_000).optional().openapi({
      description:
        'How many older journal entries the export left out so that the bundle stays within what an import reads (BUNDLE_LIMIT_BYTES); absent when none.',
    }),
    chaos: z
      .strictObject({
        rate: z.number().min(0).max(1),
        seed: z.int(),
        scenarios: z.array(z.string().min(1).max(100)).min(1).max(20),
        call: z.int().min(0).max(COUNTER_MAX).openapi({
          description: "The partner's call position at the export: its last partnership call's.",
        }),
        token_call: z.int().min(0).max(COUNTER_MAX).default(0).openapi({
          description: "The partner's token call position at the export (absent in older bundles: 0).",
        }),
        owed: z.array(text(OWED_KEY_MAX)).max(OWED_MAX).openapi({
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
