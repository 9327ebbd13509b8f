/**
 * Where the package is: its folder (fixtures/, scenarios/, package.json beside src/ or dist/),
 * the nearest folder above this file's own place that holds a package.json: the repository
 * from src/base/, the package from dist/ once bundled. Imports nothing of the app (Node's
 * built-ins only): any layer may read it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's folder as a URL ending in '/': the first one up from here that holds package.json. */
function packageUrl(): URL {
  let url = new URL('.', import.meta.url);
  while (!existsSync(new URL('package.json', url))) {
    const up = new URL('..', url);
    if (up.href === url.href) throw new Error(`no package.json above ${import.meta.url}`);
    url = up;
  }
  return url;
}
const PACKAGE = packageUrl();

export const packageDir = fileURLToPath(PACKAGE);
export const defaultFixturesDir = fileURLToPath(new URL('fixtures', PACKAGE));
/** Whether `dir` is the package's own fixtures folder (its credentials are printed in the README). */
export const isDefaultFixtures = (dir: string): boolean => resolve(dir) === resolve(defaultFixturesDir);
export const builtInPresetsDir = fileURLToPath(new URL('scenarios', PACKAGE));

/** The package's version, read from its package.json (only when asked: --version). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('package.json', PACKAGE), 'utf8')) as { version: string }).version;
}
