#!/usr/bin/env node
/**
 * The command line (`partnership-sandbox`, `npm start`, the image): flags and env to
 * config, serve, print the URL, drain on SIGINT and SIGTERM. Nothing else.
 *
 * Exit codes: 0 after a drain (or --help, --version); 2 when start-up stops on a setting
 * (one line on stderr naming it and the cause); 1 for anything unexpected.
 */
// First, before any other module runs: the young generation stays small while the sandbox
// loads (young-generation.ts). A side-effect import, which the import sorter leaves in place.
import './young-generation.js';
import { bannerLines, landmarks } from './banner.js';
import { packageVersion } from './base/package-dir.js';
import { StartupError } from './base/startup-error.js';
import { parseCommandLine, USAGE } from './core/config.js';
import { type Running, startServer } from './server.js';
import { startGrowing } from './young-generation.js';

const MCP_ENTRY = './mcp.js';

async function main() {
  // `partnership-sandbox mcp …`: the MCP server for coding agents (docs/coding-agents.md). A
  // bundle of its own (dist/mcp.js), named by a variable so esbuild leaves it out of this one.
  if (process.argv[2] === 'mcp') {
    startGrowing();
    const { runMcp }: typeof import('./mcp.js') = await import(MCP_ENTRY);
    return runMcp(process.argv.slice(3), process.env);
  }
  // `partnership-sandbox record …` and `verify …`: recordings and drift (docs/drift.md).
  const [first, ...rest] = process.argv.slice(2);
  if (first === 'record' || first === 'verify') {
    startGrowing();
    const [{ runDriftCommand }, { setSandboxStarter }, { startSandbox }] = await Promise.all([
      import('./drift/drift-cli.js'),
      import('./drift/embedded.js'),
      import('./start.js'),
    ]);
    setSandboxStarter(() => startSandbox());
    process.exit(await runDriftCommand(first, rest));
  }
  // `partnership-sandbox pact FILE.har --consumer NAME`: a Pact file of a recording (docs/contracts.md).
  if (first === 'pact') {
    const { runPactCommand } = await import('./pact/pact-cli.js');
    process.exit(await runPactCommand(rest));
  }
  const command = parseCommandLine(process.argv.slice(2), process.env);
  if (command.kind === 'help') return void console.log(USAGE);
  if (command.kind === 'version') return void console.log(packageVersion());
  const { config, warnings } = command;
  // The handlers come first: a signal at any moment, while starting or right after the URL
  // line, drains and exits 0 (docs/in-your-ci.md). Without a handler the signal's default
  // action kills the process, and a partner's CI sees exit 143.
  let stopping: NodeJS.Signals | undefined;
  let running: Running | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = signal;
    if (running) stop(running, signal); // else: as soon as start-up finishes, below
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  running = await startServer(config);
  startGrowing();
  if (stopping) return stop(running, stopping);
  // The first line on stdout carries the URL first (docs/in-your-ci.md), whatever the log setting;
  // the next ones say where the docs, the dashboard and the default credentials are.
  const where = await landmarks(running.sandbox, running.url);
  process.stdout.write(`${bannerLines(where, Boolean(config.adminToken)).join('\n')}\n`);
  for (const warning of warnings) console.error(`partnership-sandbox: ${warning}`);
  running.sandbox.log.info('sandbox listening', {
    url: running.url,
    db: config.db,
    fixtures: config.fixtures,
    docs: where.docs,
    dashboard: where.dashboard,
    // Never a secret in the log: the credentials line above prints the documented one only.
    default_client_id: where.credentials?.client_id,
    default_parent_account_id: where.credentials?.parent_account_id,
  });
}

/** Drains, closes the store and exits 0 (1 if closing failed). */
function stop(running: Running, signal: NodeJS.Signals): void {
  const { log } = running.sandbox;
  log.info('shutting down', { signal });
  running.close().then(
    () => {
      log.info('stopped', { signal });
      process.exitCode = 0;
      process.exit();
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
  // The drain is bounded (http/drain.ts DRAIN_MS); this only guards against a bug in it.
  setTimeout(() => process.exit(1), 10_000).unref();
}

main().catch((err) => {
  if (err instanceof StartupError) {
    console.error(`partnership-sandbox: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
