/**
 * SANDBOX_CHAOS / --chaos / startSandbox({chaos}) (docs/chaos.md): a profile for every
 * partner at start-up; a bad one stops start-up with exit 2 and one line naming the setting.
 * The built command line is started as a real process, as test/package/cli.test.ts does.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { StartupError } from '../../src/base/startup-error.js';
import { loadConfig } from '../../src/core/config.js';
import { startSandbox } from '../../src/start.js';
import { DEMO } from '../helpers/harness.js';
import { demoTokenResponse } from '../helpers/raw-http.js';

const MAIN = join(packageDir, 'dist', 'main.js');
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(PORT|HOST|SANDBOX_)/.test(name)),
);

function runMain(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [MAIN, '--port', '0', ...args], {
    env: { ...baseEnv, SANDBOX_LOG: 'silent', ...env },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe('a bad chaos setting stops start-up: exit 2, one line naming it', () => {
  it.each([
    [
      { SANDBOX_CHAOS: 'rate=2,seed=1' },
      [],
      /^partnership-sandbox: .*SANDBOX_CHAOS="rate=2,seed=1": rate must be a number from 0 to 1; got "2"$/,
    ],
    [
      { SANDBOX_CHAOS: 'rate=abc,seed=1' },
      [],
      /SANDBOX_CHAOS="rate=abc,seed=1": rate must be a number from 0 to 1/,
    ],
    [
      {},
      ['--chaos', 'rate=0.1,seed=4.5'],
      /--chaos="rate=0\.1,seed=4\.5": seed must be an integer; got "4\.5"$/,
    ],
    [{ SANDBOX_CHAOS: 'rate=0.1' }, [], /SANDBOX_CHAOS="rate=0\.1": seed is missing/],
    [
      { SANDBOX_CHAOS: 'rate=0.1,seed=1,scenarios=server-error+token-expired' },
      [],
      /SANDBOX_CHAOS=.*: scenarios: token-expired is not a transient failure a retry can get past$/,
    ],
    [
      { SANDBOX_CHAOS: 'rate=0.1,seed=1,scenarios=latency' },
      [],
      /SANDBOX_CHAOS=.*: scenarios: latency is not a failure/,
    ],
    [
      { SANDBOX_CHAOS: 'rate=0.1,seed=1,scenarios=no-such-thing' },
      [],
      /SANDBOX_CHAOS.*: scenarios: unknown scenario "no-such-thing"$/,
    ],
    [
      { SANDBOX_CHAOS: 'rate=0.1,sed=1' },
      [],
      /SANDBOX_CHAOS="rate=0\.1,sed=1": "sed=1" is not rate=<0\.\.1>/,
    ],
  ])('%o %o', (env, argv, message) => {
    const r = runMain(argv, env);
    expect(r.stderr.trimEnd()).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(2);
  });
});

describe('a good chaos setting', () => {
  it('SANDBOX_CHAOS sets a profile for every partner: the first token call fails with its evidence; a reset puts it back', async () => {
    const proc = spawn(process.execPath, [MAIN, '--port', '0'], {
      env: { ...baseEnv, SANDBOX_LOG: 'silent', SANDBOX_CHAOS: 'rate=1,seed=42,scenarios=server-error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stops.push(() => proc.kill('SIGTERM'));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (d) => {
        out += d;
        const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
        if (found) resolve(found[0]);
      });
      proc.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const token = () => demoTokenResponse(url);
    const failed = await token();
    expect(failed.status).toBe(503);
    // Token calls are a sequence of their own.
    expect(failed.headers.get('x-sandbox-chaos')).toBe('seed=42; token_call=1');
    expect((await token()).status).toBe(200); // convergent
    const profiles = async () =>
      ((await (await fetch(`${url}/__sandbox/chaos`)).json()) as { profiles: unknown[] }).profiles;
    expect(await profiles()).toMatchObject([
      {
        parent_account_id: null,
        rate: 1,
        seed: 42,
        scenarios: ['server-error'],
        positions: { [DEMO.parent]: 0 },
        token_positions: { [DEMO.parent]: 2 },
      },
    ]);
    await fetch(`${url}/__sandbox/chaos`, { method: 'DELETE' });
    expect(await profiles()).toEqual([]);
    expect((await fetch(`${url}/__sandbox/reset`, { method: 'POST' })).status).toBe(200);
    expect(await profiles()).toMatchObject([{ parent_account_id: null, seed: 42, calls_seen: 0 }]);
  });

  it('--chaos wins over SANDBOX_CHAOS, and the scenarios are read with + between names', () => {
    const config = loadConfig(['--chaos', 'rate=0.5,seed=-3,scenarios=rate-limited+flaky-network'], {
      SANDBOX_CHAOS: 'rate=0.1,seed=1',
    });
    expect(config.chaos).toBe('rate=0.5,seed=-3,scenarios=rate-limited+flaky-network');
  });

  it('startSandbox({chaos}) sets it; a bad one rejects with a StartupError naming the option', async () => {
    const sandbox = await startSandbox({ chaos: 'rate=0.25,seed=7' });
    stops.push(() => sandbox.stop());
    const { profiles } = await sandbox.control.chaos.get();
    expect(profiles).toMatchObject([{ parent_account_id: null, rate: 0.25, seed: 7 }]);
    await expect(startSandbox({ chaos: 'rate=0.25' })).rejects.toThrow(StartupError);
    // A name that is no built-in must be a preset: checked once the presets load.
    await expect(startSandbox({ chaos: 'rate=0.25,seed=1,scenarios=no-such-preset' })).rejects.toThrow(
      /^startSandbox: option chaos \(SANDBOX_CHAOS\)="rate=0\.25,seed=1,scenarios=no-such-preset": scenarios: unknown scenario "no-such-preset"$/,
    );
    await expect(startSandbox({ chaos: 'rate=0.25' })).rejects.toThrow(
      /^startSandbox: invalid option chaos="rate=0\.25": seed is missing/,
    );
  });
});
