/**
 * Configuration: SANDBOX.md §2 env vars and flags, parsed once with zod. A bad value
 * stops start-up with a message naming the variable or flag.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { StartupError } from './startup-error.js';

export const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const defaultFixturesDir = fileURLToPath(new URL('../fixtures', import.meta.url));
export const builtInPresetsDir = fileURLToPath(new URL('../scenarios', import.meta.url));

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

export const ConfigSchema = z.object({
  port: int(0, 65535).default(4010),
  host: z.string().min(1).default('127.0.0.1'),
  db: z.string().min(1).default(':memory:'),
  fixtures: z.string().min(1).default(defaultFixturesDir),
  scenarios: z.string().min(1).optional(),
  adminToken: z.string().min(1).optional(),
  authPropagationSeconds: int(0, 86_400).default(0),
  strictIdempotency: flag.default(false),
  tokenTtlSeconds: int(1, 7 * 86_400).default(3600),
  journalMax: int(1, 100_000).default(1000),
  bodyLimitBytes: int(1024, 16 * 1024 * 1024).default(256 * 1024),
  log: z.enum(['info', 'silent']).default('info'),
  /** A bundle file (SANDBOX.md §10) loaded at start-up. */
  seed: z.string().min(1).optional(),
});
export type Config = z.infer<typeof ConfigSchema>;

/** Where each setting comes from, so an error names what the user actually set. */
const sources: Record<keyof Config, { env: string; flag?: string }> = {
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
  bodyLimitBytes: { env: 'SANDBOX_BODY_LIMIT_BYTES' },
  log: { env: 'SANDBOX_LOG' },
  seed: { env: 'SANDBOX_SEED', flag: '--seed' },
};

export const USAGE = `Usage: partnership-sandbox [--port N] [--host H] [--db PATH|:memory:] [--fixtures DIR] [--scenarios DIR] [--seed FILE]
Environment: ${Object.values(sources)
  .map((s) => s.env)
  .join(', ')} (see README "Configuration").`;

/** Parses flags (win over env) and env into a Config, or throws a StartupError naming the bad setting. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Config {
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
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (e) {
    throw new StartupError(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new StartupError(USAGE);

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
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0]);
      return `${origin[key] ?? key}=${JSON.stringify(raw[key])}: ${issue.message}`;
    });
    throw new StartupError(`invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
