/**
 * The young generation while the sandbox starts: loading the bundle and the fixtures allocates
 * a lot that survives, and V8 answers by doubling its semi-spaces up to 16 MiB each, pages
 * that stay in the idle process's RSS (about 5 MiB of it on Node 24, bench/idle-rss.mjs).
 * Imported first by main.ts, so it runs before any other module of the bundle: the semi-spaces
 * keep their initial size until `startGrowing()`, called once the server listens (or a
 * subcommand takes over), which gives V8 back its default factor of 2 for traffic, so a
 * sandbox under load sizes its young generation exactly as before.
 * (A --semi-space-growth-factor given in NODE_OPTIONS is replaced by the default from then on.)
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--semi-space-growth-factor=1');

export function startGrowing(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
