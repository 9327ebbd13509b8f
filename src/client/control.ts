/**
 * The control-plane client (docs/in-your-ci.md): typed methods over the `/__sandbox` routes
 * of §6, for any running sandbox (startSandbox(), `npx partnership-sandbox`, the image).
 * Each method calls one declared operation by its operationId: its method and path come from
 * contract/control-operations.ts, where the control plane's declarations take theirs.
 * Request and answer types come from the zod schemas that validate the control plane
 * (contract/admin.ts): z.input for what is sent, z.output for what comes back. Global
 * fetch, no dependency. A non-2xx answer throws ControlPlaneError with the status and
 * the parsed body.
 *
 * One object per resource (partners, accounts, variants, clock, requests, scenarios,
 * snapshots, bundles): a new route is a new method on its resource. §10's test isolation:
 * partners.reset, partners.clock, snapshots, requests.count, bundles. §11: chaos.
 */
import type { z } from 'zod';
import type {
  AccountDetail,
  ArmRequest,
  ChaosRequest,
  ClearedAnswer,
  ClockView,
  CountAnswer,
  CountRequest,
  Health,
  JournalFilters,
  MappingSeed,
  MappingsAnswer,
  PartnerClockView,
  PartnerCreate,
  PartnerCredentials,
  PartnerList,
  PartnerResetAnswer,
  ResetAnswer,
  SnapshotInfo,
  SnapshotList,
  SnapshotRestored,
  SnapshotSaved,
  VariantAdmin,
  VariantCreate,
  VariantPatch,
} from '../contract/admin.js';
import type {
  ArmAnswer,
  Catalogue,
  ChaosAnswer,
  ChaosList,
  DisarmAnswer,
  JournalAnswer,
  ReportAnswer,
} from '../contract/admin-journal.js';
import type { Bundle, BundleImported } from '../contract/bundle.js';
import {
  CONTROL_OPERATIONS,
  type ControlOperationId,
  operationPath,
  type PathParams,
} from '../contract/control-operations.js';

export type PartnerCreateInput = z.input<typeof PartnerCreate>;
export type VerticalMappingInput = z.input<typeof MappingSeed>['vertical_mappings'][number];
export type VariantCreateInput = z.input<typeof VariantCreate>;
export type VariantPatchInput = z.input<typeof VariantPatch>;
export type ArmInput = z.input<typeof ArmRequest>;
/** A chaos profile to set: `{rate, seed, scenarios?, parent_account_id?}` (docs/chaos.md). */
export type ChaosProfileInput = z.input<typeof ChaosRequest>;
export type JournalFiltersInput = z.input<typeof JournalFilters>;
export type CountFilterInput = z.input<typeof CountRequest>;
/** A bundle as `bundles.export()` returns it and `bundles.import()` takes it. */
export type BundleFile = z.output<typeof Bundle>;

export type HealthView = z.output<typeof Health>;
export type ResetView = z.output<typeof ResetAnswer>;
export type PartnerCredentialsView = z.output<typeof PartnerCredentials>;
export type PartnerListView = z.output<typeof PartnerList>;
export type MappingsView = z.output<typeof MappingsAnswer>;
export type AccountView = z.output<typeof AccountDetail>;
export type VariantView = z.output<typeof VariantAdmin>;
export type ClockState = z.output<typeof ClockView>;
export type JournalView = z.output<typeof JournalAnswer>;
export type ClearedView = z.output<typeof ClearedAnswer>;
export type CatalogueView = z.output<typeof Catalogue>;
export type ArmView = z.output<typeof ArmAnswer>;
export type DisarmView = z.output<typeof DisarmAnswer>;
export type ReportView = z.output<typeof ReportAnswer>;
export type ChaosProfileSetView = z.output<typeof ChaosAnswer>;
export type ChaosProfilesView = z.output<typeof ChaosList>;
export type PartnerResetView = z.output<typeof PartnerResetAnswer>;
export type PartnerClockState = z.output<typeof PartnerClockView>;
export type CountView = z.output<typeof CountAnswer>;
export type SnapshotView = z.output<typeof SnapshotInfo>;
export type SnapshotSavedView = z.output<typeof SnapshotSaved>;
export type SnapshotListView = z.output<typeof SnapshotList>;
export type SnapshotRestoredView = z.output<typeof SnapshotRestored>;
export type BundleImportedView = z.output<typeof BundleImported>;

