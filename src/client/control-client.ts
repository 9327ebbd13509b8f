/**
 * The control-plane client (docs/in-your-ci.md): typed methods over the `/__sandbox` routes
 * of §6, for any running sandbox (startSandbox(), `npx partnership-sandbox`, the image).
 * Each method calls one declared operation (contract/control/control-routes*.ts) by its operationId:
 * its method and path come from contract/control/control-operations.ts, generated from the
 * declarations; its body and answer types from the declarations themselves (types only: z.input
 * of the declared body, z.output of the declared 2xx answer), so nothing of zod or hono is
 * loaded. Each call is client/http.ts's exchange (global fetch, no dependency), the one the MCP
 * server and the dashboard make too. A non-2xx answer throws ControlPlaneError with the status and
 * the parsed body.
 *
 * Every declared operation is a method of `operations`, derived from the generated table and
 * typed by its operationId (`operations.resetPartner({ params: { parent_account_id } })`):
 * a new route is there without an edit here, and whatever mirrors the control plane next
 * (an MCP server's tools) derives from the same table and declarations. The named methods,
 * one object per resource (partners, accounts, variants, clock, requests, scenarios,
 * snapshots, bundles; names fixed: partners script against them), each call one of them. §10's test
 * isolation: partners.reset, partners.clock, snapshots, requests.count, bundles. §11: chaos.
 */
import type { z } from 'zod';
import type { ReportAnswer } from '../contract/control/control-journal.js';
import type { controlRoutes } from '../contract/control/control-routes.js';
import type { isolationRoutes } from '../contract/control/control-routes-isolation.js';
import type { pactRoutes } from '../contract/control/control-routes-pact.js';
import type { JournalFilters } from '../contract/control/control-schemas.js';
import { CONTROL_OPERATIONS, type ControlOperationId } from './control-operations.js';
import { CONTROL_TIMEOUT_MS, exchange, type OperationRequest, operationTarget } from './http.js';

/** The declarations (contract/control/control-routes*.ts), as types only: nothing of them is loaded. */
type Routes = typeof controlRoutes & typeof isolationRoutes & typeof pactRoutes;
type JsonSchema<T> = T extends { content: { 'application/json': { schema: infer S extends z.ZodType } } }
  ? S
  : never;
type Success<R extends { responses: object }> = R['responses'][keyof R['responses'] & (200 | 201)];
/** What an operation answers on success: its declared 2xx JSON. */
export type AnswerOf<Id extends ControlOperationId> = z.output<JsonSchema<Success<Routes[Id]>>>;
/** What an operation takes as its JSON body, as declared. */
export type BodyOf<Id extends ControlOperationId> = Routes[Id] extends { request: { body: infer B } }
  ? z.input<JsonSchema<B>>
  : never;
/** What an operation takes as its query: the declared names, each value written as text. */
export type QueryOf<Id extends ControlOperationId> = Routes[Id] extends {
  request: { query: infer Q extends z.ZodType };
}
  ? { [K in keyof z.input<Q>]?: string | number | boolean }
  : never;

export type PartnerCreateInput = BodyOf<'createPartner'>;
export type VerticalMappingInput = BodyOf<'seedVerticalMappings'>['vertical_mappings'][number];
export type VariantCreateInput = BodyOf<'addVariant'>;
export type VariantPatchInput = BodyOf<'updateVariant'>;
export type ArmInput = BodyOf<'armScenario'>;
/** A chaos profile to set: `{rate, seed, scenarios?, parent_account_id?, from_call?}` (docs/chaos.md). */
export type ChaosProfileInput = BodyOf<'setChaos'>;
/** The journal's filters, typed (status and limit as numbers): the client writes them into the query. */
export type JournalFiltersInput = z.input<typeof JournalFilters>;
export type CountFilterInput = BodyOf<'countRequests'>;
/** A bundle as `bundles.export()` returns it and `bundles.import()` takes it. */
export type BundleFile = AnswerOf<'exportBundle'>;

