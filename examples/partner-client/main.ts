/**
 * Runs the happy path against a live sandbox (real waits between propagation retries).
 * Usage: npx tsx examples/partner-client/main.ts [http://127.0.0.1:4010]
 */
import { partnerClient } from './client.js';
import { runHappyPath } from './happy-path.js';

const client = partnerClient({
  baseUrl: process.argv[2] ?? 'http://127.0.0.1:4010',
  clientId: 'sandbox-demo-client',
  clientSecret: 'sandbox-demo-secret',
  parentAccountId: 'pa_demo_platform',
});
const result = await runHappyPath(client, {
  wait: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
  log: (line) => console.log(line),
});
console.log(JSON.stringify(result, null, 2));
