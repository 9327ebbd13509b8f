/**
 * The partner API as data: every request and response shape of the spec, as zod
 * schemas. They validate requests, type the handlers and generate the OpenAPI
 * document, so a rule about a field's shape lives here and nowhere else.
 *
 * Responses are snake_case; the controls PUT body is camelCase (spec §2.5).
 */
import { z } from '@hono/zod-openapi';
import {
  enumMessage as allowedValuesMessage,
  BLANK_MESSAGE,
  BLOCKED_VERTICALS_REQUIRED_MESSAGE,
  CONTENT_HASH_REQUIRED_MESSAGE,
  COUNTRY_CODE_MESSAGE,
  contentHashTypeMessage,
  controlCharacterMessage,
  countryCodeCaseMessage,
  DOMAIN_NAME_MESSAGE,
  DOMAIN_PATH_MESSAGE,
  DOMAIN_PORT_MESSAGE,
  DOMAINS_REQUIRED_MESSAGE,
  domainEmailMessage,
  domainSchemeMessage,
  dryRunValueMessage,
  EDGE_WHITESPACE_MESSAGE,
  EMPTY_MESSAGE,
  enumRequiredMessage,
  innerWhitespaceMessage,
  negativeMessage,
  notAnIntegerMessage,
  STORE_IDENTIFIER_HOST_MESSAGE,
  STORE_IDENTIFIER_INVALID_MESSAGE,
  storeIdentifierNoSchemeMessage,
  storeIdentifierSchemeMessage,
  storeIdentifierSlashesMessage,
  unpairedSurrogateMessage,
  wrongTypeMessage,
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

const enumMessage = (allowed: readonly string[]) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? enumRequiredMessage(allowed) : allowedValuesMessage(allowed),
});

/** An integer field: a wrong value is named for what it is (zod says "expected int, received number" of 10.5). */
const integer = () =>
  z.int({
    error: (issue) =>
      issue.input === undefined
        ? undefined
        : typeof issue.input === 'number'
          ? notAnIntegerMessage(issue.input)
          : wrongTypeMessage('integer', issue.input),
  });
const nonNegativeInteger = () =>
  integer().nonnegative({
    error: (issue) => (typeof issue.input === 'number' ? negativeMessage(issue.input) : undefined),
  });

// ---- characters in string values ---------------------------------------------------

/** C0 controls, DEL and C1 controls (U+0000-U+001F, U+007F-U+009F). */
const CONTROL = /\p{Cc}/u;
/** With the u flag, only a surrogate that is not half of a pair is a Cs code point. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;
const EDGE_WHITESPACE = /^\s|\s$/;

/**
 * Characters no string field accepts: control characters (a newline or a NUL is not
 * whitespace to trim but a character that should not be there), and unpaired surrogates
 * (the store keeps UTF-8, where they would all become U+FFFD and distinct values equal).
 */
export function characterProblem(value: string): string | undefined {
  const control = CONTROL.exec(value);
  if (control) return controlCharacterMessage(control[0], control.index);
  const surrogate = UNPAIRED_SURROGATE.exec(value);
  if (surrogate) return unpairedSurrogateMessage(surrogate[0], surrogate.index);
  return undefined;
}

/**
 * Identifiers and names are kept and compared exactly as sent, never trimmed (trimming
 * made " m-1" and "m-1" one merchant): a value with whitespace at either end is 400.
 */
export function textProblem(value: string): string | undefined {
  const bad = characterProblem(value);
  if (bad) return bad;
  if (EDGE_WHITESPACE.test(value)) return value.trim() === '' ? BLANK_MESSAGE : EDGE_WHITESPACE_MESSAGE;
  return undefined;
}

const problemCheck =
  (problem: (value: string) => string | undefined) => (value: string, ctx: z.core.$RefinementCtx<string>) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: 'custom', message });
  };

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
    .openapi({
      param: { name: 'account_id', in: 'path' },
      description: 'The account ID returned by register.',
      example: 'acct_01jbx7k2m9q4r8s6t3v5',
    }),
});

