#!/usr/bin/env node
// Journal memory (issue 25, item 5): RSS of the production build before and after 1,000
// rejected registrations whose `brand` is 200 KiB (each is journaled with its body), sent
// one at a time through a real listening server. The journal then reads once (every entry
// materialised, as the dashboard or a bundle export does), and RSS is read again.
//
// Each reading is taken 1 s after a full garbage collection in the server (SIGUSR2, see
// gc-on-signal.mjs): RSS of what is retained, not of garbage V8 has not collected yet.
//
// Usage: npm run build && node bench/journal-rss.mjs [--requests=1000] [--brand-kib=200]
//        (SANDBOX_JOURNAL_BODY_BYTES in the environment is passed on to the server)
import {
  authHeaders,
  getToken,
  numberArg,
  REGISTER,
  registerBody,
  sandboxDist,
  settledRssMiB,
  startServer,
} from './lib.mjs';

const requests = numberArg('requests', 1000);
const brandKiB = numberArg('brand-kib', 200);

const env = {};
if (process.env.SANDBOX_JOURNAL_BODY_BYTES)
  env.SANDBOX_JOURNAL_BODY_BYTES = process.env.SANDBOX_JOURNAL_BODY_BYTES;
const sb = await startServer(new URL('./gc-on-signal.mjs', import.meta.url).pathname, {
  env,
  args: [sandboxDist().main],
  nodeArgs: ['--expose-gc'],
});
/** RSS in MiB, read 1 s after a full GC in the server. */
const settledRss = () => settledRssMiB(sb);
try {
  const token = await getToken(sb.url);
  const before = await settledRss();
  const body = JSON.parse(registerBody('rss'));
  for (let i = 0; i < requests; i++) {
    body.external_account_id = `rss-${i}`;
    // A new string per request, as a client sends: nothing shared between the bodies.
    body.brand = `${i}:${'b'.repeat(brandKiB * 1024)}`;
    const res = await fetch(`${sb.url}${REGISTER}`, {
      method: 'POST',
      headers: authHeaders(token),
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    if (res.status !== 400) throw new Error(`expected 400 (brand too long), got ${res.status}`);
  }
  const after = await settledRss();
  const journal = await fetch(`${sb.url}/__sandbox/requests?limit=${requests}`);
  const read = await journal.json();
  const afterRead = await settledRss();
  const first = read.requests.find((e) => e.path === REGISTER);
  console.log(
    JSON.stringify(
      {
        requests,
        brand_kib: brandKiB,
        journal_body_bytes: env.SANDBOX_JOURNAL_BODY_BYTES ?? 'default',
        rss_mib: {
          idle: +before.toFixed(1),
          after_requests: +after.toFixed(1),
          after_journal_read: +afterRead.toFixed(1),
        },
        journaled: read.requests.length,
        kept_request_body_chars: first?.request_body?.length,
        request_body_truncated: first?.request_body_truncated,
      },
      null,
      2,
    ),
  );
} finally {
  await sb.stop();
}
