/**
 * The partner API as data: every request and response shape of the spec, as zod
 * schemas. They validate requests, type the handlers and generate the OpenAPI
 * document, so a rule about a field's shape lives here and nowhere else.
 *
 * Responses are snake_case; the controls PUT body is camelCase (spec §2.5).
 */
import { z } from '@hono/zod-openapi';
import {
  characterProblem,
  DOMAIN_PATTERN,
  domainProblem,
  EDGE_WHITESPACE,
  enumMessage,
  integer,
  limits,
  nonEmpty,
  nonNegativeInteger,
  problemCheck,
  StoreIdentifier,
} from './fields.js';
import {
  BLOCKED_VERTICALS_REQUIRED_MESSAGE,
  CONTENT_HASH_REQUIRED_MESSAGE,
  COUNTRY_CODE_MESSAGE,
  contentHashTypeMessage,
  countryCodeCaseMessage,
  DOMAINS_REQUIRED_MESSAGE,
  dryRunValueMessage,
  EDGE_WHITESPACE_MESSAGE,
  EMPTY_MESSAGE,
} from './messages.js';

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

// ---- params and query -------------------------------------------------------------

/** An ID in a path or query: 1 to 128 characters (contract/api/issues.ts words the bounds). */
const identifier = () => z.string().min(1).max(limits.idMax);

export const AccountParams = z.object({
  account_id: identifier().openapi({
    param: { name: 'account_id', in: 'path' },
    description: 'The account ID returned by register.',
    example: 'acct_01jbx7k2m9q4r8s6t3v5',
  }),
});

export const LayoutParams = AccountParams.extend({
  layout_id: identifier().openapi({
    param: { name: 'layout_id', in: 'path' },
    description: 'A layout ID of the account (pages[].layout_id of the register answer).',
    example: '01936b2e-7c4a-7d21-9f3e-4b5c6d7e8f90',
  }),
});

export const DryRunQuery = z.object({
  dry_run: z
    .enum(['true', 'false'], { error: (issue) => dryRunValueMessage(issue.input) })
    .optional()
    .openapi({
      param: { name: 'dry_run', in: 'query' },
      description:
        'Validate the write fully without persisting it. Only "true" or "false"; any other value is 400 (never read as false).',
      example: 'false',
    }),
});

export const MappingsQuery = z.object({
  parent_account_id: identifier()
    .optional()
    .openapi({
      param: { name: 'parent_account_id', in: 'query' },
      description: "The parent account ID; defaults to the token's parent. Another parent's ID is 403.",
      example: 'pa_demo_platform',
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

export const PageRequest = z
  .strictObject({
    surface: z.enum(SURFACES, enumMessage(SURFACES)),
    layout_type: z.enum(LAYOUT_TYPES, enumMessage(LAYOUT_TYPES)),
  })
  .openapi('PageRequest');

function countryCodeProblem(value: string): string {
  const bad = characterProblem(value);
  if (bad) return bad;
  if (EDGE_WHITESPACE.test(value)) return EDGE_WHITESPACE_MESSAGE;
  if (/^[a-z]{2}$/i.test(value)) return countryCodeCaseMessage(value.toUpperCase());
  return COUNTRY_CODE_MESSAGE;
}

export const RegisterRequest = z
  .strictObject({
    brand: nonEmpty(),
    vertical_id: nonNegativeInteger(),
    sub_vertical_id: nonNegativeInteger(),
    country_code: z.string().regex(/^[A-Z]{2}$/, {
      error: (issue) => countryCodeProblem(issue.input as string),
    }),
    platform_parent_account_id: nonEmpty(limits.idMax),
    store_identifier: StoreIdentifier,
    external_account_id: nonEmpty(limits.idMax),
    pages: z
      .array(PageRequest)
      .max(limits.pagesMax, { error: `must have at most ${limits.pagesMax} entries` })
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
    marketplace_controls_list: z
      .object({
        marketplace_controls_list_id: z.string(),
        domains: z.array(DomainRule),
        content_hash: z.string(),
      })
      .openapi('MarketplaceControlsList'),
    translated_verticals: z.array(TranslatedVertical),
  })
  .openapi('ControlsData');
export type ControlsData = z.infer<typeof ControlsData>;

export const BlockedVerticalWrite = z
  .strictObject({
    partnerVerticalId: integer(),
    partnerSubVerticalId: integer(),
    policy: z.enum(WRITE_POLICIES, enumMessage(WRITE_POLICIES)).optional(),
    position1Policy: z.enum(WRITE_POLICIES, enumMessage(WRITE_POLICIES)).optional(),
  })
  .openapi('BlockedVerticalWrite');

export const DomainWrite = z
  .strictObject({
    domain: z.string().superRefine(problemCheck(domainProblem)).openapi({
      minLength: 1,
      maxLength: limits.domainMax,
      pattern: DOMAIN_PATTERN,
      example: 'shop.example.com',
    }),
    policy: z.enum(WRITE_POLICIES, enumMessage(WRITE_POLICIES)).optional(),
  })
  .openapi('DomainWrite');

export const ControlsWriteRequest = z
  .strictObject({
    name: nonEmpty().optional(),
    blockedVerticals: z
      .array(BlockedVerticalWrite, {
        error: (issue) => (issue.input === undefined ? BLOCKED_VERTICALS_REQUIRED_MESSAGE : undefined),
      })
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
      .array(DomainWrite, {
        error: (issue) => (issue.input === undefined ? DOMAINS_REQUIRED_MESSAGE : undefined),
      })
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
        error: (issue) =>
          issue.input === undefined ? CONTENT_HASH_REQUIRED_MESSAGE : contentHashTypeMessage(issue.input),
      })
      .min(1, { error: EMPTY_MESSAGE })
      .max(limits.idMax, { error: `must be at most ${limits.idMax} characters` })
      .nullable(),
  })
  .openapi('ControlsWriteRequest');
export type ControlsWriteRequest = z.infer<typeof ControlsWriteRequest>;

// ---- 2.6 status ---------------------------------------------------------------------

/** Spec §2.6, field for field: variant IDs and per-variant results are sandbox detail (control plane). */
export const StatusVariant = z
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
    variants: z.array(StatusVariant),
  })
  .openapi('StatusData');
export type StatusData = z.infer<typeof StatusData>;

export const StatusWriteRequest = z
  .strictObject({ status: z.enum(REQUESTED_STATUSES, enumMessage(REQUESTED_STATUSES)) })
  .openapi('StatusWriteRequest');

// ---- endpoint 7: layout edit (the sandbox's assumption; docs/where-the-spec-is-silent.md)

export const LayoutPatchRequest = z
  .strictObject({
    layout_type: z.enum(LAYOUT_TYPES, enumMessage(LAYOUT_TYPES)).optional(),
    name: nonEmpty().optional(),
  })
  .refine((b) => b.layout_type !== undefined || b.name !== undefined, {
    error: 'send at least one of layout_type, name',
  })
  .openapi('LayoutPatchRequest', { minProperties: 1 });

/**
 * Endpoint 7's answer ("request and response: not shown"): only fields the spec names for a
 * layout elsewhere (2.2 and 2.3 pages[]), so a partner comes to depend on nothing more
 * (docs/where-the-spec-is-silent.md). The name and update time live on the control plane.
 */
export const LayoutData = z
  .object({
    layout_id: z.string(),
    page_id: z.string(),
    surface: Surface,
    layout_type: LayoutType,
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
