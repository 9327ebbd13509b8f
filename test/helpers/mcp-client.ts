/** The SDK's own MCP client, spawning `partnership-sandbox mcp …` (docs/coding-agents.md). */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { packageDir } from '../../src/base/package-dir.js';

/** The command line from source (tsx); test/mcp/mcp-bin.test.ts passes the built dist/main.js instead. */
export const FROM_SOURCE = [
  join(packageDir, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
  join(packageDir, 'src', 'main.ts'),
];

/** The environment without the sandbox's own settings (SANDBOX_ADMIN_TOKEN among them). */
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    (e): e is [string, string] => e[1] !== undefined && !/^(PORT|HOST|SANDBOX_)/.test(e[0]),
  ),
);

/** An SDK client connected to `partnership-sandbox mcp …args`. */
export async function mcpClient(
  args: string[],
  command: string[] = FROM_SOURCE,
  env: Record<string, string> = {},
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...command, 'mcp', ...args],
    env: { ...baseEnv, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
