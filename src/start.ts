/**
 * startSandbox() (docs/in-your-ci.md): a sandbox in this process, for a test runner's global
 * setup. Port 0 (a free one) and an in-memory store by default, so several can run in one
 * process, each with its own state. Options are validated; a bad one rejects naming it.
 */
import { z } from 'zod';
import { StartupError } from './base/startup-error.js';
import { type ControlClient, createControlClient } from './client/control-client.js';
import {
  AdminTokenSchema,
  CellSchema,
  ChaosSpecSchema,
  type Config,
  ConfigSchema,
  RateLimitSchema,
  SECRET_SETTINGS,
  sources,
  wholeNumberMessage,
} from './core/config.js';
import { unsupportedRuntime } from './runtime.js';
import { startServer } from './server.js';
import { jsonLogger } from './state/index.js';

/** Where the sandbox's log lines go, when `log` is an object: one call per line. */
export interface SandboxLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface SandboxOptions {
  /** Port to listen on; 0 (the default) takes a free one. */
  port?: number;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** SQLite store: ':memory:' (the default) or a file path, which makes it durable. */
  db?: string;
  /** A fixtures folder (partners, taxonomy, preset, pages); default: the package's fixtures/. */
  fixtures?: string;
  /** A folder of extra scenario presets (JSON), beside the built-in ones. */
  scenarios?: string;
  /**
   * Protects the control plane (`Authorization: Bearer`); `control` sends it. Visible ASCII
   * without spaces, at most 1024 characters (what the header can carry); else start rejects.
   */
  adminToken?: string;
  /** Auth propagation window for new accounts, in sandbox-clock seconds; default 0. */
  authPropagationSeconds?: number;
  /** 422 instead of a replay when a stored Idempotency-Key comes with another payload. */
  strictIdempotency?: boolean;
  /**
   * A chaos profile for every partner (docs/chaos.md), as SANDBOX_CHAOS spells it:
   * `rate=0.1,seed=42`, optionally `,scenarios=server-error+rate-limited`.
   */
  chaos?: string;
  /**
   * Each partner's fair share of partnership and token calls, as SANDBOX_RATE_LIMIT spells it:
   * `<calls per second>[,burst=<n>]`, e.g. `'25'` or `'25,burst=50'` (docs/hosting.md); unset, no limit.
   */
  rateLimit?: string;
  /** This sandbox's cell (SANDBOX_CELL): a DNS label shown by health and the report (docs/hosting.md). */
  cell?: string;
  /** A bundle file (docs/parallel-tests.md) loaded at start-up, as SANDBOX_SEED. */
  seed?: string;
  /** Token lifetime in sandbox-clock seconds (SANDBOX_TOKEN_TTL_SECONDS); default 3600. */
  tokenTtlSeconds?: number;
  /** How many journal entries are kept (SANDBOX_JOURNAL_MAX); default 1000. */
  journalMax?: number;
  /** The memory all partners' journals may hold together, in MiB (SANDBOX_JOURNAL_BUDGET_MB); default 256. */
  journalBudgetMb?: number;
  /** How much of each body the journal keeps, 0 to 1048576 (SANDBOX_JOURNAL_BODY_BYTES); default 16384. */
  journalBodyBytes?: number;
  /** The request body limit in bytes (SANDBOX_BODY_LIMIT_BYTES); default 262144. */
  bodyLimitBytes?: number;
  /** How long a request may take to arrive (SANDBOX_REQUEST_TIMEOUT_SECONDS); default 30. */
  requestTimeoutSeconds?: number;
  /** false (the default): no log; true: JSON lines on stdout; or a logger of your own. */
  log?: boolean | SandboxLogger;
}

export interface RunningSandbox {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** A control-plane client for this sandbox (with its admin token). */
  readonly control: ControlClient;
  /** Wipes all state, loads the fixtures again, resets the clock (as POST /__sandbox/reset). */
  reset(): Promise<void>;
  /** Drains in-flight requests, closes the store and frees the port. */
  stop(): Promise<void>;
}

/** A whole number option in a range (a number, not digits as the environment sends), worded as the settings are. */
const wholeNumber = (min: number, max: number) => {
  const error = wholeNumberMessage(min, max);
  return z.int({ error }).min(min, { error }).max(max, { error }).optional();
};

const sameRange = (setting: z.ZodDefault<z.ZodPreprocess<z.ZodNumber>>) => {
  const range = setting.unwrap().out;
  return wholeNumber(range.minValue ?? 0, range.maxValue ?? Number.MAX_SAFE_INTEGER);
};

