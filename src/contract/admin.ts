/**
 * The control plane (SANDBOX.md §6) as data: request bodies validated by the admin
 * routes and the shapes of their answers, for the control-plane OpenAPI document.
 */
import { z } from '@hono/zod-openapi';
import { VerticalMapping } from './schemas.js';

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

export const PartnerCreate = z.strictObject({
  parent_account_id: id.optional(),
  client_id: id.optional(),
  client_secret: clientSecret.optional(),
  name: z.string().min(1).max(200).optional(),
});

export const MappingSeed = z.strictObject({
  vertical_mappings: z
    .array(
      z.strictObject({
        partner_vertical_id: z.int().nonnegative(),
        partner_vertical_name: z.string().min(1).max(200),
        partner_sub_vertical_id: z.int().nonnegative(),
        partner_sub_vertical_name: z.string().min(1).max(200),
        vertical_name: z.string().min(1).max(200),
      }),
    )
    .max(10_000),
});

export const VariantCreate = z.strictObject({
  page_id: z.string().min(1).max(128),
  name: z.string().trim().min(1).max(200),
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

export const ArmRequest = z
  .strictObject({
    scenario: z.string().min(1).max(100),
    value: z.union([z.number(), z.string().max(20)]).optional(),
    parent_account_id: z.string().min(1).max(128).optional(),
    account_id: z.string().min(1).max(128).optional(),
    times: z.int().min(1).max(1_000_000).optional(),
  })
  .refine((r) => (r.parent_account_id === undefined) !== (r.account_id === undefined), {
    error: 'send exactly one of parent_account_id, account_id',
    path: ['parent_account_id'],
  });

export const Health = z.object({ status: z.literal('ok') }).openapi('Health');
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
export const AccountDetail = z
  .object({
    account: z.record(z.string(), z.unknown()),
    propagation: z.object({ ready_at: z.string(), pending: z.boolean() }),
    pages: z.array(z.record(z.string(), z.unknown())),
    layouts: z.array(z.record(z.string(), z.unknown())),
    variants: z.array(VariantAdmin),
    status: z.enum(['active', 'paused', 'mixed']),
    last_status_write: StatusWriteRecord.nullable(),
    controls: z.record(z.string(), z.unknown()),
  })
  .openapi('AccountDetail');
export const JournalEntry = z
  .object({
    id: z.int(),
    time: z.string(),
    method: z.string(),
    path: z.string(),
    query: z.record(z.string(), z.string()),
    request_headers: z.record(z.string(), z.string()),
    request_body: z.string().nullable(),
    status: z.int(),
    response_body: z.string().nullable(),
    request_id: z.string(),
    parent_account_id: z.string().nullable(),
    account_id: z.string().nullable(),
    scenarios_applied: z.array(z.string()),
    warnings: z.array(z.string()),
    duration_ms: z.number(),
  })
  .openapi('JournalEntry');
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
