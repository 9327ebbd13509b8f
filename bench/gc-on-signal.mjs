// Runs a sandbox entry point (argv[2]) with a full garbage collection on SIGUSR2, so a bench
// can read the RSS of what is retained rather than of garbage not yet collected.
// Start it with node --expose-gc.
const [, , main, ...rest] = process.argv;
process.argv = [process.argv[0], main, ...rest];
process.on('SIGUSR2', () => {
  globalThis.gc();
  if (process.env.BENCH_MEMORY_USAGE) process.stderr.write(`${JSON.stringify(process.memoryUsage())}\n`);
});
await import(main);