const Options = z.strictObject({
  port: wholeNumber(0, 65_535),
  host: z.string().min(1).optional(),
  db: z.string().min(1).optional(),
  fixtures: z.string().min(1).optional(),
  scenarios: z.string().min(1).optional(),
  adminToken: AdminTokenSchema.optional(),
  authPropagationSeconds: wholeNumber(0, 86_400),
  strictIdempotency: z.boolean().optional(),
  chaos: ChaosSpecSchema.optional(),
  rateLimit: RateLimitSchema.optional(),
  cell: CellSchema.optional(),
  // The settings the environment has too, with the same ranges (core/config.ts).
  seed: ConfigSchema.shape.seed,
  tokenTtlSeconds: sameRange(ConfigSchema.shape.tokenTtlSeconds),
  journalMax: sameRange(ConfigSchema.shape.journalMax),
  journalBudgetMb: sameRange(ConfigSchema.shape.journalBudgetMb),
  journalBodyBytes: sameRange(ConfigSchema.shape.journalBodyBytes),
  bodyLimitBytes: sameRange(ConfigSchema.shape.bodyLimitBytes),
  requestTimeoutSeconds: sameRange(ConfigSchema.shape.requestTimeoutSeconds),
  log: z
    .custom<boolean | SandboxLogger>(
      (v) =>
        typeof v === 'boolean' ||
        (typeof v === 'object' &&
          v !== null &&
          typeof (v as SandboxLogger).info === 'function' &&
          typeof (v as SandboxLogger).error === 'function'),
      { error: 'must be a boolean or an object with info() and error()' },
    )
    .optional(),
});

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  // Before the store is opened: on Node 20 better-sqlite3 kills the process without a word.
  const unsupported = unsupportedRuntime(process.versions.node);
  if (unsupported) throw new StartupError(`startSandbox: ${unsupported}`);
  // Parsed once a start-up, as the configuration is (core/config.ts): zod's compiled fast
  // path (a `new Function` per object schema) would cost more to build than it saves.
  const parsed = Options.safeParse(options ?? {}, { jitless: true });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.');
      const given =
        issue.code === 'unrecognized_keys' || SECRET_SETTINGS.has(key)
          ? ''
          : `=${JSON.stringify(issue.path.length ? (options as Record<string, unknown>)[String(issue.path[0])] : options)}`;
      return `${key}${given}: ${issue.message}`;
    });
    throw new StartupError(`startSandbox: invalid option ${problems.join('; ')}`);
  }
  const { log, strictIdempotency, ...settings } = parsed.data;
  const config = ConfigSchema.parse(
    {
      port: 0,
      ...settings,
      // The configuration reads flags as the environment spells them.
      ...(strictIdempotency === undefined ? {} : { strictIdempotency: strictIdempotency ? '1' : '0' }),
      log: log === true ? 'info' : 'silent',
    },
    { jitless: true },
  );
  const logger = typeof log === 'object' ? log : jsonLogger(log === true);
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(config, logger);
  } catch (err) {
    throw asOptionError(err);
  }
  running.sandbox.log.info('sandbox listening', { url: running.url, db: config.db });
  let stopped: Promise<void> | undefined;
  const live = () => {
    if (stopped) throw new StartupError(`startSandbox: the sandbox at ${running.url} was stopped`);
  };
  let control: ControlClient | undefined;
  return {
    url: running.url,
    port: running.port,
    // Made on first use: a start-up whose caller never asks for it does not build it.
    get control() {
      control ??= createControlClient(
        running.url,
        config.adminToken ? { adminToken: config.adminToken } : {},
      );
      return control;
    },
    reset: async () => {
      live();
      running.sandbox.reset();
    },
    stop: () => {
      stopped ??= running.close().then(() => running.sandbox.log.info('stopped', { url: running.url }));
      return stopped;
    },
  };
}

/** The options a start-up error can be about, named as the caller passed them (not PORT or --port). */
const OPTION_SETTINGS = [
  'port',
  'host',
  'db',
  'fixtures',
  'scenarios',
  'chaos',
  'seed',
] as const satisfies (keyof Config)[];

/** A StartupError names the CLI's setting (`PORT (--port)=0: …`); here it names the option first. */
function asOptionError(err: unknown): unknown {
  if (!(err instanceof StartupError)) return err;
  for (const option of OPTION_SETTINGS) {
    const { env, flag } = sources[option];
    const label = `${env}${flag ? ` (${flag})` : ''}=`;
    // `SANDBOX_SEED/--seed FILE: …` names a file setting that way
    for (const prefix of [label, `${env}=`, ...(flag ? [`${env}/${flag} `] : [])]) {
      if (err.message.startsWith(prefix)) {
        // The setting's own name stays, in brackets: it is what the sandbox's documents use.
        return new StartupError(
          `startSandbox: option ${option} (${env})=${err.message.slice(prefix.length)}`,
          { cause: err },
        );
      }
    }
  }
  return err;
}
