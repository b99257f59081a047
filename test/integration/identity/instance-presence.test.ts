import { afterAll, describe, expect, it } from 'vitest';
import { listenToPostgres, type KeyChangeFeed } from '../../../adapters/identity/key-change-feed.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

const quiet = { changed: () => {}, lost: () => {}, listening: () => {} };
const settings = (fingerprint: string) => ({ fingerprint, refusal: (theirs: string) => `SVC_TIERS differs: ${theirs}, not ${fingerprint}` });

/** Instances present on one PostgreSQL database through their key change feeds, and the settings they must share. */
describe.runIf(process.env.TEST_DATABASE_URL)('instance presence', () => {
  // Migrated: the presence check itself needs no table, but this is the database instances would share.
  const migrated = useMigratedOrm();
  const feeds: KeyChangeFeed[] = [];
  const start = async (fingerprint: string) => {
    const feed = await listenToPostgres(migrated.db.databaseUrl!, quiet, { settings: settings(fingerprint) });
    feeds.push(feed);
    return feed;
  };

  afterAll(async () => {
    for (const feed of feeds) await feed.close();
  });

  it('of two instances starting at once with different settings, exactly one starts', async () => {
    const outcomes = await Promise.allSettled([start('aaaa'), start('bbbb')]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(/SVC_TIERS differs/);
    for (const feed of feeds.splice(0)) await feed.close();
  });

  it('starts beside instances with the same settings, and once the other settings have left', async () => {
    const first = await start('aaaa');
    await expect(start('aaaa')).resolves.toBeDefined();
    await expect(start('bbbb')).rejects.toThrow('SVC_TIERS differs: aaaa, not bbbb');
    for (const feed of feeds.splice(0)) await feed.close();
    expect(first).toBeDefined();
    await expect(start('bbbb')).resolves.toBeDefined();
  });
});