export type HealthView = AnswerOf<'health'>;
export type ResetView = AnswerOf<'reset'>;
export type PartnerCredentialsView = AnswerOf<'createPartner'>;
export type PartnerListView = AnswerOf<'listPartners'>;
export type MappingsView = AnswerOf<'seedVerticalMappings'>;
export type AccountView = AnswerOf<'getAccount'>;
export type VariantView = AnswerOf<'addVariant'>;
export type ClockState = AnswerOf<'getClock'>;
export type JournalView = AnswerOf<'listRequests'>;
export type ClearedView = AnswerOf<'clearRequests'>;
export type CatalogueView = AnswerOf<'listScenarios'>;
export type ArmView = AnswerOf<'armScenario'>;
export type DisarmView = AnswerOf<'disarmScenarios'>;
/** The report as JSON (its JUnit form is text). */
export type ReportView = z.output<typeof ReportAnswer>;
export type ChaosProfileSetView = AnswerOf<'setChaos'>;
export type ChaosProfilesView = AnswerOf<'getChaos'>;
export type PartnerResetView = AnswerOf<'resetPartner'>;
export type PartnerClockState = AnswerOf<'getPartnerClock'>;
export type CountView = AnswerOf<'countRequests'>;
export type SnapshotView = AnswerOf<'deleteSnapshot'>['deleted'];
export type SnapshotSavedView = AnswerOf<'saveSnapshot'>;
export type SnapshotListView = AnswerOf<'listSnapshots'>;
export type SnapshotRestoredView = AnswerOf<'restoreSnapshot'>;
export type BundleImportedView = AnswerOf<'importBundle'>;

/** The `{name}` parameters of a path template. */
type PathParams<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? { [K in N | keyof PathParams<Rest>]: string }
  : Record<never, string>;
type ParamsOf<Id extends ControlOperationId> = PathParams<(typeof CONTROL_OPERATIONS)[Id]['path']>;

/**
 * What a call of an operation carries, by the control plane's names: its path parameters
 * (required where its path has some), its query and its JSON body, where it declares them.
 */
export type InputOf<Id extends ControlOperationId> = (keyof ParamsOf<Id> extends never
  ? { params?: Record<never, string> }
  : { params: ParamsOf<Id> }) &
  ([QueryOf<Id>] extends [never] ? { query?: undefined } : { query?: QueryOf<Id> }) &
  ([BodyOf<Id>] extends [never] ? { body?: undefined } : { body?: BodyOf<Id> });

/** Every declared operation by its operationId: its input in, its declared 2xx answer out. */
export type ControlOperations = {
  [Id in ControlOperationId]: keyof ParamsOf<Id> extends never
    ? (input?: InputOf<Id>) => Promise<AnswerOf<Id>>
    : (input: InputOf<Id>) => Promise<AnswerOf<Id>>;
};

export interface ControlClientOptions {
  /**
   * Sent as `Authorization: Bearer`: the sandbox's SANDBOX_ADMIN_TOKEN, or a partner's access
   * token (POST /oauth/token), which opens that partner's own control plane (docs/hosting.md).
   */
  token?: string;
  /** SANDBOX_ADMIN_TOKEN of the sandbox, when it has one (the same as `token`, which wins). */
  adminToken?: string;
  /** How long one call may take before it fails (ControlPlaneError, status 0); default 30000 ms. */
  timeoutMs?: number;
}

/** The default of `timeoutMs`: far above any control-plane call, far below a CI job's patience. */
export { CONTROL_TIMEOUT_MS };

export interface ControlClient {
  /** The sandbox's base URL, without a trailing slash. */
  readonly url: string;
  /** Every control-plane operation by its operationId, derived from the declarations. */
  readonly operations: ControlOperations;
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
    delete(name: string): Promise<AnswerOf<'deleteSnapshot'>>;
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
  const token = options.token ?? options.adminToken;
  const timeoutMs = options.timeoutMs ?? CONTROL_TIMEOUT_MS;

  const call = caller(base, token, timeoutMs);