export interface ControlClientOptions {
  /** SANDBOX_ADMIN_TOKEN of the sandbox, when it has one: sent as `Authorization: Bearer`. */
  adminToken?: string;
  /** How long one call may take before it fails (ControlPlaneError, status 0); default 30000 ms. */
  timeoutMs?: number;
}

/** The default of `timeoutMs`: far above any control-plane call, far below a CI job's patience. */
export const CONTROL_TIMEOUT_MS = 30_000;

export interface ControlClient {
  /** The sandbox's base URL, without a trailing slash. */
  readonly url: string;
  health(): Promise<HealthView>;
  /** Wipes all state, loads the fixtures again, resets the clock. */
  reset(): Promise<ResetView>;
  partners: {
    /** Every partner with its accounts (at most 200 each, newest first). */
    list(): Promise<PartnerListView>;
    /** A parent account with client credentials; missing values are generated. */
    create(partner?: PartnerCreateInput): Promise<PartnerCredentialsView>;
    /** Replaces the parent's vertical mapping. */
    seedMappings(parentAccountId: string, mappings: VerticalMappingInput[]): Promise<MappingsView>;
    unseedMappings(parentAccountId: string): Promise<MappingsView>;
    /** Wipes one partner: its credentials, mapping and tokens stay; no other partner is touched. */
    reset(parentAccountId: string): Promise<PartnerResetView>;
    /** The partner's own clock, on top of the global one. */
    clock: {
      get(parentAccountId: string): Promise<PartnerClockState>;
      advance(parentAccountId: string, seconds: number): Promise<PartnerClockState>;
    };
  };
  accounts: {
    /** The whole internal view: pages, layouts, variants (archived too), controls, propagation. */
    get(accountId: string): Promise<AccountView>;
  };
  variants: {
    add(accountId: string, variant: VariantCreateInput): Promise<VariantView>;
    update(variantId: string, patch: VariantPatchInput): Promise<VariantView>;
  };
  clock: {
    get(): Promise<ClockState>;
    advance(seconds: number): Promise<ClockState>;
  };
  requests: {
    /** The journal, newest first. */
    list(filters?: JournalFiltersInput): Promise<JournalView>;
    clear(): Promise<ClearedView>;
    /**
     * "This call was made N times": the journal filters plus `header` and `body_contains`
     * (which searches only what the journal kept of each body: SANDBOX_JOURNAL_BODY_BYTES).
     */
    count(filter?: CountFilterInput): Promise<number>;
  };
  snapshots: {
    /** Saves the whole state under `name` (replacing a snapshot of that name). */
    save(name: string): Promise<SnapshotSavedView>;
    list(): Promise<SnapshotListView>;
    /** Puts the whole sandbox back to the snapshot. */
    restore(name: string): Promise<SnapshotRestoredView>;
    delete(name: string): Promise<{ deleted: SnapshotView }>;
  };
  bundles: {
    /** One partner as one JSON file (what a failed CI job uploads). */
    export(parentAccountId: string): Promise<BundleFile>;
    /** Loads a bundle (a BundleFile, or JSON read from one); the partner is replaced if it exists. */
    import(bundle: unknown): Promise<BundleImportedView>;
  };
  scenarios: {
    list(): Promise<CatalogueView>;
    arm(scenario: ArmInput): Promise<ArmView>;
    /** Disarms every armed scenario. */
    disarm(): Promise<DisarmView>;
  };
  chaos: {
    /** Sets a profile for one partner (`parent_account_id`) or every partner; answers it. */
    set(profile: ChaosProfileInput): Promise<ChaosProfileSetView>;
    /** The profiles in force, with the calls each saw and failed, by scenario. */
    get(): Promise<ChaosProfilesView>;
    /** Ends every profile, or that partner's own only; answers those still in force. */
    end(parentAccountId?: string): Promise<ChaosProfilesView>;
  };
  /** The integration report of a parent account: JSON, or JUnit XML text. */
  report(parentAccountId: string, format?: 'json'): Promise<ReportView>;
  report(parentAccountId: string, format: 'junit'): Promise<string>;
}

