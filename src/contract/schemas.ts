/**
 * The partner API as data: every request and response shape of the spec, as zod
 * schemas. They validate requests, type the handlers and generate the OpenAPI
 * document, so a rule about a field's shape lives here and nowhere else.
 *
 * Responses are snake_case; the controls PUT body is camelCase (spec §2.5).
 */
import { z } from '@hono/zod-openapi';

// ---- shared enums (spec §2.2, §2.4, §2.6) ----------------------------------------

export const SURFACES = ['confirmation', 'tracking', 'returns'] as const;
export const LAYOUT_TYPES = ['Overlay', 'Embedded'] as const;
export const POLICIES = ['Block', 'Allow'] as const;
export const WRITE_POLICIES = ['Block'] as const;
export const AGGREGATE_STATUSES = ['active', 'paused', 'mixed'] as const;
export const REQUESTED_STATUSES = ['active', 'paused'] as const;

export const Surface = z.enum(SURFACES).openapi('Surface');
export const LayoutType = z.enum(LAYOUT_TYPES).openapi('LayoutType');
export const Policy = z.enum(POLICIES).openapi('Policy');

const enumMessage = (allowed: readonly string[]) => ({
  error: () => `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`,
});

// ---- limits (README "Limits") -----------------------------------------------------

export const limits = {
  storeIdentifierMin: 3,
  storeIdentifierMax: 400,
  stringMax: 200,
  idMax: 128,
  blockedVerticalsMax: 1000,
  domainsMax: 1000,
  pagesMax: 20,
  domainMax: 253,
} as const;

// ---- params and query -------------------------------------------------------------

export const AccountParams = z.object({
  account_id: z
    .string()
    .min(1)
    .max(limits.idMax)
    .openapi({ param: { name: 'account_id', in: 'path' } }),
});

export const LayoutParams = AccountParams.extend({
  layout_id: z
    .string()
    .min(1)
    .max(limits.idMax)
    .openapi({ param: { name: 'layout_id', in: 'path' } }),
});

export const DryRunQuery = z.object({
  dry_run: z
    .enum(['true', 'false'], enumMessage(['true', 'false']))
    .optional()
    .openapi({
      param: { name: 'dry_run', in: 'query' },
      description: 'Validate the write fully without persisting it.',
    }),
});

export const MappingsQuery = z.object({
  parent_account_id: z
    .string()
    .min(1)
    .max(limits.idMax)
    .optional()
    .openapi({
      param: { name: 'parent_account_id', in: 'query' },
      description: "The parent account ID; defaults to the token's parent. Another parent's ID is 403.",
    }),
});

// ---- 2.1 vertical mapping ---------------------------------------------------------

