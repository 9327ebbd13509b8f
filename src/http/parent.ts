/**
 * The parent account header (spec §1, §5): required on writes (422 without it), optional
 * but recommended on reads; it must name the token's parent (403 otherwise).
 */
import type { Context } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import { MISSING_PARENT_HEADER_MESSAGE, PARENT_MISMATCH_MESSAGE } from '../contract/api/messages.js';
import { type AppEnv, known } from './env.js';
import { requestHeader } from './request-headers.js';

export const PARENT_HEADER = 'X-Platform-Parent-Account-Id';

export function parentHeader(kind: 'write' | 'read') {
  return function parentHeader(c: Context<AppEnv>): void {
    const sent = requestHeader(c, PARENT_HEADER)?.trim();
    const parent = known(c, 'principal').parent_account_id;
    if (!sent) {
      if (kind === 'write') {
        throw new ApiError('missing_parent_account_header', MISSING_PARENT_HEADER_MESSAGE, {
          details: { header: PARENT_HEADER },
        });
      }
      c.get('warnings').push(
        `read without the recommended ${PARENT_HEADER} header; the real service recommends it on reads`,
      );
    } else if (sent !== parent) {
      throw new ApiError('parent_account_mismatch', PARENT_MISMATCH_MESSAGE, {
        details: { header: PARENT_HEADER },
      });
    }
  };
}
