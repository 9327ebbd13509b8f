/**
 * Configuration: docs/configuration.md env vars and flags, parsed once with zod. A bad value
 * stops start-up with a message naming the variable or flag.
 */
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { z } from 'zod';
import { argsProblem } from '../base/cli-args.js';
import { defaultFixturesDir } from '../base/package-dir.js';
import { StartupError } from '../base/startup-error.js';
import { JOURNAL_BODY_MAX_BYTES } from '../contract/control/bundle.js';
import { builtIn } from '../scenarios/catalogue.js';
import { chaosScenarioProblem, parseChaosSpec } from '../scenarios/chaos.js';
import { parseRateLimit } from './rate-limit.js';

/** A whole number in a range, said in the sandbox's words ("PORT=\"abc\": must be a whole number from 0 to 65535"), never zod's. */
export const wholeNumberMessage = (min: number, max: number) =>
  `must be a whole number from ${min} to ${max}`;
const int = (min: number, max: number) => {
  const error = wholeNumberMessage(min, max);
  // Digits only, as the message says: Number() alone would take "0x10", "1e3" and " 16".
  const digits = (v: unknown) => (typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : v);
  return z.preprocess(digits, z.number({ error }).int({ error }).min(min, { error }).max(max, { error }));
};
const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** The longest SANDBOX_ADMIN_TOKEN accepted: far above any generated secret, far below a header limit. */
export const ADMIN_TOKEN_MAX_CHARS = 1024;

/**
 * Why a SANDBOX_ADMIN_TOKEN could never be sent as `Authorization: Bearer <token>` (the
 * guard reads one run of visible characters; headers arrive as latin1), or undefined when
 * it can. Such a token would lock the control plane for good. Never quotes the token.
 */
export function adminTokenProblem(token: string): string | undefined {
  if (token.length > ADMIN_TOKEN_MAX_CHARS) return `it is ${token.length} characters long`;
  if (/\s/.test(token)) return 'it contains whitespace';
  if ([...token].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\u007f'))
    return 'it contains a control character';
  if (/[^\x21-\x7e]/.test(token)) return 'it contains a non-ASCII character';
  return undefined;
}

/** SANDBOX_ADMIN_TOKEN and startSandbox({adminToken}): one rule (see adminTokenProblem). */
export const AdminTokenSchema = z
  .string()
  .min(1)
  .superRefine((token, ctx) => {
    const problem = adminTokenProblem(token);
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `must be what an Authorization: Bearer header can carry: 1 to ${ADMIN_TOKEN_MAX_CHARS} visible ASCII characters (! to ~), no spaces; ${problem}`,
      });
    }
  });

/**
 * SANDBOX_CHAOS and startSandbox({chaos}): `rate=0.1,seed=42[,scenarios=a+b]`. Built-in names
 * are checked here; another name must be a preset, which createSandbox checks once they load.
 */
