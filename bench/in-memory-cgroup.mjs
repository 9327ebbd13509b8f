#!/usr/bin/env node
// The built sandbox (dist/main.js) inside a memory cgroup, as a container with a memory limit
// runs it: this process moves itself into /sys/fs/cgroup/memory/$CG (cgroup v1; root), then
// starts the sandbox as its child, which is born in the cgroup, so Node sizes its heap by the
// limit as in a container (259 MB for 512 MiB). Pass it as the server to a bench:
//   mkdir /sys/fs/cgroup/memory/cell && echo $((512 << 20)) > /sys/fs/cgroup/memory/cell/memory.limit_in_bytes
//   CG=cell SANDBOX_DB=/tmp/cell.db node bench/hosted-mix.mjs --partners=10000 --seconds=20 \
//     --main=bench/in-memory-cgroup.mjs
// then read the cgroup's memory.max_usage_in_bytes and memory.oom_control (oom_kill). The
// bench's CPU and RSS columns are then this process's, not the sandbox's: read the cgroup.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const group = process.env.CG ?? 'cell';
writeFileSync(`/sys/fs/cgroup/memory/${group}/cgroup.procs`, String(process.pid));
const child = spawn(
  process.execPath,
  [new URL('../dist/main.js', import.meta.url).pathname, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  console.error(`sandbox in cgroup ${group} exited: ${signal ?? code}`);
  process.exit(code ?? 1);
});
