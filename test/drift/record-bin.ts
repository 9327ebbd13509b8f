/**
 * `record` as the built bin runs it (`node dist/main.js record`), for the tests that need the
 * process itself: its exit code, its stderr, a kill.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir } from '../../src/base/package-dir.js';

export const MAIN = join(packageDir, 'dist', 'main.js');
export const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([n]) => !/^(PORT|HOST|SANDBOX_)/.test(n)),
);

/** Builds dist/ when it is not there. */
export function ensureBuilt(): void {
  if (!existsSync(MAIN)) execFileSync('npm', ['run', 'build'], { cwd: packageDir, stdio: 'ignore' });
}

export interface Recording {
  proc: ChildProcess;
  url: string;
  firstLine: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `record` as a process; resolves once its first stdout line (the URL) is out. */
export async function startRecord(
  args: string[],
  procs: ChildProcess[],
  env: Record<string, string> = {},
): Promise<Recording> {
  const proc = spawn(process.execPath, [MAIN, 'record', '--port', '0', ...args], {
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => {
    err += c;
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const firstLine = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    proc.on('exit', (code) => reject(new Error(`record exited ${code}: ${err}`)));
  });
  const url = /http:\/\/[\d.]+:\d+/.exec(firstLine)![0];
  return { proc, url, firstLine, stderr: () => err, exited };
}
