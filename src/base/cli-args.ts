/**
 * node:util parseArgs's errors in the command line's own words, on one line: the bin and its
 * subcommands (`mcp`, `record`, `verify`) exit 2 with one line on stderr, and Node's wording
 * does not fit one (its "Unknown option" advice, given when positionals are allowed, ends with
 * an unbalanced quote; an ambiguous value takes three lines).
 */

/** What is wrong with the arguments, one line ending with where the flags are listed. */
export function argsProblem(err: unknown): string {
  const { code, message } = err as { code?: string; message: string };
  // Node names the option or argument first, in single quotes: '--prot', '--url <value>', '-h, --help'.
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  const flag = quoted
    .replace(/ <value>$/, '')
    .split(', ')
    .at(-1)!;
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${flag} (see --help)`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)} (see --help)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(message)) return `${flag} takes no value (see --help)`;
      if (/ambiguous/.test(message))
        return `${flag} needs a value, and the next argument is an option (for a value that starts with "-", write ${flag}=VALUE)`;
      return `${flag} needs a value (see --help)`;
    default:
      return `${message.split('\n')[0]} (see --help)`;
  }
}
