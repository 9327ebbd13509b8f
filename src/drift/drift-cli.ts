/**
 * The `record` and `verify` subcommands of the bin (docs/drift.md, docs/drift.md).
 *
 * record: the first stdout line carries the URL served; SIGINT and SIGTERM stop it (the
 * exchanges in flight written) and exit 0; a bad flag or a port it cannot take exits 2 with
 * one line.
 * verify: the report on stdout; exit 0 when nothing differs, 1 when something does, 2 when
 * the file is no HAR recording of the API (or the set-up fails, or a --report or --junit file
 * cannot be written), with one line saying why.
 */
import { writeFileSync } from 'node:fs';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { argsProblem } from '../base/cli-args.js';
import { StartupError } from '../base/startup-error.js';
import { RecordingError } from './har.js';
import { startRecorder } from './proxy.js';
import { verifyRecording } from './replay.js';
import { reportJson, reportJUnit, reportLines } from './verify-report.js';

export const RECORD_USAGE = `Usage: partnership-sandbox record --upstream URL [--port P] [--host H] [--out FILE]
  --upstream URL   the API to record (http or https; HTTPS trusts Node's CA store and NODE_EXTRA_CA_CERTS)
  --port P         port to listen on (default 4010; 0 takes a free one)
  --host H         address to listen on (default 127.0.0.1)
  --out FILE       the HAR 1.2 file written, valid after each exchange (default recording.har)
Point your client (the token endpoint included) at the URL on the first stdout line. Secrets
become [redacted:<n>]; each answer that breaks the partner OpenAPI document is a stderr line.
SIGINT and SIGTERM stop it and exit 0. The manual: /docs/guides/drift on a running sandbox.`;

export const VERIFY_USAGE = `Usage: partnership-sandbox verify FILE [--url URL] [--admin-token T] [--report F.json] [--junit F.xml] [--messages]
  FILE             a HAR recording (record's, or a browser's or mitmproxy's export)
  --url URL        a running sandbox to replay against, on a partner created there
                   (default: one started in this process, in memory)
  --admin-token T  that sandbox's admin token (env SANDBOX_ADMIN_TOKEN)
  --report F.json  the report as JSON
  --junit F.xml    the report as JUnit XML (a test case per entry)
  --messages       compare the envelope's message too
Exit 0: nothing differs; 1: something does; 2: FILE is no HAR recording of the API, the replay
cannot be set up on the sandbox (no sandbox answers at --url, GET /__sandbox/health; or its
partner, taxonomy or token is refused), or a --report or --junit file cannot be written: one
line says which. The manual: /docs/guides/drift on a running sandbox.`;

/** Runs `record` or `verify`; resolves with the exit code (record: once stopped by a signal). */
export async function runDriftCommand(
  command: 'record' | 'verify',
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  try {
    return command === 'record' ? await record(argv) : await verify(argv, env);
  } catch (err) {
    if (err instanceof RecordingError || err instanceof StartupError) {
      process.stderr.write(`partnership-sandbox ${command}: ${err.message.split('\n')[0]}\n`);
      return 2;
    }
    throw err;
  }
}

function parse(argv: readonly string[], options: ParseArgsOptionsConfig, usage: string) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new StartupError(`${argsProblem(err)}\n${usage}`);
  }
}

async function record(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      upstream: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    RECORD_USAGE,
  );
  if (values.help) {
    console.log(RECORD_USAGE);
    return 0;
  }
  if (positionals.length) throw new StartupError(`unexpected argument ${positionals[0]} (see --help)`);
  if (typeof values.upstream !== 'string') throw new StartupError('--upstream URL is required (see --help)');
  const port = values.port === undefined ? 4010 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new StartupError(`--port ${values.port}: must be an integer from 0 to 65535`);
  }
  let stopping: (() => void) | undefined;
  const signalled = new Promise<void>((resolve) => {
    stopping = resolve;
  });
  process.on('SIGINT', () => stopping?.());
  process.on('SIGTERM', () => stopping?.());
  const recorder = await startRecorder({
    upstream: values.upstream,
    port,
    // Its stderr lines ("record: …") in the command line's one form: `partnership-sandbox record: …`.
    onContractBreak: (line) => process.stderr.write(`partnership-sandbox ${line}\n`),
    ...(typeof values.host === 'string' ? { host: values.host } : {}),
    ...(typeof values.out === 'string' ? { out: values.out } : {}),
  });
  process.stdout.write(`Recording proxy on ${recorder.url} -> ${values.upstream}, writing ${recorder.out}\n`);
  await signalled;
  await recorder.stop();
  const exchanges = `${recorder.entries} exchange${recorder.entries === 1 ? '' : 's'}`;
  process.stderr.write(`partnership-sandbox record: ${exchanges} in ${recorder.out}\n`);
  return 0;
}

async function verify(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      url: { type: 'string' },
      'admin-token': { type: 'string' },
      report: { type: 'string' },
      junit: { type: 'string' },
      messages: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    VERIFY_USAGE,
  );
  if (values.help) {
    console.log(VERIFY_USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new StartupError(
      positionals.length
        ? `one FILE, not ${positionals.length} (see --help)`
        : 'FILE is required (see --help)',
    );
  }
  const adminToken = (values['admin-token'] as string | undefined) ?? (env.SANDBOX_ADMIN_TOKEN || undefined);
  const result = await verifyRecording(positionals[0]!, {
    ...(typeof values.url === 'string' ? { url: values.url } : {}),
    ...(adminToken ? { adminToken } : {}),
    messages: values.messages === true,
  });
  process.stdout.write(`${reportLines(result).join('\n')}\n`);
  if (typeof values.report === 'string') writeReport('--report', values.report, reportJson(result));
  if (typeof values.junit === 'string') writeReport('--junit', values.junit, reportJUnit(result));
  return result.ok ? 0 : 1;
}

/** A report file it cannot write (a missing folder, a directory): one line and exit 2, no stack. */
function writeReport(flag: string, file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (err) {
    throw new StartupError(
      `${flag} ${file}: cannot write it (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
}
