/**
 * Where the package is: its folder (fixtures/, scenarios/, package.json beside src/ or dist/),
 * found from this file's own place, which is why it sits at the top of src/ (and of dist/ once
 * bundled). Imports nothing of the app: any layer may read it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const defaultFixturesDir = fileURLToPath(new URL('../fixtures', import.meta.url));
/** Whether `dir` is the package's own fixtures folder (its credentials are printed in the README). */
export const isDefaultFixtures = (dir: string): boolean => resolve(dir) === resolve(defaultFixturesDir);
export const builtInPresetsDir = fileURLToPath(new URL('../scenarios', import.meta.url));

/** The package's version, read from its package.json (only when asked: --version). */
export function packageVersion(): string {
  return (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
}
