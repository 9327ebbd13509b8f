/** Shell scripts run by the tests (the docs' runnable blocks, the Actions snippet's steps). */
import { spawn } from 'node:child_process';

export interface ShellRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a script with bash, asynchronously: a sandbox started in this process answers
 * meanwhile. `args` come before `-c` (e.g. GitHub Actions' `--noprofile --norc -e`).
 */
export function bash(
  script: string,
  options: { cwd: string; env?: Record<string, string>; args?: string[] },
): Promise<ShellRun> {
  return new Promise((done, fail) => {
    const child = spawn('bash', [...(options.args ?? []), '-c', script], {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}
