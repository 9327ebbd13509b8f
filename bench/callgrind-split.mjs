#!/usr/bin/env node
// A kept callgrind dump (BENCH_KEEP_CALLGRIND=1 node bench/instructions.mjs ...) split by each
// function's own cost: V8's collector, V8's compilers, and the rest, per call.
//   node bench/callgrind-split.mjs FILE [CALLS=5000]
import { execFileSync } from 'node:child_process';

const [file, calls] = [process.argv[2], Number(process.argv[3] ?? 5000)];
const text = execFileSync('callgrind_annotate', ['--threshold=100', file], {
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
const GC =
  /v8::internal::(Heap|Scavenger|ScavengerCollector|MarkCompact|MinorMarkSweep|Marking|IncrementalMarking|ConcurrentMarking|Sweeper|Evacuat|.*Visitor|MemoryAllocator|MemoryChunk|PageMetadata|MutablePageMetadata|MarkingBarrier|RememberedSet|SlotSet|TypedSlot|GlobalHandles|LocalHeap|Safepoint|ArrayBufferSweeper|PagedSpace|SemiSpace|NewSpace|LargeObjectSpace|FreeList|StringTable::.*Dead|.*Weak)|heap::base::|cppgc::/;
const COMPILE =
  /v8::internal::(compiler::|maglev::|baseline::|Parser|ParserBase|PreParser|Scanner|interpreter::Bytecode|Compiler::|AstNode|DeclarationScope|Scope::|Zone|turboshaft::)|v8::internal::(Assembler|MacroAssembler|.*Assembler)/;
let total = 0,
  gc = 0,
  compile = 0;
for (const line of text.split('\n')) {
  const m = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/.exec(line);
  if (!m) continue;
  const n = Number(m[1].replaceAll(',', ''));
  if (/PROGRAM TOTALS/.test(m[2])) {
    total = n;
    continue;
  }
  if (GC.test(m[2])) gc += n;
  else if (COMPILE.test(m[2])) compile += n;
}
const r = (x) => Math.round(x / calls).toLocaleString('en-US');
console.log(
  `${file}: total ${r(total)}, GC ${r(gc)}, compilers ${r(compile)}, rest ${r(total - gc - compile)} a call`,
);
