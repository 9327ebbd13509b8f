/**
 * Validation messages name what is wrong with the value sent (issue 18 item 6): a wrong
 * type is not "is required", a URL with another scheme is not told to add "https://", a
 * newline is a control character, not a space. Each case is one request through HTTP,
 * answered 400 validation_error with exactly one field issue and its exact message.
 */
import { describe, expect, it } from 'vitest';
import {
  BLOCKED_VERTICALS_REQUIRED_MESSAGE,
  CONTENT_HASH_REQUIRED_MESSAGE,
  COUNTRY_CODE_MESSAGE,
  contentHashTypeMessage,
  controlCharacterMessage,
  countryCodeCaseMessage,
  DOMAIN_NAME_MESSAGE,
  DOMAIN_PATH_MESSAGE,
  DOMAIN_PORT_MESSAGE,
  DOMAINS_REQUIRED_MESSAGE,
  domainEmailMessage,
  domainSchemeMessage,
  EDGE_WHITESPACE_MESSAGE,
  EMPTY_MESSAGE,
  enumMessage,
  enumRequiredMessage,
  innerWhitespaceMessage,
  negativeMessage,
  notAnIntegerMessage,
  REQUIRED_MESSAGE,
  STORE_IDENTIFIER_HOST_MESSAGE,
  STORE_IDENTIFIER_INVALID_MESSAGE,
  storeIdentifierNoSchemeMessage,
  storeIdentifierSchemeMessage,
  storeIdentifierSlashesMessage,
  wrongTypeMessage,
} from '../../src/contract/api/messages.js';
import {
  CONTROLS,
  createHarness,
  expectErrorEnvelope,
  LAYOUT,
  REGISTER,
  type Reply,
  registerBody,
  STATUS,
} from '../helpers/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: bodies are built field by field
type Json = any;

const ABSENT = Symbol('absent');

/** A copy of `base` with `path` (dots and [i]) set to `value`, or removed for ABSENT. */
function withValue(base: Json, path: string, value: unknown): Json {
  const copy = structuredClone(base);
  const keys = path.split(/\.|\[(\d+)\]/).filter((k) => k !== undefined && k !== '');
  let at = copy;
  for (const k of keys.slice(0, -1)) at = at[k];
  const last = keys.at(-1)!;
  if (value === ABSENT) delete at[last];
  else at[last] = value;
  return copy;
}

function expectOneIssue(res: Reply, field: string, message: string) {
  const body = expectErrorEnvelope(res, 400, 'validation_error');
  expect(body.error.details.fields).toEqual([{ field, message }]);
  expect(body.message).toBe(`Invalid request: ${field}: ${message}`);
}

/** The field set, the value sent, the message, and the field the issue names when deeper. */
type Case = [field: string, value: unknown, message: string, issueField?: string];

