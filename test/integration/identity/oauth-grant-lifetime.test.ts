import { describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { oauthModelAdapterFactory } from '../../../adapters/oauth/oauth-model-adapter.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

const DAY_S = 86_400;
const APPROVED = new Date('2026-06-01T00:00:00Z');

/** The storage adapter keeps a grant alive as long as its newest refresh token (oidc-provider saves a grant once). */
describe('a grant in storage', () => {
  const migrated = useMigratedOrm();
  let now = APPROVED;
  const epoch = () => Math.floor(now.getTime() / 1000);
  const adapters = () => oauthModelAdapterFactory(sqlDbFromOrm(migrated.orm), () => now);
  /** As oidc-provider saves them: the payload's `exp` (epoch seconds) and the lifetime passed agree. */
  const saveGrant = (grantId: string, ttl: number) => adapters()('Grant').upsert(grantId, { kind: 'Grant', jti: grantId, accountId: 'a1', clientId: 'c1', iat: epoch(), exp: epoch() + ttl }, ttl);
  const saveRefreshToken = (token: string, grantId: string, ttl: number) =>
    adapters()('RefreshToken').upsert(token, { kind: 'RefreshToken', jti: token, grantId, clientId: 'c1', iat: epoch(), exp: epoch() + ttl }, ttl);

  it('lasts until its newest refresh token ends, in its row and in the exp oidc-provider checks', async () => {
    now = APPROVED;
    await saveGrant('g-rotated', 30 * DAY_S);
    now = new Date(APPROVED.getTime() + 20 * DAY_S * 1000);
    await saveRefreshToken('rt-day-20', 'g-rotated', 30 * DAY_S);
    const grantEnd = epoch() + 30 * DAY_S;
    // Past the 30 days it was saved with, before the token's end.
    now = new Date(APPROVED.getTime() + 49 * DAY_S * 1000);
    expect(await adapters()('Grant').find('g-rotated')).toMatchObject({ exp: grantEnd, accountId: 'a1' });
    now = new Date(grantEnd * 1000);
    expect(await adapters()('Grant').find('g-rotated')).toBeUndefined();
  });

  it('is never shortened by a token ending before it', async () => {
    now = APPROVED;
    await saveGrant('g-long', 30 * DAY_S);
    await saveRefreshToken('rt-short', 'g-long', DAY_S);
    now = new Date(APPROVED.getTime() + 29 * DAY_S * 1000);
    expect(await adapters()('Grant').find('g-long')).toMatchObject({ exp: Math.floor(APPROVED.getTime() / 1000) + 30 * DAY_S });
  });

  it('is not brought back by a token saved after it was deleted', async () => {
    now = APPROVED;
    await saveGrant('g-gone', 30 * DAY_S);
    await adapters()('Grant').destroy('g-gone');
    await saveRefreshToken('rt-late', 'g-gone', 30 * DAY_S);
    expect(await adapters()('Grant').find('g-gone')).toBeUndefined();
    expect(await adapters()('RefreshToken').find('rt-late')).toMatchObject({ grantId: 'g-gone' });
  });
});
