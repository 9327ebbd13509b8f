/**
 * Serving: start a listening server for a sandbox, and close it gracefully (drain
 * in-flight requests, then close the database). Used by main.ts and by tests that need
 * a real socket.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createSandbox, type Logger, type Sandbox } from './sandbox.js';

export interface Running {
  sandbox: Sandbox;
  server: ServerType;
  url: string;
  close(): Promise<void>;
}

export async function startServer(config: Config, log?: Logger): Promise<Running> {
  const sandbox = createSandbox(config, log);
  const app = createApp(sandbox);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    sandbox,
    server,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Stop accepting, let in-flight requests finish, drop idle keep-alive sockets.
        // Keep-alive sockets become idle as their last response is written: close them as
        // they do, so the process does not wait for the keep-alive timeout.
        const idle = setInterval(() => (server as Server).closeIdleConnections(), 50);
        server.close(() => {
          clearInterval(idle);
          sandbox.close();
          resolve();
        });
        (server as Server).closeIdleConnections();
      });
      return closing;
    },
  };
}
