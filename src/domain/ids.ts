/** Identifier formats. UUID-like where the spec says so (page, layout, list, request). */
import { randomUUID } from 'node:crypto';
import { customAlphabet, nanoid } from 'nanoid';

const lowerAlnum = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 20);

export const ids = {
  account: () => `acct_${lowerAlnum()}`,
  page: () => randomUUID(),
  layout: () => randomUUID(),
  variant: () => randomUUID(),
  controlsList: () => randomUUID(),
  request: () => randomUUID(),
  pageIdentifier: (surface: string) => `${surface}_${lowerAlnum().slice(0, 12)}`,
  /** Access tokens: 43 URL-safe random characters (~256 bits) from a CSPRNG. */
  accessToken: () => `sbx_${nanoid(43)}`,
  clientId: () => `client_${lowerAlnum()}`,
  clientSecret: () => `secret_${nanoid(40)}`,
  parentAccount: () => `pa_${lowerAlnum()}`,
};