export const ChaosSpecSchema = z
  .string()
  .min(1)
  .superRefine((text, ctx) => {
    try {
      for (const name of parseChaosSpec(text).scenarios) {
        const problem = builtIn(name) ? chaosScenarioProblem(name, new Map()) : undefined;
        if (problem) ctx.addIssue({ code: 'custom', message: `scenarios: ${problem}` });
      }
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  });

/** SANDBOX_RATE_LIMIT and startSandbox({rateLimit}): `<calls per second>[,burst=<n>]` (core/rate-limit.ts). */
export const RateLimitSchema = z.string().superRefine((text, ctx) => {
  try {
    parseRateLimit(text);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
  }
});

/** SANDBOX_CELL and startSandbox({cell}): a DNS label of a-z, 0-9 and - (docs/hosting.md). */
export const CellSchema = z
  .string()
  .regex(/^[a-z0-9-]{1,63}$/, { error: 'must be a DNS label: 1 to 63 of a-z, 0-9 and -' });

/** Settings whose value is never repeated in an error message. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set(['adminToken']);

/**
 * The journals' budget when none is set: 256 MiB, or a quarter of V8's heap limit when that is
 * less. In a container of 512 MiB, Node gives the heap 259 MB: a 256 MiB journal beside a
 * cell's partners and caches ran the process out of heap (docs/hosting.md, "Sizing a cell").
 */
export function defaultJournalBudgetMb(): number {
  const quarter = Math.floor(getHeapStatistics().heap_size_limit / 4 / (1024 * 1024));
  return Math.max(1, Math.min(256, quarter));
}

export const ConfigSchema = z.object({
  port: int(0, 65535).default(4010),
  host: z.string().min(1).default('127.0.0.1'),
  db: z.string().min(1).default(':memory:'),
  fixtures: z.string().min(1).default(defaultFixturesDir),
  scenarios: z.string().min(1).optional(),
  adminToken: AdminTokenSchema.optional(),
  authPropagationSeconds: int(0, 86_400).default(0),
  strictIdempotency: flag.default(false),
  tokenTtlSeconds: int(1, 7 * 86_400).default(3600),
  journalMax: int(1, 100_000).default(1000),
  /** The memory all partners' journals may hold together, in MiB (estimated); past it the fullest loses its oldest. */
  journalBudgetMb: int(1, 1024 * 1024).default(defaultJournalBudgetMb),
  /** How much of each request and response body the journal keeps (redacted, then cut); 0 keeps none. */
  journalBodyBytes: int(0, JOURNAL_BODY_MAX_BYTES).default(16 * 1024),
  bodyLimitBytes: int(1024, 16 * 1024 * 1024).default(256 * 1024),
  /** How long a request (headers and body) may take to arrive; then 408 and the connection closes. */
  requestTimeoutSeconds: int(1, 3600).default(30),
  log: z.enum(['info', 'silent']).default('info'),
  /** A bundle file (docs/parallel-tests.md) loaded at start-up. */
  seed: z.string().min(1).optional(),
  /** A chaos profile for every partner (docs/chaos.md). */
  chaos: ChaosSpecSchema.optional(),
  /** Each partner's fair share of calls (docs/hosting.md); unset, no limit. */
  rateLimit: RateLimitSchema.optional(),
  /** This sandbox's cell, shown by health and the report (docs/hosting.md). */
  cell: CellSchema.optional(),
});
export type Config = z.infer<typeof ConfigSchema>;

/** Where each setting comes from, so an error names what the user actually set. */
export const sources: Record<keyof Config, { env: string; flag?: string }> = {
  port: { env: 'PORT', flag: '--port' },
  host: { env: 'HOST', flag: '--host' },
  db: { env: 'SANDBOX_DB', flag: '--db' },
  fixtures: { env: 'SANDBOX_FIXTURES', flag: '--fixtures' },
  scenarios: { env: 'SANDBOX_SCENARIOS', flag: '--scenarios' },
  adminToken: { env: 'SANDBOX_ADMIN_TOKEN' },
  authPropagationSeconds: { env: 'SANDBOX_AUTH_PROPAGATION_SECONDS' },
  strictIdempotency: { env: 'SANDBOX_STRICT_IDEMPOTENCY' },
  tokenTtlSeconds: { env: 'SANDBOX_TOKEN_TTL_SECONDS' },
  journalMax: { env: 'SANDBOX_JOURNAL_MAX' },
  journalBudgetMb: { env: 'SANDBOX_JOURNAL_BUDGET_MB' },
  journalBodyBytes: { env: 'SANDBOX_JOURNAL_BODY_BYTES' },
  bodyLimitBytes: { env: 'SANDBOX_BODY_LIMIT_BYTES' },
  requestTimeoutSeconds: { env: 'SANDBOX_REQUEST_TIMEOUT_SECONDS' },
  log: { env: 'SANDBOX_LOG' },
  seed: { env: 'SANDBOX_SEED', flag: '--seed' },
  chaos: { env: 'SANDBOX_CHAOS', flag: '--chaos' },
  rateLimit: { env: 'SANDBOX_RATE_LIMIT', flag: '--rate-limit' },
  cell: { env: 'SANDBOX_CELL', flag: '--cell' },
};

/**
 * Where the help's /docs/guides/<page> are: the manual is served by the sandbox itself (the
 * package ships no Markdown), so the help names its pages there.
 */
export const MANUAL_NOTE =
  'The manual: /docs/guides/<page> on a running sandbox (http://127.0.0.1:4010/docs/guides/ by default).';

export const USAGE = `Usage: partnership-sandbox [--port N] [--host H] [--db PATH|:memory:] [--fixtures DIR] [--scenarios DIR] [--seed FILE] [--chaos SPEC]
                          [--rate-limit SPEC] [--cell NAME]
       partnership-sandbox --help | --version   (mcp --help, record --help, verify --help: their flags)
       partnership-sandbox mcp --url URL [--admin-token T | --token T]
                        (an MCP server for coding agents: /docs/guides/coding-agents)
       partnership-sandbox record --upstream URL [--port P] [--host H] [--out FILE]
                        (a recording proxy: /docs/guides/drift)
       partnership-sandbox verify FILE [--url URL] [--admin-token T] [--report F.json] [--junit F.xml] [--messages]
                        (replay a recording against the sandbox and compare: /docs/guides/drift)
  --port N         port to listen on (env PORT; default 4010; 0 takes a free one)
  --host H         address to listen on (env HOST; default 127.0.0.1)
  --db PATH        SQLite store (env SANDBOX_DB; default :memory:; a path makes it durable)
  --fixtures DIR   partners, taxonomy, preset and pages (env SANDBOX_FIXTURES; default: the package's fixtures/)
  --scenarios DIR  extra scenario presets (env SANDBOX_SCENARIOS)
  --seed FILE      a bundle to load at start-up (env SANDBOX_SEED; see /docs/guides/parallel-tests)
  --chaos SPEC     fail a share of every partner's calls: rate=0.1,seed=42[,scenarios=server-error+rate-limited]
                   (env SANDBOX_CHAOS; see /docs/guides/chaos)
  --rate-limit SPEC  each partner's calls per second: 25 or 25,burst=50 (env SANDBOX_RATE_LIMIT; /docs/guides/hosting)
  --cell NAME      this sandbox's cell, shown by health and the report (env SANDBOX_CELL; /docs/guides/hosting)
The first line on stdout carries the URL served. SIGINT and SIGTERM drain and exit 0.
Environment: ${Object.values(sources)
  .map((s) => s.env)
  .join(', ')} (see /docs/guides/configuration).
${MANUAL_NOTE}`;

/**
 * What the command line asks for: help, the version, or a sandbox with this configuration
 * and the warnings to print once it serves (one line each).
 */
export type Command =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; config: Config; warnings: string[] };

