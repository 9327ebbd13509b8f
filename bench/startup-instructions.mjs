#!/usr/bin/env node
// Start-up in instructions under callgrind: a count that repeats on a loaded machine where the
// wall time of bench/startup.mjs does not (docs/performance.md, "Start-up").
//   npm run build && node bench/startup-instructions.mjs [--entry=bin|library|all] [--main=OTHER/dist/main.js]
//   bin      `node dist/main.js`, from the first instruction to the first 200 on /__sandbox/health
//   library  a script that imports the package (dist/index.js), then awaits startSandbox(): the
//            import and the start (to the first healthy answer) counted apart
// Each runs under `valgrind --tool=callgrind` with V8 on one thread (--single-threaded) and fixed
// seeds; `callgrind_control -d` dumps the count at each mark. Node's compile cache is off (the
// bin turns it on; a cache left by an earlier run would make the count depend on it), unless
// --compile-cache=yes. Needs valgrind. Slow: about half a minute a process.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, freePort, root, sandboxDist, sleep } from './lib.mjs';

const entry = arg('entry', 'all');
const main = arg('main', sandboxDist().main);
const index = join(dirname(main), 'index.js');
const compileCache = arg('compile-cache', 'no') === 'yes';
const out = mkdtempSync(join(tmpdir(), 'sandbox-startup-callgrind-'));
process.once('exit', () => rmSync(out, { recursive: true, force: true }));

/** Spawns `args` under callgrind; `marks` are awaited in turn, each followed by a dump. */
async function counted(tag, args, env, marks) {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(out, `${tag}.%p`)}`,
      process.execPath,
      '--single-threaded',
      '--hash-seed=41',
      '--random-seed=41',
      ...args,
    ],
    { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const counts = [];
  try {
    for (const mark of marks) {
      const t0 = Date.now();
      while (!(await mark({ stdout: () => stdout, child }))) {
        if (exited) throw new Error(`${tag} exited under valgrind: ${stderr.slice(-2000)}`);
        if (Date.now() - t0 > 900_000) throw new Error(`${tag}: no mark within 900 s`);
        await sleep(20);
      }
      execFileSync('callgrind_control', ['-d', String(child.pid)], { env, stdio: 'ignore' });
      counts.push(dumped(tag, child.pid, counts.length + 1));
    }
  } finally {
    if (!exited) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    }
  }
  return counts;
}

/** The instructions of dump number `n` of one process (callgrind names the files `.n`). */
function dumped(tag, pid, n) {
  let total = 0;
  for (const f of readdirSync(out)) {
    if (f !== `${tag}.${pid}.${n}` && !f.startsWith(`${tag}.${pid}.${n}-`)) continue;
    const m = /^totals:\s+(\d+)/m.exec(readFileSync(join(out, f), 'utf8'));
    if (m) total += Number(m[1]);
  }
  return total;
}

const healthy =
  (urlOf) =>
  async ({ stdout }) => {
    const url = urlOf(stdout());
    if (!url) return false;
    try {
      const res = await fetch(`${url}/__sandbox/health`);
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  };

const baseEnv = () => ({
  ...process.env,
  SANDBOX_LOG: 'silent',
  ...(compileCache ? {} : { NODE_DISABLE_COMPILE_CACHE: '1' }),
});
const m = (x) => `${(x / 1e6).toFixed(0)} M`;
console.log(`node ${process.version}, --single-threaded, compile cache ${compileCache ? 'on' : 'off'}`);

if (entry === 'bin' || entry === 'all') {
  const port = await freePort();
  const [total] = await counted('bin', [main], { ...baseEnv(), PORT: String(port), HOST: '127.0.0.1' }, [
    healthy(() => `http://127.0.0.1:${port}`),
  ]);
  console.log(`bin (node dist/main.js), to the first healthy answer: ${m(total)} instructions`);
}

if (entry === 'library' || entry === 'all') {
  // The script says "imported", waits for a line on stdin (the dump is taken in between), starts.
  const script = `
const { startSandbox } = await import(${JSON.stringify(pathToFileURL(index).href)});
console.log('imported');
await new Promise((r) => process.stdin.once('data', r));
const sandbox = await startSandbox();
console.log(sandbox.url);
setInterval(() => {}, 1000);
`;
  let released = false;
  const [imported, started] = await counted('library', ['--input-type=module', '-e', script], baseEnv(), [
    async ({ stdout }) => stdout().startsWith('imported\n'),
    async (probe) => {
      if (!released) {
        released = true;
        probe.child.stdin.write('go\n');
      }
      return healthy((s) => /^imported\n(http\S+)\n/.exec(s)?.[1])(probe);
    },
  ]);
  console.log(
    `library: import ${m(imported)} instructions; startSandbox() to the first healthy answer ${m(started)}`,
  );
}