export const VerticalMapping = z
  .object({
    partner_vertical_id: z.int(),
    partner_vertical_name: z.string(),
    partner_sub_vertical_id: z.int(),
    partner_sub_vertical_name: z.string(),
    vertical_name: z.string(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('VerticalMapping');

export const VerticalMappingsData = z
  .object({ vertical_mappings: z.array(VerticalMapping) })
  .openapi('VerticalMappingsData');

// ---- 2.2 / 2.3 register -----------------------------------------------------------

const nonEmpty = (max: number = limits.stringMax) =>
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

/** Spec §2.2: a valid URL including the scheme, 3 to 400 characters; a bare host is 400. */
export const StoreIdentifier = z
  .string()
  .min(limits.storeIdentifierMin, {
    error: `must be ${limits.storeIdentifierMin} to ${limits.storeIdentifierMax} characters`,
  })
  .max(limits.storeIdentifierMax, {
    error: `must be ${limits.storeIdentifierMin} to ${limits.storeIdentifierMax} characters`,
  })
  .superRefine((value, ctx) => {
    const problem = storeIdentifierProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .openapi({ format: 'uri', example: 'https://shop.example.com' });

export function storeIdentifierProblem(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return `must be a valid URL including the scheme (e.g. "https://${value.replace(/^\/+/, '') || 'shop.example.com'}"); a bare host is rejected`;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use the http or https scheme';
  if (!url.hostname) return 'must include a host';
  if (/\s/.test(value)) return 'must not contain spaces';
  return undefined;
}

export const PageRequest = z
  .strictObject({
    surface: z.enum(SURFACES, enumMessage(SURFACES)),
    layout_type: z.enum(LAYOUT_TYPES, enumMessage(LAYOUT_TYPES)),
  })
  .openapi('PageRequest');

export const RegisterRequest = z
  .strictObject({
    brand: nonEmpty(),
    vertical_id: z.int().nonnegative(),
    sub_vertical_id: z.int().nonnegative(),
    country_code: z
      .string()
      .regex(/^[A-Z]{2}$/, { error: 'must be an ISO 3166-1 alpha-2 code in upper case (e.g. "US")' }),
    platform_parent_account_id: nonEmpty(limits.idMax),
    store_identifier: StoreIdentifier,
    external_account_id: nonEmpty(limits.idMax),
    pages: z
      .array(PageRequest)
      .max(limits.pagesMax)
      .superRefine((pages, ctx) => {
        const seen = new Set<string>();
        pages.forEach((p, i) => {
          if (seen.has(p.surface))
            ctx.addIssue({
              code: 'custom',
              path: [i, 'surface'],
              message: `duplicate surface "${p.surface}"`,
            });
          seen.add(p.surface);
        });
      })
      .optional()
      .openapi({ description: "Omit to use the integration's default pages; pass an array to override." }),
  })
  .openapi('RegisterRequest');
export type RegisterRequest = z.infer<typeof RegisterRequest>;

export const RegisteredPage = z
  .object({
    surface: Surface,
    page_id: z.string(),
    layout_id: z.string(),
    page_identifier: z.string(),
  })
  .openapi('RegisteredPage');

export const RegisterData = z
  .object({ account_id: z.string(), pages: z.array(RegisteredPage).optional() })
  .openapi('RegisterData');
export type RegisterData = z.infer<typeof RegisterData>;
export type Surface = (typeof SURFACES)[number];

// ---- 2.4 / 2.5 marketplace controls ----------------------------------------------

export const DomainRule = z.object({ domain: z.string(), policy: Policy }).openapi('DomainRule');

export const TranslatedVertical = z
  .object({
    vertical_id: z.int().openapi({ description: "The partner's SUB-vertical ID (never an internal ID)." }),
    policy: Policy,
    position_1_policy: Policy,
  })
  .openapi('TranslatedVertical');

export const ControlsData = z
  .object({
    account_id: z.string(),
    marketplace_controls_list: z.object({
      marketplace_controls_list_id: z.string(),
      domains: z.array(DomainRule),
      content_hash: z.string(),
    }),
    translated_verticals: z.array(TranslatedVertical),
  })
  .openapi('ControlsData');
export type ControlsData = z.infer<typeof ControlsData>;

/** Spec §2.5 domains: bare host names; the rules below are the sandbox's choice (README). */
export function domainProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (/\s/.test(value)) return 'must not contain spaces';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return `must be a bare domain without a scheme (e.g. "${value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0]}")`;
  }
  if (value.includes('/')) return 'must be a bare domain without a path';
  if (value.includes(':')) return 'must be a bare domain without a port';
  if (value.length > limits.domainMax) return `must be at most ${limits.domainMax} characters`;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
  const labels = value.split('.');
  if (labels.length < 2 || !labels.every((l) => label.test(l)))
    return 'must be a valid domain name such as "example.com"';
  return undefined;
}

export const BlockedVerticalWrite = z
  .strictObject({
    partnerVerticalId: z.int(),
    partnerSubVerticalId: z.int(),
    policy: z.enum(WRITE_POLICIES, enumMessage(WRITE_POLICIES)).optional(),
    position1Policy: z.enum(WRITE_POLICIES, enumMessage(WRITE_POLICIES)).optional(),
  })
  .openapi('BlockedVerticalWrite');

export const DomainWrite = z
  .strictObject({
    domain: z.string().superRefine((value, ctx) => {
      const problem = domainProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    policy: z.enum(WRITE_POLICIES, enumMessage(WRITE_POLICIES)).optional(),
  })
  .openapi('DomainWrite');

export const ControlsWriteRequest = z
  .strictObject({
    name: nonEmpty().optional(),
    blockedVerticals: z
      .array(BlockedVerticalWrite, { error: 'is required (send [] to unblock every vertical)' })
      .max(limits.blockedVerticalsMax, { error: `must have at most ${limits.blockedVerticalsMax} entries` })
      .superRefine((entries, ctx) => {
        const seen = new Set<string>();
        entries.forEach((e, i) => {
          const key = `${e.partnerVerticalId}/${e.partnerSubVerticalId}`;
          if (seen.has(key))
            ctx.addIssue({
              code: 'custom',
              path: [i],
              message: `duplicate entry for partnerVerticalId=${e.partnerVerticalId}, partnerSubVerticalId=${e.partnerSubVerticalId}`,
            });
          seen.add(key);
        });
      }),
    domains: z
      .array(DomainWrite, { error: 'is required (send [] to unblock every domain)' })
      .max(limits.domainsMax, { error: `must have at most ${limits.domainsMax} entries` })
      .superRefine((entries, ctx) => {
        const seen = new Set<string>();
        entries.forEach((e, i) => {
          const key = e.domain.toLowerCase();
          if (seen.has(key))
            ctx.addIssue({ code: 'custom', path: [i, 'domain'], message: `duplicate domain "${key}"` });
          seen.add(key);
        });
      }),
    contentHash: z
      .string({
        error: 'is required: null on the first write, then the content_hash of the latest GET or PUT',
      })
      .min(1)
      .max(limits.idMax)
      .nullable(),
  })
  .openapi('ControlsWriteRequest');
export type ControlsWriteRequest = z.infer<typeof ControlsWriteRequest>;

// ---- 2.6 status ---------------------------------------------------------------------

/** Spec §2.6, field for field: variant IDs and per-variant results are sandbox detail (control plane). */
export const VariantView = z
  .object({
    page_id: z.string(),
    name: z.string(),
    status: z.enum(REQUESTED_STATUSES),
  })
  .openapi('Variant');

export const StatusData = z
  .object({
    account_id: z.string(),
    status: z.enum(AGGREGATE_STATUSES),
    variants: z.array(VariantView),
  })
  .openapi('StatusData');
export type StatusData = z.infer<typeof StatusData>;

export const StatusWriteRequest = z
  .strictObject({ status: z.enum(REQUESTED_STATUSES, enumMessage(REQUESTED_STATUSES)) })
  .openapi('StatusWriteRequest');

// ---- endpoint 7: layout edit (the sandbox's assumption; README) ---------------------

export const LayoutPatchRequest = z
  .strictObject({
    layout_type: z.enum(LAYOUT_TYPES, enumMessage(LAYOUT_TYPES)).optional(),
    name: nonEmpty().optional(),
  })
  .refine((b) => b.layout_type !== undefined || b.name !== undefined, {
    error: 'send at least one of layout_type, name',
  })
  .openapi('LayoutPatchRequest');

export const LayoutData = z
  .object({
    layout_id: z.string(),
    page_id: z.string(),
    surface: Surface,
    layout_type: LayoutType,
    name: z.string(),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('LayoutData');

/** Every field name the contract knows, for "did you mean" hints on unknown keys. */
export const knownFieldNames: ReadonlySet<string> = new Set([
  ...Object.keys(RegisterRequest.shape),
  ...Object.keys(PageRequest.shape),
  ...Object.keys(ControlsWriteRequest.shape),
  ...Object.keys(BlockedVerticalWrite.shape),
  ...Object.keys(DomainWrite.shape),
  'layout_type',
  'name',
  'status',
]);
