/**
 * The Node.js lines the sandbox runs on (docs/getting-started.md): 22 and 24, the maintained
 * LTS lines. On an older one better-sqlite3 13 kills the process with a segmentation fault and
 * not a word (Node 20 is still Debian 12's own node), so the bin (dist/main.js, whose launcher
 * scripts/build.mjs writes with this module's code in it) and startSandbox() ask here first,
 * before the store is opened. No import: the launcher runs it before loading anything.
 */

/** The oldest major version the sandbox runs on (package.json `engines`: >=22). */
export const OLDEST_NODE_MAJOR = 22;

/** Why this Node.js cannot run the sandbox (one line), or undefined when it can. */
export function unsupportedRuntime(version: string): string | undefined {
  const major = Number.parseInt(version.replace(/^v/, ''), 10);
  if (major >= OLDEST_NODE_MAJOR) return undefined;
  return `Node.js ${version.replace(/^v/, '')} is not supported: the sandbox runs on Node.js 22 or 24 (the maintained LTS lines)`;
}
