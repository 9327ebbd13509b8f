/**
 * Listening (server.ts, listenOn): an IP address is bound without `listen()`'s lookup, its
 * IPv6 check and `node:cluster` (a start-up's largest cost in Node); a host name still goes
 * through `listen()`. Either way the same URL, the same answers and the same start-up errors.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { StartupError } from '../../src/base/startup-error.js';
import { startSandbox } from '../../src/start.js';

/** A new process (from source, tsx) starts a sandbox on `host`: its URL and the cluster modules it loaded. */
function startInNewProcess(host: string): { url: string; cluster: string[] } {
  const script = `
    const { startSandbox } = await import(${JSON.stringify(join(packageDir, 'src', 'start.ts'))});
    const s = await startSandbox({ host: ${JSON.stringify(host)} });
    const cluster = process.moduleLoadList.filter((m) => /\\bcluster\\b/.test(m));
    const health = await fetch(s.url + '/__sandbox/health');
    await s.stop();
    console.log(JSON.stringify({ url: s.url, status: health.status, cluster }));
  `;
  const out = execFileSync(
    process.execPath,
    [join(packageDir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), '--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const result = JSON.parse(out.trim().split('\n').pop()!) as {
    url: string;
    status: number;
    cluster: string[];
  };
  expect(result.status).toBe(200);
  return result;
}

describe('listening on the host asked for', () => {
  it('an IP address: listening, healthy, without loading node:cluster; a host name loads it as listen() does', () => {
    const ip = startInNewProcess('127.0.0.1');
    expect(ip.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ip.cluster).toEqual([]);
    const name = startInNewProcess('localhost');
    expect(name.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(name.cluster).toContain('NativeModule cluster');
  }, 120_000);

  it.each([
    ['::1', /^http:\/\/\[::1\]:\d+$/],
    ['0.0.0.0', /^http:\/\/127\.0\.0\.1:\d+$/],
    ['localhost', /^http:\/\/localhost:\d+$/],
  ])('host %s: the URL named as before, and it answers', async (host, url) => {
    const sandbox = await startSandbox({ host });
    try {
      expect(sandbox.url).toMatch(url);
      const health = await fetch(`${sandbox.url}/__sandbox/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', store: { writable: true, problem: null } });
    } finally {
      await sandbox.stop();
    }
  });

  it('an address not of this machine, and a port in use on ::1: the same start-up errors', async () => {
    const notOurs = await startSandbox({ host: '192.0.2.1' }).catch((e: Error) => e);
    expect(notOurs).toBeInstanceOf(StartupError);
    expect((notOurs as Error).message).toBe(
      'startSandbox: option host (HOST)=192.0.2.1: not an address of this machine (EADDRNOTAVAIL)',
    );
    const first = await startSandbox({ host: '::1' });
    try {
      const busy = await startSandbox({ host: '::1', port: first.port }).catch((e: Error) => e);
      expect(busy).toBeInstanceOf(StartupError);
      expect((busy as Error).message).toBe(
        `startSandbox: option port (PORT)=${first.port}: ::1:${first.port} is in use by another process; choose another port (0 takes a free one)`,
      );
    } finally {
      await first.stop();
    }
  });
});
