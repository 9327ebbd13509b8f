/**
 * The built bin's `mcp` subcommand (`node dist/main.js mcp --url URL`, docs/coding-agents.md):
 * the SDK's client spawning it against a started sandbox, the manual bundled as Markdown, a
 * client that writes its requests and closes stdin still gets every answer, the usage and its
 * errors, and the sandbox's own bundle carrying nothing of the MCP SDK (dist/mcp.js does).
 */
import { execSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPOSED } from '../src/mcp/tools.js';
import { packageDir } from '../src/package-dir.js';
import { type RunningSandbox, startSandbox } from '../src/start.js';
import { mcpClient } from './mcp-client.js';

const MAIN = join(packageDir, 'dist', 'main.js');

let sandbox: RunningSandbox;
let client: Client;
beforeAll(async () => {
  if (!existsSync(join(packageDir, 'dist', 'mcp.js')))
    execSync('npm run build', { cwd: packageDir, stdio: 'ignore' });
  sandbox = await startSandbox();
  client = await mcpClient(['--url', sandbox.url], [MAIN]);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await sandbox?.stop();
});

const run = (args: string[]) =>
  spawnSync(process.execPath, [MAIN, 'mcp', ...args], { encoding: 'utf8', timeout: 15_000 });

/** Runs `mcp` with `input` on stdin, then closes it; asynchronously, as the sandbox it calls runs in this process. */
function runWithInput(args: string[], input: string): Promise<{ status: number | null; stdout: string }> {
  const child = spawn(process.execPath, [MAIN, 'mcp', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((done) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout });
    }),
  );
}

describe('node dist/main.js mcp', () => {
  it('serves the tools and the manual (Markdown bundled) to the SDK client', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...EXPOSED, 'listWarnings']);
    const clock = (await client.callTool({ name: 'getClock', arguments: {} })) as unknown as {
      structuredContent: { offset_seconds: number };
    };
    expect(clock.structuredContent.offset_seconds).toBe(0);
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(10);
    const page = await client.readResource({ uri: `${sandbox.url}/docs/guides/coding-agents` });
    expect((page.contents[0] as { text: string }).text).toContain('# Coding agents');
  });

  it('a client that writes its requests and closes stdin gets every answer, then the server exits 0', async () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getClock', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    ];
    const r = await runWithInput(
      ['--url', sandbox.url],
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );
    expect(r.status).toBe(0);
    const answers = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // stdout carries the protocol only: one JSON-RPC answer per request
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(answers.find((a) => a.id === 2).result.structuredContent).toHaveProperty('now');
  });

  it('--help prints the usage; a missing or bad --url exits 2 with the reason on stderr', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: partnership-sandbox mcp --url URL [--admin-token T]');
    for (const [args, reason] of [
      [[], 'mcp: --url is required'],
      [['--url', 'not a url'], 'mcp: --url "not a url" is not a URL'],
      [['--url', 'ftp://x'], 'mcp: --url must be an http or https URL, not ftp:'],
      [['--url', 'http://x', '--port', '1'], "Unknown option '--port'"],
    ] as const) {
      const r = run([...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(reason);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it('the sandbox’s bundle leaves the MCP SDK out: only `mcp` loads dist/mcp.js', () => {
    expect(readFileSync(MAIN, 'utf8')).not.toContain('notifications/initialized');
    expect(readFileSync(join(packageDir, 'dist', 'mcp.js'), 'utf8')).toContain('notifications/initialized');
    expect(spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' }).stdout).toContain(
      'partnership-sandbox mcp --url URL',
    );
  });
});
