#!/usr/bin/env node
// Start-up time: spawn the production build to the first 200 on /__sandbox/health.
// Usage: node bench/startup.mjs [runs=10] [extra env as KEY=VALUE ...]
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { sandboxDist } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 10);
const extraEnv = Object.fromEntries(process.argv.slice(3).map((kv) => kv.split('=')));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

export async function startupOnce(env = {}) {
  const port = await freePort();
  const t0 = performance.now();
  // A private copy of dist/main.js (see lib.mjs): concurrent rebuilds cannot break a run.
  const child = spawn(process.execPath, [sandboxDist().main], {
    cwd: root,
    env: { ...process.env, PORT: String(port), SANDBOX_LOG: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  let exited = null;
  child.once('exit', (code, signal) => {
    exited = { code, signal };
  });
  try {
    for (;;) {
      if (exited)
        throw new Error(`sandbox exited during start-up (${JSON.stringify(exited)}): ${stderr.trim()}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/__sandbox/health`);
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      if (performance.now() - t0 > 30_000) throw new Error('no healthy answer within 30 s');
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill('SIGKILL');
    if (!exited) await new Promise((r) => child.once('exit', r));
  }
}

export async function startupMedian(n, env) {
  const times = [];
  for (let i = 0, failures = 0; i < n; i++) {
    try {
      times.push(await startupOnce(env));
    } catch (e) {
      // e.g. the free port was taken by another process in between: retry a few times
      if (++failures > 3) throw e;
      console.error(`start-up attempt failed, retrying: ${e.message}`);
      i--;
    }
  }
  times.sort((a, b) => a - b);
  return {
    median: times[Math.floor(times.length / 2)],
    min: times[0],
    max: times.at(-1),
    runs: times.length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await startupMedian(runs, extraEnv);
  console.log(
    `start-up to first healthy response: median ${r.median.toFixed(0)} ms (min ${r.min.toFixed(0)}, max ${r.max.toFixed(0)}, ${r.runs} runs)`,
  );
}
