// Runs a sandbox entry point (argv[2]) with a full garbage collection on SIGUSR2, so a bench
// can read the RSS of what is retained rather than of garbage not yet collected.
// BENCH_GC=last-resort makes it a memory-reducing one: the heap V8 grew for garbage is given
// back too.
// Start it with node --expose-gc.
const [, , main, ...rest] = process.argv;
process.argv = [process.argv[0], main, ...rest];
process.on('SIGUSR2', () => {
  if (process.env.BENCH_GC === 'last-resort')
    globalThis.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  else globalThis.gc();
  if (process.env.BENCH_MEMORY_USAGE) process.stderr.write(`${JSON.stringify(process.memoryUsage())}\n`);
});
await import(main);