/**
 * A control-plane call that failed: its status and parsed body (text when not JSON). A
 * status 0 means no answer came (connection refused, timed out): `cause` says why.
 */
export class ControlPlaneError extends Error {
  override name = 'ControlPlaneError';
  readonly status: number;
  readonly body: unknown;
  readonly method: string;
  readonly path: string;
  /** `error.code` of the envelope, when the body has one. */
  readonly code: string | undefined;

  constructor(
    method: string,
    path: string,
    status: number,
    body: unknown,
    options?: { problem?: string; cause?: unknown },
  ) {
    const envelope = (typeof body === 'object' && body !== null ? body : {}) as {
      message?: unknown;
      error?: { code?: unknown } | null;
    };
    const said = typeof envelope.message === 'string' ? envelope.message : String(body).slice(0, 200);
    super(options?.problem ?? `${method} ${path} answered ${status}: ${said}`, { cause: options?.cause });
    this.status = status;
    this.body = body;
    this.method = method;
    this.path = path;
    this.code = typeof envelope.error?.code === 'string' ? envelope.error.code : undefined;
  }
}

export function createControlClient(url: string | URL, options: ControlClientOptions = {}): ControlClient {
  const base = String(url).replace(/\/+$/, '');
  const auth: Record<string, string> = options.adminToken
    ? { authorization: `Bearer ${options.adminToken}` }
    : {};
  const timeoutMs = options.timeoutMs ?? CONTROL_TIMEOUT_MS;

  /** One call; its answer must be JSON (a report in JUnit XML is text). */
  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
    answer: 'json' | 'text' = 'json',
  ): Promise<T> {
    // fetch resolves "." and ".." segments: reset('..') would be POST /__sandbox/reset.
    if (
      path
        .split('?')[0]!
        .split('/')
        .some((part) => part === '.' || part === '..')
    ) {
      throw new TypeError(`${method} ${path}: "." and ".." are not identifiers (a URL resolves them)`);
    }
    const headers: Record<string, string> = { accept: 'application/json', ...auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await fetch(base + path, {
        method,
        headers,
        signal: AbortSignal.timeout(timeoutMs),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      text = await res.text();
    } catch (err) {
      // No answer: the sandbox is down, unreachable, or did not answer in time.
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      const why = timedOut
        ? `no answer within ${timeoutMs} ms`
        : `${(err as Error).message}${(err as { cause?: Error }).cause ? ` (${(err as { cause: Error }).cause.message})` : ''}`;
      throw new ControlPlaneError(method, path, 0, undefined, {
        problem: `${method} ${base}${path} failed: ${why}; is a sandbox running at ${base}?`,
        cause: err,
      });
    }
    const isJson = /json/i.test(res.headers.get('content-type') ?? '');
    let parsed: unknown = text;
    let jsonOk = false;
    if (isJson && text !== '') {
      try {
        parsed = JSON.parse(text);
        jsonOk = true;
      } catch {
        // keep the text: the error below carries it as is
      }
    }
    if (!res.ok) throw new ControlPlaneError(method, path, res.status, parsed);
    if (answer === 'json' && !jsonOk) {
      // A 2xx that is not JSON is not the control plane (a proxy's page, another server).
      throw new ControlPlaneError(method, path, res.status, parsed, {
        problem: `${method} ${base}${path} answered ${res.status} with ${res.headers.get('content-type') ?? 'no Content-Type'}, not JSON: is ${base} a sandbox?`,
      });
    }
    return parsed as T;
  }

  /** An operation's method and path (its parameters filled in, a query string after it). */
  function at<Id extends ControlOperationId>(
    id: Id,
    ...[params, query]: keyof PathParams<(typeof CONTROL_OPERATIONS)[Id]['path']> extends never
      ? [params?: Record<never, string>, query?: URLSearchParams]
      : [params: PathParams<(typeof CONTROL_OPERATIONS)[Id]['path']>, query?: URLSearchParams]
  ): [method: string, path: string] {
    const qs = query?.toString();
    const path = operationPath(id, (params ?? {}) as PathParams<(typeof CONTROL_OPERATIONS)[Id]['path']>);
    return [CONTROL_OPERATIONS[id].method.toUpperCase(), qs ? `${path}?${qs}` : path];
  }

  function report(parentAccountId: string, format?: 'json'): Promise<ReportView>;
  function report(parentAccountId: string, format: 'junit'): Promise<string>;
  function report(parentAccountId: string, format: 'json' | 'junit' = 'json') {
    const query = new URLSearchParams({ parent_account_id: parentAccountId, format });
    return call(...at('getReport', {}, query), undefined, format === 'junit' ? 'text' : 'json');
  }

  return {
    url: base,
    health: () => call(...at('health')),
    reset: () => call(...at('reset')),
    partners: {
      list: () => call(...at('listPartners')),
      create: (partner = {}) => call(...at('createPartner'), partner),
      seedMappings: (parent, mappings) =>
        call(...at('seedVerticalMappings', { parent_account_id: parent }), { vertical_mappings: mappings }),
      unseedMappings: (parent) => call(...at('unseedVerticalMappings', { parent_account_id: parent })),
      reset: (parent) => call(...at('resetPartner', { parent_account_id: parent })),
      clock: {
        get: (parent) => call(...at('getPartnerClock', { parent_account_id: parent })),
        advance: (parent, seconds) =>
          call(...at('advancePartnerClock', { parent_account_id: parent }), { seconds }),
      },
    },
    accounts: {
      get: (accountId) => call(...at('getAccount', { account_id: accountId })),
    },
    variants: {
      add: (accountId, variant) => call(...at('addVariant', { account_id: accountId }), variant),
      update: (variantId, patch) => call(...at('updateVariant', { variant_id: variantId }), patch),
    },
    clock: {
      get: () => call(...at('getClock')),
      advance: (seconds) => call(...at('advanceClock'), { seconds }),
    },
    requests: {
      list: (filters = {}) => {
        const query = new URLSearchParams();
        for (const [name, value] of Object.entries(filters)) {
          if (value !== undefined) query.set(name, String(value));
        }
        return call(...at('listRequests', {}, query));
      },
      clear: () => call(...at('clearRequests')),
      count: async (filter = {}) => (await call<CountView>(...at('countRequests'), filter)).count,
    },
    snapshots: {
      save: (name) => call(...at('saveSnapshot'), { name }),
      list: () => call(...at('listSnapshots')),
      restore: (name) => call(...at('restoreSnapshot', { name })),
      delete: (name) => call(...at('deleteSnapshot', { name })),
    },
    bundles: {
      export: (parent) => call(...at('exportBundle', { parent_account_id: parent })),
      import: (bundle) => call(...at('importBundle'), bundle),
    },
    scenarios: {
      list: () => call(...at('listScenarios')),
      arm: (scenario) => call(...at('armScenario'), scenario),
      disarm: () => call(...at('disarmScenarios')),
    },
    chaos: {
      set: (profile) => call(...at('setChaos'), profile),
      get: () => call(...at('getChaos')),
      end: (parent) =>
        call(
          ...at(
            'endChaos',
            {},
            parent === undefined ? undefined : new URLSearchParams({ parent_account_id: parent }),
          ),
        ),
    },
    report,
  };
}
