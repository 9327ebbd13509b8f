/** Entry point: flags and env to config, serve, graceful shutdown. Nothing else. */
import { loadConfig } from './config.js';
import { startServer } from './server.js';
import { StartupError } from './startup-error.js';

async function main() {
  const config = loadConfig(process.argv.slice(2), process.env);
  const running = await startServer(config);
  const { sandbox } = running;
  sandbox.log.info('sandbox listening', {
    url: running.url,
    db: config.db,
    fixtures: config.fixtures,
    credentials: 'default client credentials: README.md "Default credentials" (fixtures/partners.json)',
  });
  if (config.log !== 'silent') {
    console.log(
      `Partnership sandbox on ${running.url}  (default credentials: README.md "Default credentials")`,
    );
  }
  const shutdown = (signal: string) => {
    sandbox.log.info('shutting down', { signal });
    running.close().then(() => process.exit(0));
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  if (err instanceof StartupError) {
    console.error(`partnership-sandbox: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
