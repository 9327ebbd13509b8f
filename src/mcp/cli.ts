/**
 * The `mcp` subcommand of the command line (docs/coding-agents.md): flags to options, then an
 * MCP server on stdin and stdout until the client closes them. stdout is the protocol's own
 * channel: nothing else is written there.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StartupError } from '../base/startup-error.js';
import { packageVersion } from '../package-dir.js';
import { type McpOptions, startMcpServer } from './server.js';

export const MCP_USAGE = `Usage: partnership-sandbox mcp --url URL [--admin-token T]
  An MCP (Model Context Protocol) server over stdio for the sandbox running at URL: its tools are
  the control plane's operations (the journal, the report, scenarios, chaos, a partner's reset,
  the clocks), its resources the manual's pages. See docs/coding-agents.md.
  --url URL          the sandbox's base URL, e.g. http://127.0.0.1:4010
  --admin-token T    its SANDBOX_ADMIN_TOKEN, when it has one (env SANDBOX_ADMIN_TOKEN)`;

/** The options of `mcp`, or undefined for --help; a StartupError names what is wrong. */
export function parseMcpArgs(argv: readonly string[], env: NodeJS.ProcessEnv): McpOptions | undefined {
  let values: { url?: string; 'admin-token'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        url: { type: 'string' },
        'admin-token': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new StartupError(`mcp: ${(e as Error).message}\n${MCP_USAGE}`);
  }
  if (values.help) return undefined;
  if (values.url === undefined) throw new StartupError(`mcp: --url is required\n${MCP_USAGE}`);
  let url: URL;
  try {
    url = new URL(values.url);
  } catch {
    throw new StartupError(
      `mcp: --url ${JSON.stringify(values.url)} is not a URL (e.g. http://127.0.0.1:4010)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new StartupError(`mcp: --url must be an http or https URL, not ${url.protocol}`);
  const adminToken = values['admin-token'] ?? (env.SANDBOX_ADMIN_TOKEN || undefined);
  return { url: url.href, adminToken, version: packageVersion() };
}

/**
 * Runs `partnership-sandbox mcp …`: serves until stdin closes or a signal comes, then exits 0;
 * a bad flag exits 2 with one line (and the usage) on stderr. Said here, not by main.ts: this
 * module is a bundle of its own, whose StartupError is not main.ts's.
 */
export async function runMcp(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  let options: McpOptions | undefined;
  try {
    options = parseMcpArgs(argv, env);
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    console.error(`partnership-sandbox: ${err.message}`);
    process.exit(2);
  }
  if (!options) return void console.log(MCP_USAGE);
  const mcp = await startMcpServer(options, new StdioServerTransport());
  // The client closed stdin (or asked us to stop): the calls in flight answer first.
  const exit = () => void mcp.close().finally(() => process.exit(0));
  process.stdin.on('end', exit);
  process.on('SIGINT', exit);
  process.on('SIGTERM', exit);
}
