#!/usr/bin/env node
// Start-up time of the entry points partners use, each in a fresh Node process, from the
// spawn to the first 200 on /__sandbox/health (wall time; health is asked every 2 ms), with
// the CPU time the process had used by then. What a partner's `docker run` or CI script waits
// for, less Docker's own start and its probe interval, and less npx's resolution of the bin.
// Each run starts cold, as a new container does: the bin's compile cache is written at a
// graceful exit only, and each run is killed (SIGKILL) from a dist/ copied to a new folder.
//   bin      `node dist/main.js` (the package's bin, `npm start` without its build step,
//            the image's command)
//   library  a script that imports the package (dist/index.js) and awaits startSandbox()
//            (a test runner's global setup); it also reports the import and the
//            startSandbox() call on their own, timed inside the process.
// Usage: node bench/startup.mjs [runs=10] [--entry=bin|library|all] [extra env as KEY=VALUE ...]
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuMs, sandboxDist } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const runs = Number(positional[0] ?? 10);
const entry = process.argv.find((a) => a.startsWith('--entry='))?.split('=')[1] ?? 'all';
const extraEnv = Object.fromEntries(positional.slice(1).map((kv) => kv.split('=')));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/**
 * Spawns `args` and polls health at the URL `urlOf()` gives (known up front, or read from
 * the child's first stdout line). Returns { ms, cpu, stdout } at the first 200.
 */
async function timeToHealthy(args, env, urlOf) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, SANDBOX_LOG: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
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
      const url = urlOf(stdout);
      if (url) {
        try {
          const res = await fetch(`${url}/__sandbox/health`);
          await res.arrayBuffer();
          if (res.status === 200) {
            const ms = performance.now() - t0;
            return { ms, cpu: cpuMs(child.pid), stdout };
          }
        } catch {
          // not listening yet
        }
      }
      if (performance.now() - t0 > 30_000) throw new Error('no healthy answer within 30 s');
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill('SIGKILL');
    if (!exited) await new Promise((r) => child.once('exit', r));
  }
}

/** The bin: `node dist/main.js` on a free port; ms from spawn to healthy. */
export async function startupOnce(env = {}) {
  return (await startupBin(env)).ms;
}

export async function startupBin(env = {}) {
  const port = await freePort();
  // A private copy of dist/ (see lib.mjs): concurrent rebuilds cannot break a run.
  return timeToHealthy(
    [sandboxDist().main],
    { PORT: String(port), ...env },
    () => `http://127.0.0.1:${port}`,
  );
}

/** The library: import the package, await startSandbox(), print the URL and the in-process times. */
export async function startupLibrary(env = {}) {
  const script = `
const t0 = performance.now();
const { startSandbox } = await import(${JSON.stringify(pathToFileURL(sandboxDist().index).href)});
const t1 = performance.now();
const sandbox = await startSandbox();
const t2 = performance.now();
console.log(JSON.stringify({ url: sandbox.url, importMs: t1 - t0, startMs: t2 - t1 }));
setInterval(() => {}, 1000);
`;
  const r = await timeToHealthy(['--input-type=module', '-e', script], env, (out) =>
    out.includes('\n') ? JSON.parse(out.slice(0, out.indexOf('\n'))).url : undefined,
  );
  const inside = JSON.parse(r.stdout.slice(0, r.stdout.indexOf('\n')));
  return { ...r, importMs: inside.importMs, startMs: inside.startMs };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function repeat(n, once) {
  const results = [];
  for (let i = 0, failures = 0; i < n; i++) {
    try {
      results.push(await once());
    } catch (e) {
      // e.g. the free port was taken by another process in between: retry a few times
      if (++failures > 3) throw e;
      console.error(`start-up attempt failed, retrying: ${e.message}`);
      i--;
    }
  }
  return results;
}

export async function startupMedian(n, env) {
  const times = (await repeat(n, () => startupOnce(env))).sort((a, b) => a - b);
  return { median: median(times), min: times[0], max: times.at(-1), runs: times.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fmt = (x) => x.toFixed(0);
  // This process's first fetch() loads Node's bundled undici (about 30 ms of a core here): done
  // before the first spawn, so the first measured start does not share the machine with it.
  await fetch('data:,').then((r) => r.arrayBuffer());
  if (entry === 'bin' || entry === 'all') {
    const r = await repeat(runs, () => startupBin(extraEnv));
    const ms = r.map((x) => x.ms);
    console.log(
      `bin (node dist/main.js), spawn to first healthy response: median ${fmt(median(ms))} ms (min ${fmt(Math.min(...ms))}, max ${fmt(Math.max(...ms))}), CPU ${fmt(median(r.map((x) => x.cpu)))} ms, ${r.length} runs`,
    );
  }
  if (entry === 'library' || entry === 'all') {
    const r = await repeat(runs, () => startupLibrary(extraEnv));
    const ms = r.map((x) => x.ms);
    console.log(
      `library (import + startSandbox()), spawn to first healthy response: median ${fmt(median(ms))} ms (min ${fmt(Math.min(...ms))}, max ${fmt(Math.max(...ms))}), CPU ${fmt(median(r.map((x) => x.cpu)))} ms; inside the process: import ${fmt(median(r.map((x) => x.importMs)))} ms, startSandbox() ${fmt(median(r.map((x) => x.startMs)))} ms; ${r.length} runs`,
    );
  }
}