async function world() {
  const h = createHarness();
  const partner = await h.client();
  const accountId = await partner.account();
  const layoutId: string = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.layouts[0]
    .layout_id;
  const state = async () => (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
  const accounts = async () =>
    (await h.request('GET', '/__sandbox/partners')).body.partners.flatMap(
      (p: { accounts: unknown[] }) => p.accounts,
    ).length;
  return { h, partner, accountId, layoutId, state, accounts };
}

const URL_LONG = 'https://acme.example.com';
const SURFACES = ['confirmation', 'tracking', 'returns'];

describe('register: each field names what is wrong with the value', () => {
  const cases: Case[] = [
    // the three of issue 18 item 6 (contentHash is below)
    ['store_identifier', 'mailto:a@b.co', storeIdentifierSchemeMessage('mailto')],
    ['store_identifier', `${URL_LONG}\n`, controlCharacterMessage('\n', URL_LONG.length)],
    // a scheme other than http(s), or one written without "//"
    ['store_identifier', 'javascript:alert(1)', storeIdentifierSchemeMessage('javascript')],
    ['store_identifier', 'ftp://acme.example.com', storeIdentifierSchemeMessage('ftp')],
    ['store_identifier', 'https:acme.example.com', storeIdentifierSlashesMessage('https')],
    // no scheme at all: a bare host, a host with a port, a scheme-relative URL
    ['store_identifier', 'acme.example.com', storeIdentifierNoSchemeMessage('https://acme.example.com')],
    ['store_identifier', 'localhost:3000', storeIdentifierNoSchemeMessage('https://localhost:3000')],
    ['store_identifier', '//acme.example.com', storeIdentifierNoSchemeMessage('https://acme.example.com')],
    // whitespace and control characters, each for what it is
    ['store_identifier', ` ${URL_LONG}`, EDGE_WHITESPACE_MESSAGE],
    ['store_identifier', 'https://acme example.com', innerWhitespaceMessage(' ', 12)],
    ['store_identifier', `${URL_LONG}/\u00a0x`, innerWhitespaceMessage('\u00a0', URL_LONG.length + 1)],
    ['store_identifier', `https://acme\t.example.com`, controlCharacterMessage('\t', 12)],
    ['store_identifier', 'https://', STORE_IDENTIFIER_HOST_MESSAGE],
    ['store_identifier', 'http://[::1', STORE_IDENTIFIER_INVALID_MESSAGE],
    ['store_identifier', 123, wrongTypeMessage('string', 123)],
    // a wrong type is the one problem (zod also ran its length checks on an array)
    ['store_identifier', [URL_LONG], wrongTypeMessage('string', [URL_LONG])],
    ['external_account_id', [], wrongTypeMessage('string', [])],
    ['store_identifier', ABSENT, REQUIRED_MESSAGE],
    // integers
    ['vertical_id', '10', wrongTypeMessage('integer', '10')],
    ['vertical_id', null, wrongTypeMessage('integer', null)],
    ['vertical_id', 10.5, notAnIntegerMessage(10.5)],
    ['vertical_id', 2 ** 53, notAnIntegerMessage(2 ** 53)],
    ['sub_vertical_id', -1, negativeMessage(-1)],
    ['sub_vertical_id', ABSENT, REQUIRED_MESSAGE],
    // country_code
    ['country_code', 'us', countryCodeCaseMessage('US')],
    ['country_code', 'USA', COUNTRY_CODE_MESSAGE],
    ['country_code', ' US', EDGE_WHITESPACE_MESSAGE],
    ['country_code', 'U\n', controlCharacterMessage('\n', 1)],
    ['country_code', 840, wrongTypeMessage('string', 840)],
    // strings and enums
    ['brand', 42, wrongTypeMessage('string', 42)],
    ['brand', '', EMPTY_MESSAGE],
    ['pages', 'x', wrongTypeMessage('array', 'x')],
    ['pages', [{ layout_type: 'Overlay' }], enumRequiredMessage(SURFACES), 'pages[0].surface'],
    ['pages', [{ surface: 5, layout_type: 'Overlay' }], enumMessage(SURFACES), 'pages[0].surface'],
  ];
  for (const [field, value, message, issueField] of cases) {
    const shown = value === ABSENT ? 'absent' : JSON.stringify(value)?.slice(0, 60);
    it(`${field} ${shown}: "${message}"`, async () => {
      const { partner, accounts } = await world();
      const before = await accounts();
      const res = await partner.call('POST', REGISTER, { body: withValue(registerBody(), field, value) });
      expectOneIssue(res, issueField ?? field, message);
      expect(await accounts()).toBe(before);
    });
  }

  it('pages over the cap: "must have at most 20 entries"', async () => {
    const { partner, accounts } = await world();
    const pages = Array.from({ length: 21 }, (_, i) => ({
      surface: SURFACES[i % 3]!,
      layout_type: 'Overlay',
    }));
    const body = expectErrorEnvelope(await partner.register({ pages }), 400, 'validation_error');
    expect(body.error.details.fields).toContainEqual({
      field: 'pages',
      message: 'must have at most 20 entries',
    });
    expect(await accounts()).toBe(1);
  });
});

describe('controls PUT: each field names what is wrong with the value', () => {
  const base = { blockedVerticals: [], domains: [{ domain: 'ok.example.com' }], contentHash: null };
  const cases: Case[] = [
    ['contentHash', 123, contentHashTypeMessage(123)],
    ['contentHash', true, contentHashTypeMessage(true)],
    ['contentHash', [], contentHashTypeMessage([])],
    ['contentHash', '', EMPTY_MESSAGE],
    ['contentHash', 'x'.repeat(129), 'must be at most 128 characters'],
    ['name', [], wrongTypeMessage('string', [])],
    ['contentHash', ABSENT, CONTENT_HASH_REQUIRED_MESSAGE],
    ['blockedVerticals', 'x', wrongTypeMessage('array', 'x')],
    ['blockedVerticals', null, wrongTypeMessage('array', null)],
    ['blockedVerticals', ABSENT, BLOCKED_VERTICALS_REQUIRED_MESSAGE],
    [
      'blockedVerticals',
      [{ partnerVerticalId: '10', partnerSubVerticalId: 1001 }],
      wrongTypeMessage('integer', '10'),
      'blockedVerticals[0].partnerVerticalId',
    ],
    [
      'blockedVerticals',
      [{ partnerVerticalId: 10, partnerSubVerticalId: 1.5 }],
      notAnIntegerMessage(1.5),
      'blockedVerticals[0].partnerSubVerticalId',
    ],
    [
      'blockedVerticals',
      [{ partnerVerticalId: 10 }],
      REQUIRED_MESSAGE,
      'blockedVerticals[0].partnerSubVerticalId',
    ],
    ['domains', {}, wrongTypeMessage('array', {})],
    ['domains', ABSENT, DOMAINS_REQUIRED_MESSAGE],
    ['domains[0].domain', 'a.example.com\n', controlCharacterMessage('\n', 13)],
    ['domains[0].domain', ' a.example.com', EDGE_WHITESPACE_MESSAGE],
    ['domains[0].domain', 'a .example.com', innerWhitespaceMessage(' ', 1)],
    ['domains[0].domain', 'mailto:a@b.co', domainSchemeMessage('b.co')],
    ['domains[0].domain', 'https://user@shop.example.com:8080/x', domainSchemeMessage('shop.example.com')],
    ['domains[0].domain', 'a@b.co', domainEmailMessage('b.co')],
    ['domains[0].domain', 'shop.example.com:8080', DOMAIN_PORT_MESSAGE],
    ['domains[0].domain', 'shop.example.com/x', DOMAIN_PATH_MESSAGE],
    ['domains[0].domain', 'localhost', DOMAIN_NAME_MESSAGE],
    ['domains[0].domain', '', EMPTY_MESSAGE],
    ['domains[0].domain', 5, wrongTypeMessage('string', 5)],
    ['name', '', EMPTY_MESSAGE],
    ['name', 5, wrongTypeMessage('string', 5)],
  ];
  for (const [field, value, message, issueField] of cases) {
    const shown = value === ABSENT ? 'absent' : JSON.stringify(value)?.slice(0, 60);
    it(`${field} ${shown}: "${message}"`, async () => {
      const { partner, accountId, state } = await world();
      const before = await state();
      const res = await partner.put(CONTROLS(accountId), withValue(base, field, value));
      expectOneIssue(res, issueField ?? field, message);
      expect(await state()).toEqual(before);
    });
  }
});

describe('status PUT and layout PATCH', () => {
  it('status: absent is "is required" with the allowed values; a wrong value names them', async () => {
    const { partner, accountId, state } = await world();
    const before = await state();
    expectOneIssue(
      await partner.put(STATUS(accountId), {}),
      'status',
      enumRequiredMessage(['active', 'paused']),
    );
    expectOneIssue(
      await partner.put(STATUS(accountId), { status: 5 }),
      'status',
      enumMessage(['active', 'paused']),
    );
    expect(await state()).toEqual(before);
  });

  it('layout: a name with a trailing space or a control character, and a layout_type of the wrong type', async () => {
    const { partner, accountId, layoutId, state } = await world();
    const before = await state();
    const path = LAYOUT(accountId, layoutId);
    expectOneIssue(await partner.patch(path, { name: 'Checkout ' }), 'name', EDGE_WHITESPACE_MESSAGE);
    expectOneIssue(
      await partner.patch(path, { name: 'Check\u007fout' }),
      'name',
      controlCharacterMessage('\u007f', 5),
    );
    expectOneIssue(
      await partner.patch(path, { layout_type: 1 }),
      'layout_type',
      enumMessage(['Overlay', 'Embedded']),
    );
    expect(await state()).toEqual(before);
  });
});

describe('the message texts', () => {
  it('read as the issue asks: what is wrong with the value sent', () => {
    expect(storeIdentifierSchemeMessage('mailto')).toBe('must use the http or https scheme (got "mailto:")');
    expect(controlCharacterMessage('\n', 24)).toBe(
      'must not contain control characters (U+000A at index 24)',
    );
    expect(contentHashTypeMessage(123)).toBe(
      'expected string or null, received number: null on the first write, then the content_hash of the latest GET or PUT',
    );
    expect(wrongTypeMessage('array', null)).toBe('expected array, received null');
    expect(notAnIntegerMessage(10.5)).toBe('must be an integer (got 10.5)');
    expect(innerWhitespaceMessage('\u00a0', 3)).toBe('must not contain whitespace (U+00A0 at index 3)');
  });
});
