// A process (or worker thread) that opens SQLite, prepares and drops many statements, and
// exits without closing anything: the garbage collector or the environment's teardown
// finalizes them. better-sqlite3 12 on Node 24 aborted here ("Assertion failed: (env) !=
// nullptr" in Statement::~Statement); run by test/native-teardown.test.ts.
//   node statement-churn.mjs [exit|natural] [worker]
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const [how = 'natural', where = 'process'] = isMainThread ? process.argv.slice(2) : workerData;

function churn(rounds) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT) STRICT');
  for (let i = 0; i < rounds; i++) {
    db.prepare('INSERT INTO t (v) VALUES (?)').run(`row ${i}`);
    db.prepare('SELECT v FROM t WHERE id = ?').get(i + 1);
    db.prepare(`SELECT count(*) AS n FROM t WHERE v LIKE '%${i % 10}'`).all();
  }
  globalThis.gc?.();
  return db; // left open: finalized at teardown
}

if (isMainThread && where === 'worker') {
  const worker = new Worker(new URL(import.meta.url), { workerData: [how, 'in-worker'] });
  worker.on('exit', (code) => {
    churn(2000);
    console.log(`worker exited ${code}`);
    if (how === 'exit') process.exit(code);
  });
} else {
  churn(5000);
  if (!isMainThread) console.log('worker done');
  if (how === 'exit') process.exit(0);
}