export const LayoutParams = AccountParams.extend({
  layout_id: z
    .string()
    .min(1)
    .max(limits.idMax)
    .openapi({
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
  parent_account_id: z
    .string()
    .min(1)
    .max(limits.idMax)
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

/** A name or identifier: 1 to `max` characters, taken exactly as sent (textProblem). */
/** A name or identifier kept exactly as sent: not empty, no control character, no blank at either end. */
export const nonEmpty = (max: number = limits.stringMax) =>
  z
    .string()
    .min(1, { error: EMPTY_MESSAGE })
    .max(max, { error: `must be at most ${max} characters` })
    .superRefine(problemCheck(textProblem));

/** Spec §2.2: a valid URL including the scheme, 3 to 400 characters; a bare host is 400. */
export const StoreIdentifier = z
  .string()
  .min(limits.storeIdentifierMin, {
    error: `must be ${limits.storeIdentifierMin} to ${limits.storeIdentifierMax} characters`,
  })
  .max(limits.storeIdentifierMax, {
    error: `must be ${limits.storeIdentifierMin} to ${limits.storeIdentifierMax} characters`,
  })
  .superRefine(problemCheck(storeIdentifierProblem))
  .openapi({ format: 'uri', example: 'https://shop.example.com' });

/** A scheme at the start of a value ("mailto:"), unless what follows the colon is a port. */
const SCHEME = /^([a-z][a-z0-9+.-]*):(?!\d)/i;

/** Whitespace at either end, or inside: a URL or a host name has none. */
function whitespaceProblem(value: string): string | undefined {
  if (EDGE_WHITESPACE.test(value)) return EDGE_WHITESPACE_MESSAGE;
  const space = /\s/.exec(value);
  return space ? innerWhitespaceMessage(space[0], space.index) : undefined;
}

export function storeIdentifierProblem(value: string): string | undefined {
  const bad = characterProblem(value) ?? whitespaceProblem(value);
  if (bad) return bad;
  const scheme = SCHEME.exec(value);
  if (!scheme) {
    // a bare host, a host with a port, or a scheme-relative URL
    return storeIdentifierNoSchemeMessage(`https://${value.replace(/^\/+/, '') || 'shop.example.com'}`);
  }
  const name = scheme[1]!.toLowerCase();
  if (name !== 'http' && name !== 'https') return storeIdentifierSchemeMessage(scheme[1]!.slice(0, 20));
  if (!value.slice(scheme[0].length).startsWith('//')) return storeIdentifierSlashesMessage(name);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value.length === scheme[0].length + 2
      ? STORE_IDENTIFIER_HOST_MESSAGE
      : STORE_IDENTIFIER_INVALID_MESSAGE;
  }
  if (!url.hostname) return STORE_IDENTIFIER_HOST_MESSAGE;
  return undefined;
}

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

/** Spec §2.5 domains: bare host names; the rules below are the sandbox's choice (README). */
export function domainProblem(value: string): string | undefined {
  if (value.length === 0) return EMPTY_MESSAGE;
  const bad = characterProblem(value) ?? whitespaceProblem(value);
  if (bad) return bad;
  const scheme = SCHEME.exec(value);
  if (scheme) return domainSchemeMessage(hostOf(value.slice(scheme[0].length)));
  if (value.includes('/')) return DOMAIN_PATH_MESSAGE;
  if (value.includes('@')) return domainEmailMessage(hostOf(value));
  if (value.includes(':')) return DOMAIN_PORT_MESSAGE;
  if (value.length > limits.domainMax) return `must be at most ${limits.domainMax} characters`;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
  const labels = value.split('.');
  if (labels.length < 2 || !labels.every((l) => label.test(l))) return DOMAIN_NAME_MESSAGE;
  return undefined;
}

/** The host part of what was sent after a scheme (no slashes, user, path or port): the hint. */
function hostOf(rest: string): string {
  const host = rest.replace(/^\/+/, '').split(/[/?#]/)[0]!.replace(/^.*@/, '').replace(/:\d*$/, '');
  return host || 'example.com';
}

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
    domain: z.string().superRefine(problemCheck(domainProblem)),
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

/**
 * Endpoint 7's answer ("request and response: not shown"): only fields the spec names for a
 * layout elsewhere (2.2 and 2.3 pages[]), so a partner comes to depend on nothing more
 * (SANDBOX.md §8). The name and update time live on the control plane.
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
