/**
 * `partnership-sandbox pact FILE.har --consumer NAME` (docs/contracts.md): a Pact V4 file of a
 * recording's calls, on stdout or into --out. Exit 0 with the pact written; 2 when FILE is no HAR
 * recording of the API, a flag is wrong or the file cannot be written (one line saying why).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { packageVersion } from '../base/package-dir.js';
import { StartupError } from '../base/startup-error.js';
import { RecordingError, readHar } from '../drift/har.js';
import { buildPact } from './build.js';
import { fromHar } from './exchange.js';

export const PACT_USAGE = `Usage: partnership-sandbox pact FILE.har --consumer NAME [--provider NAME] [--out FILE]
  FILE.har         a HAR recording (record's, or a browser's or mitmproxy's export)
  --consumer NAME  the consumer's name in the pact
  --provider NAME  the provider's name (default partnership-accounts-api)
  --out FILE       write the pact there (default: stdout)
One interaction per distinct call, with the provider states of POST /__sandbox/pact/states,
identifiers and timestamps as matching rules, and no secret. See docs/contracts.md.`;

/** Runs `pact`; resolves with the exit code. */
export async function runPactCommand(argv: readonly string[]): Promise<number> {
  try {
    return pact(argv);
  } catch (err) {
    if (err instanceof RecordingError || err instanceof StartupError) {
      process.stderr.write(`partnership-sandbox pact: ${err.message.split('\n')[0]}\n`);
      return 2;
    }
    throw err;
  }
}

function pact(argv: readonly string[]): number {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new StartupError(`${(err as Error).message} (see --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(PACT_USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new StartupError('one FILE.har is required (see --help)');
  if (!values.consumer) throw new StartupError('--consumer NAME is required (see --help)');
  const { pact, skipped } = buildPact(fromHar(readHar(positionals[0]!)), {
    consumer: values.consumer,
    ...(values.provider ? { provider: values.provider } : {}),
    sandboxVersion: packageVersion(),
  });
  const text = `${JSON.stringify(pact, null, 2)}\n`;
  if (values.out === undefined) process.stdout.write(text);
  else {
    try {
      writeFileSync(values.out, text);
    } catch (err) {
      throw new StartupError(
        `--out ${values.out}: cannot write it (${(err as NodeJS.ErrnoException).code ?? err})`,
      );
    }
    process.stderr.write(
      `partnership-sandbox pact: ${pact.interactions.length} interactions in ${values.out}${
        skipped.length ? `; ${skipped.length} calls left out (metadata names them)` : ''
      }\n`,
    );
  }
  return 0;
}

const OPTIONS = {
  consumer: { type: 'string' },
  provider: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
