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
import { packageDir } from '../../src/base/package-dir.js';
import { EXPOSED } from '../../src/mcp/tools.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { mcpClient } from '../helpers/mcp-client.js';

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

  it('--help prints the usage; a missing or bad flag exits 2 with one line on stderr, nothing on stdout', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: partnership-sandbox mcp --url URL [--admin-token T | --token T]');
    for (const [args, reason] of [
      [[], '--url URL is required (see --help)'],
      [['--url', 'not a url'], '--url "not a url" is not a URL (e.g. http://127.0.0.1:4010)'],
      [['--url', 'ftp://x'], '--url must be an http or https URL, not ftp:'],
      [['--url', 'http://x', '--port', '1'], 'unknown option --port (see --help)'],
      [['--url'], '--url needs a value (see --help)'],
      // every tool's path goes after the origin: a path, query or fragment would send it elsewhere
      ...['/api', '/?a=1', '/#top', '/__sandbox'].map(
        (rest) =>
          [
            ['--url', `http://127.0.0.1:4010${rest}`],
            `--url "http://127.0.0.1:4010${rest}" has a path, query or fragment: give the sandbox's base URL, http://127.0.0.1:4010 (the first line it prints)`,
          ] as const,
      ),
      [
        ['--url', 'http://127.0.0.1:4010', '--admin-token', 'a', '--token', 'b'],
        '--admin-token and --token exclude each other: the admin token opens every partner, a partner token one',
      ],
      [['--url', 'http://127.0.0.1:4010', '--token', ''], '--token is empty'],
    ] as const) {
      const r = run([...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`partnership-sandbox mcp: ${reason}\n`);
      expect(r.stdout).toBe('');
    }
  }, 180_000);

  it('credentials in --url: refused, and never echoed', () => {
    for (const url of ['http://agent:s3cret-pass@127.0.0.1:4010', 'http://agent:s3cret-pass@bad host/']) {
      const r = run(['--url', url]);
      expect(r.status, url).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^partnership-sandbox mcp: --url /);
      expect(r.stderr).not.toContain('s3cret-pass');
    }
  }, 60_000);

  it('malformed JSON-RPC gets its error answer (-32700, -32600), a message over 10 MiB too; then it serves on', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
    };
    const lines = [
      '{"jsonrpc": "2.0", "id": 5, "method": "tools/list"', // cut short: no JSON
      JSON.stringify({ jsonrpc: '2.0', id: 7, params: {} }), // JSON, but no JSON-RPC message
      JSON.stringify([{ jsonrpc: '2.0', id: 8, method: 'tools/list' }]), // a batch (MCP has none)
      `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"pad":"${'x'.repeat(10 * 1024 * 1024)}"}}`,
      JSON.stringify(initialize),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'getClock', arguments: {} },
      }),
    ];
    const r = await runWithInput(['--url', sandbox.url], `${lines.join('\n')}\n`);
    expect(r.status).toBe(0);
    const answers = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const errors = answers.filter((a) => a.error).map((a) => [a.id, a.error.code]);
    expect(errors).toEqual([
      [null, -32700],
      [7, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(answers.find((a) => a.error?.code === -32700).error.message).toMatch(/^Parse error: /);
    expect(answers.filter((a) => a.error).at(-1).error.message).toContain(
      'more than 10485760 bytes (10 MiB)',
    );
    // and it went on serving
    expect(answers.find((a) => a.id === 1).result.serverInfo.name).toBe('partnership-sandbox');
    expect(answers.find((a) => a.id === 2).result.structuredContent).toHaveProperty('now');
  }, 60_000);

  it('the sandbox’s bundle leaves the MCP SDK out: only `mcp` loads dist/mcp.js', () => {
    expect(readFileSync(MAIN, 'utf8')).not.toContain('notifications/initialized');
    expect(readFileSync(join(packageDir, 'dist', 'mcp.js'), 'utf8')).toContain('notifications/initialized');
    expect(spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' }).stdout).toContain(
      'partnership-sandbox mcp --url URL',
    );
  });
});
