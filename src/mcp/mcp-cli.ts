/**
 * The `mcp` subcommand of the command line (docs/coding-agents.md): flags to options, then an
 * MCP server on stdin and stdout until the client closes them. stdout is the protocol's own
 * channel: nothing else is written there. A bad flag exits 2 with one line on stderr.
 */
import { parseArgs } from 'node:util';
import { argsProblem } from '../base/cli-args.js';
import { packageVersion } from '../base/package-dir.js';
import { StartupError } from '../base/startup-error.js';
import { type McpOptions, startMcpServer } from './mcp-server.js';
import { LineTransport } from './stdio.js';

export const MCP_USAGE = `Usage: partnership-sandbox mcp --url URL [--admin-token T | --token T]
  An MCP (Model Context Protocol) server over stdio for the sandbox running at URL: its tools are
  the control plane's operations (the journal, the report, scenarios, chaos, a partner's reset,
  the clocks), its resources the manual's pages. The manual: URL/docs/guides/coding-agents.
  --url URL          the sandbox's base URL, e.g. http://127.0.0.1:4010 (scheme, host and port only)
  --admin-token T    its SANDBOX_ADMIN_TOKEN, when it has one (env SANDBOX_ADMIN_TOKEN)
  --token T          or a partner's access token (from POST /oauth/token): the tools then act
                     for that partner alone (a hosted sandbox)`;

/** A URL as it may be shown: user and password, if any, left out. */
const shown = (raw: string) => raw.replace(/\/\/[^/?#@]*@/, '//[credentials]@');

/** The sandbox's base URL from --url: http(s), scheme, host and port only; else a StartupError. */
function baseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StartupError(`--url ${JSON.stringify(shown(raw))} is not a URL (e.g. http://127.0.0.1:4010)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new StartupError(`--url must be an http or https URL, not ${url.protocol}`);
  if (url.username || url.password)
    throw new StartupError(
      '--url carries a user or password: give the sandbox a token instead (--admin-token or --token), never credentials in the URL',
    );
  // Every tool's path is put after the origin: a path, query or fragment would send each call elsewhere.
  if (url.pathname !== '/' || url.search || url.hash)
    throw new StartupError(
      `--url ${JSON.stringify(raw)} has a path, query or fragment: give the sandbox's base URL, ${url.origin} (the first line it prints)`,
    );
  return url.origin;
}

/** The options of `mcp`, or undefined for --help; a StartupError names what is wrong, in one line. */
export function parseMcpArgs(argv: readonly string[], env: NodeJS.ProcessEnv): McpOptions | undefined {
  let values: { url?: string; 'admin-token'?: string; token?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        url: { type: 'string' },
        'admin-token': { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new StartupError(argsProblem(e));
  }
  if (values.help) return undefined;
  if (values.url === undefined) throw new StartupError('--url URL is required (see --help)');
  const url = baseUrl(values.url);
  if (values['admin-token'] !== undefined && values.token !== undefined)
    throw new StartupError(
      '--admin-token and --token exclude each other: the admin token opens every partner, a partner token one',
    );
  for (const flag of ['admin-token', 'token'] as const) {
    if (values[flag] === '') throw new StartupError(`--${flag} is empty`);
  }
  // A partner's --token wins over SANDBOX_ADMIN_TOKEN in the environment: the flag says who acts.
  if (values.token !== undefined) return { url, token: values.token, version: packageVersion() };
  const adminToken = values['admin-token'] ?? (env.SANDBOX_ADMIN_TOKEN || undefined);
  return { url, adminToken, version: packageVersion() };
}

/**
 * Runs `partnership-sandbox mcp …`: serves until stdin closes or a signal comes, then exits 0;
 * a bad flag exits 2 with one line on stderr. Said here, not by main.ts: this module is a
 * bundle of its own, whose StartupError is not main.ts's.
 */
export async function runMcp(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  let options: McpOptions | undefined;
  try {
    options = parseMcpArgs(argv, env);
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    console.error(`partnership-sandbox mcp: ${err.message}`);
    process.exit(2);
  }
  if (!options) return void console.log(MCP_USAGE);
  const mcp = await startMcpServer(options, new LineTransport());
  // The client closed stdin (or asked us to stop): the calls in flight answer first.
  const exit = () => void mcp.close().finally(() => process.exit(0));
  process.stdin.on('end', exit);
  process.on('SIGINT', exit);
  process.on('SIGTERM', exit);
}
