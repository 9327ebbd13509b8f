/**
 * The tools partners run on the documents pass with no error and no warning:
 * swagger-parser's validation, Spectral's `spectral:oas` ruleset and Redocly's
 * `recommended` rules, on the partner document (3.1 and 3.0.3), the sandbox document and
 * the control plane's.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import * as SpectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { createHarness } from '../helpers/harness.js';

const { Spectral, Document } = spectralCore;
// The package is CommonJS: its named exports sit on `default` under ESM interop.
const Parsers = ((SpectralParsers as unknown as { default?: typeof SpectralParsers }).default ??
  SpectralParsers) as typeof SpectralParsers;

const DOCUMENTS = ['/openapi.json', '/openapi.sandbox.json', '/openapi-3.0.json', '/__sandbox/openapi.json'];

async function served(path: string): Promise<string> {
  const h = createHarness();
  const res = await h.request('GET', path);
  expect(res.status).toBe(200);
  return res.text;
}

describe('the documents pass the linters partners run', () => {
  for (const path of DOCUMENTS) {
    it(`swagger-parser validates ${path} (schema and references), its license named by SPDX`, async () => {
      const doc = JSON.parse(await served(path));
      const api = (await SwaggerParser.validate(doc)) as { info: { license?: Record<string, string> } };
      expect(api.info.license).toEqual(
        path === '/openapi-3.0.json'
          ? { name: 'Apache-2.0', url: 'https://spdx.org/licenses/Apache-2.0.html' }
          : { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      );
    });

    it(`Spectral spectral:oas: no error, no warning on ${path}`, async () => {
      const spectral = new Spectral();
      spectral.setRuleset({ extends: [oas as never] });
      const results = await spectral.run(new Document(await served(path), Parsers.Json, path));
      expect(results.map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`)).toEqual([]);
    });

    it(`Redocly recommended: no error, no warning on ${path}`, async () => {
      const config = await createConfig({
        extends: ['recommended'],
      });
      const problems = await lintFromString({ source: await served(path), absoluteRef: path, config });
      expect(problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    });
  }

  it('the linters do report a broken document (the check itself)', async () => {
    const doc = JSON.parse(await served('/openapi.json'));
    delete doc.paths['/oauth/token'].post.operationId;
    doc.paths['/oauth/token'].post.security = undefined;
    const text = JSON.stringify(doc);
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas as never] });
    const results = await spectral.run(new Document(text, Parsers.Json, 'broken.json'));
    expect(results.map((r) => r.code)).toContain('operation-operationId');
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'broken.json', config });
    expect(problems.map((p) => p.ruleId)).toContain('security-defined');
    // swagger-parser: the 3.1 license object without its identifier (the finding that was
    // reported against the served document)
    const unlicensed = JSON.parse(await served('/openapi.json'));
    delete unlicensed.info.license.identifier;
    await expect(SwaggerParser.validate(unlicensed)).rejects.toThrow(/identifier/);
  });
});
