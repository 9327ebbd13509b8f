/**
 * The redaction step of record on its own (drift/redact.ts, docs/drift.md "No secret in the
 * file"): each shape of body and header, the text that goes in the file.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/drift/redact.js';
import { redactJsonText } from '../../src/drift/redact-json.js';

describe('Redactor.body', () => {
  it.each([
    [
      'JSON, a string',
      '{"access_token":"t1","x":1}',
      'application/json',
      '{"access_token":"[redacted:1]","x":1}',
    ],
    [
      'JSON, an array and an object',
      '{"a":[{"refresh_token":["t1"]}],"client_secret":{"v":"s"}}',
      'application/json',
      '{"a":[{"refresh_token":"[redacted:1]"}],"client_secret":"[redacted:2]"}',
    ],
    [
      'JSON, an escaped key',
      '{"client_\\u0073ecret" : "s1"}',
      'application/json',
      '{"client_\\u0073ecret" : "[redacted:1]"}',
    ],
    [
      'JSON with a byte-order mark',
      '\uFEFF{"access_token":"t1"}',
      'application/json',
      '\uFEFF{"access_token":"[redacted:1]"}',
    ],
    [
      'JSON as octet-stream',
      '{"access_token":"t1"}',
      'application/octet-stream',
      '{"access_token":"[redacted:1]"}',
    ],
    [
      'JSON that does not parse',
      '{"access_token": "t1", oops',
      'application/json',
      '{"access_token": "[redacted:1]", oops',
    ],
    [
      'a form, its key percent-encoded',
      'a=1&client%5Fsecret=s1',
      'application/x-www-form-urlencoded',
      'a=1&client%5Fsecret=%5Bredacted%3A1%5D',
    ],
    ['a form as text/plain', 'client_secret=s1&b=2', 'text/plain', 'client_secret=%5Bredacted%3A1%5D&b=2'],
    [
      'XML',
      '<r><access_token>t1</access_token></r>',
      'application/xml',
      '<r><access_token>[redacted:1]</access_token></r>',
    ],
    ['YAML', 'access_token: t1\nx: 2\n', 'text/yaml', 'access_token: [redacted:1]\nx: 2\n'],
    [
      'no secret',
      '{"token_type":"bearer","client_id":"c"}',
      'application/json',
      '{"token_type":"bearer","client_id":"c"}',
    ],
  ])('%s', (_name, text, mime, expected) => {
    expect(new Redactor().body(text, mime)).toBe(expected);
  });

  it('a body nested a million deep: one pass, no stack overflow', () => {
    const depth = 1_000_000;
    const text = `${'['.repeat(depth)}{"password":"p"}${']'.repeat(depth)}`;
    expect(new Redactor().body(text, 'application/json')).toBe(
      `${'['.repeat(depth)}{"password":"[redacted:1]"}${']'.repeat(depth)}`,
    );
  });

  it('the same value is the same placeholder, in a header and a body', () => {
    const r = new Redactor();
    expect(r.header('Authorization', 'Bearer t1')).toBe('Bearer [redacted:1]');
    expect(r.body('{"access_token":"t1"}', 'application/json')).toBe('{"access_token":"[redacted:1]"}');
    expect(r.header('X-Api-Key', 'k1')).toBe('[redacted:2]');
    expect(r.header('Cookie', 'sid=abc')).toBe('[redacted:3]');
    expect(r.header('Authorization', `Basic ${Buffer.from('id:s').toString('base64')}`)).toBe(
      'Basic [redacted:4]',
    );
    expect(r.header('X-Request-Id', 'r1')).toBe('r1');
  });
});

describe('redactJsonText', () => {
  it('is undefined for what is not one JSON value', () => {
    for (const text of ['', '{', '{"a":1,}', '[1 2]', '{"a" 1}', '"x', '{} {}', 'nul']) {
      expect(
        redactJsonText(
          text,
          () => true,
          () => 'x',
        ),
        text,
      ).toBeUndefined();
    }
  });
});