/** An empty SANDBOX_ADMIN_TOKEN (a CI secret that is not there) leaves the control plane open: said once. */
export const EMPTY_ADMIN_TOKEN_WARNING =
  'warning: SANDBOX_ADMIN_TOKEN is empty, so the control plane is open (no token is required); set a token to protect it, or unset the variable to silence this';

/** Parses flags (win over env) and env, or throws a StartupError naming the bad setting. */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): Command {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        db: { type: 'string' },
        fixtures: { type: 'string' },
        scenarios: { type: 'string' },
        seed: { type: 'string' },
        chaos: { type: 'string' },
        'rate-limit': { type: 'string' },
        cell: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
    }));
  } catch (e) {
    throw new StartupError(argsProblem(e));
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const raw: Record<string, unknown> = {};
  const origin: Record<string, string> = {};
  for (const [key, source] of Object.entries(sources)) {
    const fromFlag = source.flag ? values[source.flag.slice(2)] : undefined;
    const fromEnv = env[source.env];
    if (fromFlag !== undefined) {
      raw[key] = fromFlag;
      origin[key] = source.flag!;
    } else if (fromEnv !== undefined && fromEnv !== '') {
      raw[key] = fromEnv;
      origin[key] = source.env;
    }
  }
  // Parsed once at start-up: zod's compiled fast path would cost more to build than it saves.
  const parsed = ConfigSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0]);
      const given = SECRET_SETTINGS.has(key) ? '' : `=${JSON.stringify(raw[key])}`;
      return `${origin[key] ?? key}${given}: ${issue.message}`;
    });
    throw new StartupError(`invalid configuration: ${problems.join('; ')}`);
  }
  const warnings = env.SANDBOX_ADMIN_TOKEN === '' ? [EMPTY_ADMIN_TOKEN_WARNING] : [];
  return { kind: 'run', config: parsed.data, warnings };
}

/** The configuration of flags and env; `--help` and `--version` throw the usage (for tests and tools). */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Config {
  const command = parseCommandLine(argv, env);
  if (command.kind !== 'run') throw new StartupError(USAGE);
  return command.config;
}