  /** One declared operation: its path filled in, its query written, its body sent. */
  function send(id: ControlOperationId, input: OperationRequest = {}) {
    const { method, path } = operationTarget(id, input);
    return call(method, path, input.body);
  }

  /** The operations, one per entry of the generated table. */
  const op = Object.fromEntries(
    Object.keys(CONTROL_OPERATIONS).map((id) => [
      id,
      (input?: OperationRequest) => send(id as ControlOperationId, input),
    ]),
  ) as ControlOperations;

  function report(parentAccountId: string, format?: 'json'): Promise<ReportView>;
  function report(parentAccountId: string, format: 'junit'): Promise<string>;
  function report(parentAccountId: string, format: 'json' | 'junit' = 'json') {
    const { method, path } = operationTarget('getReport', {
      query: { parent_account_id: parentAccountId, format },
    });
    return call(method, path, undefined, format === 'junit' ? 'text' : 'json');
  }

  return { url: base, operations: op, ...byConcern(op), report };
}

/** The client's methods by concern (partners, accounts, clock, requests, ...), each one declared operation. */
function byConcern(op: ControlOperations): Omit<ControlClient, 'url' | 'operations' | 'report'> {
  return {
    health: () => op.health(),
    reset: () => op.reset(),
    partners: {
      list: () => op.listPartners(),
      create: (partner = {}) => op.createPartner({ body: partner }),
      seedMappings: (parent, mappings) =>
        op.seedVerticalMappings({
          params: { parent_account_id: parent },
          body: { vertical_mappings: mappings },
        }),
      unseedMappings: (parent) => op.unseedVerticalMappings({ params: { parent_account_id: parent } }),
      reset: (parent) => op.resetPartner({ params: { parent_account_id: parent } }),
      clock: {
        get: (parent) => op.getPartnerClock({ params: { parent_account_id: parent } }),
        advance: (parent, seconds) =>
          op.advancePartnerClock({ params: { parent_account_id: parent }, body: { seconds } }),
      },
    },
    accounts: {
      get: (accountId) => op.getAccount({ params: { account_id: accountId } }),
    },
    variants: {
      add: (accountId, variant) => op.addVariant({ params: { account_id: accountId }, body: variant }),
      update: (variantId, patch) => op.updateVariant({ params: { variant_id: variantId }, body: patch }),
    },
    clock: {
      get: () => op.getClock(),
      advance: (seconds) => op.advanceClock({ body: { seconds } }),
    },
    requests: {
      list: (filters = {}) => op.listRequests({ query: filters }),
      clear: () => op.clearRequests(),
      count: async (filter = {}) => (await op.countRequests({ body: filter })).count,
    },
    snapshots: {
      save: (name) => op.saveSnapshot({ body: { name } }),
      list: () => op.listSnapshots(),
      restore: (name) => op.restoreSnapshot({ params: { name } }),
      delete: (name) => op.deleteSnapshot({ params: { name } }),
    },
    bundles: {
      export: (parent) => op.exportBundle({ params: { parent_account_id: parent } }),
      // A bundle read from a file is checked by the sandbox, not here.
      import: (bundle) => op.importBundle({ body: bundle as BodyOf<'importBundle'> }),
    },
    scenarios: {
      list: () => op.listScenarios(),
      arm: (scenario) => op.armScenario({ body: scenario }),
      disarm: () => op.disarmScenarios(),
    },
    chaos: {
      set: (profile) => op.setChaos({ body: profile }),
      get: () => op.getChaos(),
      end: (parent) => op.endChaos(parent === undefined ? {} : { query: { parent_account_id: parent } }),
    },
  };
}

/**
 * The client's one call (client/http.ts) to the sandbox at `base`; its answer must be JSON (a
 * report in JUnit XML is text).
 */
function caller(base: string, token: string | undefined, timeoutMs: number) {
  return async function call<T>(
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
    let res: Response;
    let text: string;
    try {
      ({ res, text } = await exchange(base, method, path, body, { token, timeoutMs }));
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
  };
}
