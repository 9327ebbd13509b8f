#!/usr/bin/env node
// What holding a request's repeated header strings once costs a call, alone: the list of a
// controls GET as Node's fetch sends it (nine headers), new strings each call as Node's parser
// makes them, with and without http/request-headers.ts's shareRepeated (a copy of it below:
// keep the two alike). Under callgrind, whose count repeats on a loaded machine:
//   for v in plain shared; do valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     node --single-threaded bench/header-strings.mjs $v 200000 2>&1 | grep refs; done
// (the difference of the two counts over the calls is the cost a call).
const shared = process.argv[2] === 'shared';
const calls = Number(process.argv[3] ?? 200000);

const lastOfLength = [];
const SHARED_LIST_MAX = 64;
function shareRepeated(raw) {
  const n = raw.length;
  if (n > SHARED_LIST_MAX) return;
  const last = lastOfLength[n];
  if (last !== undefined) {
    for (let i = 0; i < n; i++) {
      const kept = last[i];
      if (raw[i] === kept) raw[i] = kept;
    }
  }
  lastOfLength[n] = raw;
}

const list = [
  ['host', '127.0.0.1:43803'],
  ['connection', 'keep-alive'],
  ['Authorization', 'Bearer abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG'],
  ['X-Platform-Parent-Account-Id', 'pa_bench_00001'],
  ['accept', '*/*'],
  ['accept-language', '*'],
  ['sec-fetch-mode', 'cors'],
  ['user-agent', 'node'],
  ['accept-encoding', 'gzip, deflate'],
].flat();
const bytes = list.map((s) => Buffer.from(s, 'latin1'));
let count = 0;
for (let n = 0; n < calls; n++) {
  const raw = bytes.map((b) => b.latin1Slice(0, b.length));
  if (shared) shareRepeated(raw);
  count += raw.length;
}
console.log(`${calls} calls, ${count / calls} strings a list, ${shared ? 'shared' : 'plain'}`);
