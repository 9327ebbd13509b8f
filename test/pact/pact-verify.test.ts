/**
 * Pact's own verifier (@pact-foundation/pact's Verifier, the Rust core inside) against real
 * listening sandboxes, with the provider states of POST /__sandbox/pact/states (docs/contracts.md):
 * (a) a consumer pact written from the spec (test/pact/pacts/) covering endpoints 1 to 7
 *     with a 409, a 422 and a 401, using the three states, verifies;
 * (b) the pact a sandbox exports of the getting-started tour (GET /__sandbox/pact), and the one
 *     `partnership-sandbox pact` writes from a recording of it, verify against a fresh sandbox;
 * (c) a pact whose expectation is wrong (an error.code the sandbox does not answer) fails, and
 *     the failure names the interaction.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Verifier } from '@pact-foundation/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startRecorder, startSandbox } from '../../src/index.js';
import { runPactCommand } from '../../src/pact/pact-cli.js';
import { Client, DEMO, tour } from '../drift/flows.js';

const CONSUMER_PACT = join(import.meta.dirname, 'pacts', 'partner-app-partnership-accounts-api.json');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pact-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Verifies pact files against a fresh sandbox through its states URL; the verifier's output and how long it took. */
async function verify(pactUrls: string[]): Promise<{ ok: boolean; output: string; ms: number }> {
  const sandbox = await startSandbox();
  const started = performance.now();
  try {
    const output = await new Verifier({
      provider: 'partnership-accounts-api',
      providerBaseUrl: sandbox.url,
      pactUrls,
      providerStatesSetupUrl: `${sandbox.url}/__sandbox/pact/states`,
      logLevel: 'error',
    }).verifyProvider();
    return { ok: true, output: String(output), ms: performance.now() - started };
  } catch (err) {
    return { ok: false, output: (err as Error).message, ms: performance.now() - started };
  } finally {
    await sandbox.stop();
  }
}

describe('Pact verifier against the sandbox', () => {
  it('(a) a consumer pact written from the spec verifies: endpoints 1 to 7, a 409, a 422, a 401, the three states', async () => {
    const pact = JSON.parse(readFileSync(CONSUMER_PACT, 'utf8'));
    const statuses = pact.interactions.map((i: { response: { status: number } }) => i.response.status);
    expect(statuses).toEqual(expect.arrayContaining([200, 409, 422, 401]));
    const states = new Set(
      pact.interactions.flatMap((i: { providerStates: { name: string }[] }) =>
        i.providerStates.map((s) => s.name),
      ),
    );
    expect([...states].sort()).toEqual(['a partner', 'a scenario', 'an account']);
    const result = await verify([CONSUMER_PACT]);
    console.log(`pact (a): ${pact.interactions.length} interactions verified in ${Math.round(result.ms)} ms`);
    expect(result.ok, result.output).toBe(true);
  }, 60_000);

  let tourPact: { interactions: { description: string; response: { body: { content: unknown } } }[] };
  let recorded: string;
  it("(b) the pact exported from a tour's journal verifies against a fresh sandbox, and holds no secret", async () => {
    const upstream: RunningSandbox = await startSandbox();
    recorded = join(dir, 'tour.har');
    const recorder = await startRecorder({ upstream: upstream.url, port: 0, out: recorded });
    try {
      await tour(new Client(recorder.url));
    } finally {
      await recorder.stop();
    }
    const res = await fetch(`${upstream.url}/__sandbox/pact?parent_account_id=${DEMO.parent}&consumer=tour`);
    expect(res.status).toBe(200);
    const text = await res.text();
    await upstream.stop();
    tourPact = JSON.parse(text);
    expect(text).not.toContain(DEMO.clientSecret);
    expect(text).not.toMatch(/sbx_[A-Za-z0-9_-]{20,}/); // no token the sandbox issued
    const descriptions = tourPact.interactions.map((i) => i.description);
    expect(new Set(descriptions).size).toBe(descriptions.length);
    expect(descriptions).toEqual(
      expect.arrayContaining([
        'POST /oauth/token -> 200',
        'POST /v1/accounts/register/partnership -> 200',
        'PUT /v1/partnership/accounts/{account_id}/marketplacecontrolslists (dry run) -> 200',
        'PATCH /v1/partnership/accounts/{account_id}/layouts/{layout_id} -> 200',
        'PUT /v1/partnership/accounts/{account_id}/status -> 422 missing_parent_account_header',
      ]),
    );
    // the tour registers the same merchant twice and writes the controls twice: one interaction each
    expect(descriptions.filter((d) => d === 'POST /v1/accounts/register/partnership -> 200')).toHaveLength(1);
    const file = join(dir, 'tour-pact.json');
    writeFileSync(file, text);
    const result = await verify([file]);
    console.log(
      `pact (b): ${tourPact.interactions.length} interactions verified in ${Math.round(result.ms)} ms`,
    );
    expect(result.ok, result.output).toBe(true);
  }, 60_000);

  it('(b) `partnership-sandbox pact FILE.har` writes the same kind of pact from a recording, and it verifies', async () => {
    const out = join(dir, 'har-pact.json');
    expect(await runPactCommand([recorded, '--consumer', 'tour-recording', '--out', out])).toBe(0);
    const text = readFileSync(out, 'utf8');
    const pact = JSON.parse(text);
    expect(pact.consumer).toEqual({ name: 'tour-recording' });
    expect(pact.metadata.pactSpecification).toEqual({ version: '4.0' });
    expect(text).not.toContain(DEMO.clientSecret);
    expect(text).not.toContain('[redacted:');
    // the recording holds the call without a token too (the journal files it under no partner)
    expect(pact.interactions.map((i: { description: string }) => i.description)).toContain(
      'GET /v1/partnership/accounts/{account_id}/status -> 401 unauthorized',
    );
    const result = await verify([out]);
    console.log(
      `pact (b, HAR): ${pact.interactions.length} interactions verified in ${Math.round(result.ms)} ms`,
    );
    expect(result.ok, result.output).toBe(true);
  }, 60_000);

  it('(c) a pact whose expectation is wrong fails, naming the interaction', async () => {
    const pact = JSON.parse(readFileSync(CONSUMER_PACT, 'utf8'));
    const wrong = pact.interactions.find((i: { description: string }) => i.description.startsWith('5b.'));
    wrong.description = 'a status write without the parent header, expecting the wrong code';
    wrong.response.body.content.error.code = 'parent_header_missing';
    pact.interactions = [pact.interactions[0], wrong];
    const file = join(dir, 'wrong-pact.json');
    writeFileSync(file, JSON.stringify(pact));
    const result = await verify([file]);
    expect(result.ok).toBe(false);
    // The verifier rejects with its result as JSON: the failures, and the report it printed.
    const report = JSON.parse(result.output) as { errors: { interaction: string }[]; output: string[] };
    const printed = report.output
      .join('\n')
      .replace(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g'), '');
    console.log(
      `pact (c): failed as expected in ${Math.round(result.ms)} ms; the verifier printed:\n${printed}`,
    );
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]!.interaction).toBe(
      'Verifying a pact between partner-app and partnership-accounts-api Given a partner And an account - a status write without the parent header, expecting the wrong code',
    );
    expect(printed).toContain(
      "$.error.code -> Expected 'missing_parent_account_header' (String) to be equal to 'parent_header_missing' (String)",
    );
  }, 60_000);
});
