import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { createIdentityStore } from '../../../adapters/identity/identity-store.ts';
import { hashPassword, verifyPassword } from '../../../adapters/people/password-hash.ts';
import { createPersonStore, EMAIL_MAX_LENGTH, hashSessionToken, MAX_SESSIONS_PER_PERSON, SESSION_TTL_MS, WORKSPACES_PER_PERSON, type PersonStore } from '../../../adapters/people/person-store.ts';
import { WorkspaceLimitReached } from '../../../adapters/identity/identity-error.ts';
import { FAILURES_PER_ADDRESS, FAILURES_PER_DEVICE, FAILURES_PER_EMAIL, FAILURES_PER_EMAIL_PER_ADDRESS, SIGN_UPS_PER_ADDRESS, SignUpThrottled, SPARES_PER_EMAIL, THROTTLE_WINDOW_MS } from '../../../adapters/people/sign-in-throttle.ts';
import { KNOWN_DEVICE_TTL_MS } from '../../../adapters/people/known-device.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

describe('person store', () => {
  const migrated = useMigratedOrm();
  let store: PersonStore;
  /** The same store on the same database at scrypt cost 2^10: for the tests that count dozens of attempts. */
  let counting: PersonStore;
  let now = new Date('2026-11-24T12:00:00Z');

  beforeAll(async () => {
    const options = { orm: migrated.orm, db: sqlDbFromOrm(migrated.orm), identity: createIdentityStore(migrated.orm), clock: () => now };
    store = createPersonStore(options);
    counting = createPersonStore({ ...options, passwordLog2N: 10 });
  });

  it('hashes passwords with scrypt and a per-hash salt', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword('correct horse battery', first)).toBe(true);
    expect(await verifyPassword('correct horse battery!', first)).toBe(false);
    expect(await verifyPassword('anything', 'not a hash')).toBe(false);
  });

  it('signs a person up with a workspace of their own that receives the free grant', async () => {
    const { person, workspace } = await store.signUp({ email: ' Ada@Example.com ', password: 'lovelace-1843', name: 'Ada' });
    expect(person).toMatchObject({ email: 'ada@example.com', name: 'Ada' });
    expect(workspace).toMatchObject({ name: "Ada's workspace", ownerPersonId: person.id, receivesFreeGrant: true });
    expect(await store.workspaces(person.id)).toEqual([{ ...workspace, role: 'owner' }]);
    expect(await store.role(person.id, workspace.id)).toBe('owner');
    const [row] = await migrated.orm.em.getConnection().execute<{ password_hash: string }[]>('select password_hash from person where id = ?', [person.id]);
    // At the production cost: the store lowers it only when asked (passwordLog2N).
    expect(row.password_hash).toMatch(/^scrypt\$15\$/);
    expect(row.password_hash).not.toContain('lovelace');
  });

  it('refuses a taken email, a short password and a malformed email, naming the field, and keeps nothing', async () => {
    await expect(store.signUp({ email: 'ADA@example.com', password: 'another-password' })).rejects.toMatchObject({ kind: 'duplicate_email', field: 'email' });
    await expect(store.signUp({ email: 'bob@example.com', password: 'short' })).rejects.toMatchObject({ kind: 'invalid_password', field: 'password' });
    await expect(store.signUp({ email: 'not-an-email', password: 'long-enough-password' })).rejects.toMatchObject({ kind: 'invalid_email', field: 'email' });
    const rows = await migrated.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from person where email in ('bob@example.com', 'not-an-email')`);
    expect(rows[0].n).toBe(0);
  });

  it('signs in with the right password only', async () => {
    const ok = await store.signIn({ email: 'ada@EXAMPLE.com', password: 'lovelace-1843' });
    expect(ok).toMatchObject({ person: { email: 'ada@example.com', name: 'Ada' } });
    expect(await store.signIn({ email: 'ada@example.com', password: 'lovelace-1844' })).toEqual({ failure: 'invalid_credentials' });
    expect(await store.signIn({ email: 'nobody@example.com', password: 'lovelace-1843' })).toEqual({ failure: 'invalid_credentials' });
  });

  it('throttles guesses at an account from one address until its window ends, even the right password from it, and not the owner elsewhere', async () => {
    const { person } = await store.signUp({ email: 'grace@example.com', password: 'hopper-cobol-59' });
    const guesser = '203.0.113.50';
    for (let attempt = 0; attempt < FAILURES_PER_EMAIL_PER_ADDRESS; attempt++) {
      expect(await store.signIn({ email: 'grace@example.com', password: `wrong-${attempt}`, address: guesser })).toEqual({ failure: 'invalid_credentials' });
    }
    expect(await store.signIn({ email: 'grace@example.com', password: 'hopper-cobol-59', address: guesser })).toEqual({ failure: 'throttled', retryAfterSeconds: THROTTLE_WINDOW_MS / 1000 });
    // The owner, from their own address, is not locked out by someone else's guesses (review F7).
    expect(await store.signIn({ email: 'grace@example.com', password: 'hopper-cobol-59', address: '198.51.100.60' })).toMatchObject({ person: { id: person.id } });
    now = new Date(now.getTime() + THROTTLE_WINDOW_MS - 1000);
    expect(await store.signIn({ email: 'grace@example.com', password: 'hopper-cobol-59', address: guesser })).toEqual({ failure: 'throttled', retryAfterSeconds: 1 });
    now = new Date(now.getTime() + 1000);
    expect(await store.signIn({ email: 'grace@example.com', password: 'hopper-cobol-59', address: guesser })).toMatchObject({ person: { id: person.id } });
  });

  it('caps guesses at an account from all addresses together, one more each from an address with none, and lets the owner in', async () => {
    const { person } = await counting.signUp({ email: 'barbara@example.com', password: 'liskov-clu-1974' });
    const guess = (address: string, password = 'guess-guess') => counting.signIn({ email: 'barbara@example.com', password, address });
    const guessers = Array.from({ length: FAILURES_PER_EMAIL / FAILURES_PER_EMAIL_PER_ADDRESS }, (_, i) => `2001:db8:f7:${i}::1`);
    for (const address of guessers) {
      for (let i = 0; i < FAILURES_PER_EMAIL_PER_ADDRESS - 1; i++) expect(await guess(address)).toEqual({ failure: 'invalid_credentials' });
    }
    now = new Date(now.getTime() + 60_000);
    for (const address of guessers) expect(await guess(address)).toEqual({ failure: 'invalid_credentials' });
    // At the ceiling: an address with failures here waits for the account's window (it began a minute earlier than
    // the last failure) ...
    expect(await guess(guessers[0], 'liskov-clu-1974')).toEqual({ failure: 'throttled', retryAfterSeconds: THROTTLE_WINDOW_MS / 1000 - 60 });
    // ... a new one is checked once, then waits too ...
    expect(await guess('2001:db8:f7:99::1')).toEqual({ failure: 'invalid_credentials' });
    expect(await guess('2001:db8:f7:99::2')).toEqual({ failure: 'throttled', retryAfterSeconds: THROTTLE_WINDOW_MS / 1000 - 60 });
    // ... and the owner, from an address with no failure here, signs in, again and again.
    for (let i = 0; i < 3; i++) expect(await guess('198.51.100.61', 'liskov-clu-1974')).toMatchObject({ person: { id: person.id } });
    now = new Date(now.getTime() + THROTTLE_WINDOW_MS);
    expect(await guess(guessers[0], 'liskov-clu-1974')).toMatchObject({ person: { id: person.id } });
  });

  it('lets at most SPARES_PER_EMAIL fresh addresses in all past the account\'s 20, however many /64s a guesser holds; a successful sign-in takes none', async () => {
    const { person } = await counting.signUp({ email: 'john-backus@example.com', password: 'backus-fortran-57' });
    const guess = (address: string, password = 'guess-guess') => counting.signIn({ email: 'john-backus@example.com', password, address });
    // One /48: 65,536 /64s, each a fresh address to the per-address counts (review 4).
    const fromBlock = (i: number) => `2001:db8:48:${i.toString(16)}::1`;
    let next = 0;
    for (; next < FAILURES_PER_EMAIL / FAILURES_PER_EMAIL_PER_ADDRESS; next++) {
      for (let i = 0; i < FAILURES_PER_EMAIL_PER_ADDRESS; i++) expect(await guess(fromBlock(next))).toEqual({ failure: 'invalid_credentials' });
    }
    // The owner from their own address past the 20: let in, and their spare given back.
    expect(await guess('198.51.100.62', 'backus-fortran-57')).toMatchObject({ person: { id: person.id } });
    for (let i = 0; i < SPARES_PER_EMAIL; i++) expect(await guess(fromBlock(next++))).toEqual({ failure: 'invalid_credentials' });
    now = new Date(now.getTime() + 60_000);
    // The spares are spent: another /64 waits for the account's window (or its spares'), the owner too.
    expect(await guess(fromBlock(next++))).toEqual({ failure: 'throttled', retryAfterSeconds: THROTTLE_WINDOW_MS / 1000 - 60 });
    expect(await guess('198.51.100.62', 'backus-fortran-57')).toEqual({ failure: 'throttled', retryAfterSeconds: THROTTLE_WINDOW_MS / 1000 - 60 });
    now = new Date(now.getTime() + THROTTLE_WINDOW_MS);
    expect(await guess('198.51.100.62', 'backus-fortran-57')).toMatchObject({ person: { id: person.id } });
  });

  /** Spends every count of an account from fresh /64s of one /48: its 20 failures, then its spares (review h, F1). */
  async function exhaust(signIn: (address: string, password: string) => Promise<unknown>, block: number): Promise<void> {
    const fromBlock = (i: number) => `2001:db8:${block.toString(16)}:${i.toString(16)}::1`;
    let next = 0;
    for (; next < FAILURES_PER_EMAIL / FAILURES_PER_EMAIL_PER_ADDRESS; next++) {
      for (let i = 0; i < FAILURES_PER_EMAIL_PER_ADDRESS; i++) await signIn(fromBlock(next), 'guess-guess');
    }
    for (let i = 0; i < SPARES_PER_EMAIL; i++) await signIn(fromBlock(next++), 'guess-guess');
  }

  it('lets the owner in from a browser they signed in from while guessers hold every count of the account, and only that browser', async () => {
    const { person } = await counting.signUp({ email: 'frances-allen@example.com', password: 'allen-ptran-1989' });
    const signIn = (address: string, password: string, device?: string) => counting.signIn({ email: 'frances-allen@example.com', password, address, device });
    const owner = await signIn('198.51.100.70', 'allen-ptran-1989');
    if (!('person' in owner)) throw new Error('the owner was not let in');
    await exhaust(signIn, 0x49);
    expect(await signIn('198.51.100.70', 'allen-ptran-1989')).toMatchObject({ failure: 'throttled' });
    // Before: throttled like any other attempt.
    const again = await signIn('198.51.100.70', 'allen-ptran-1989', owner.device);
    if (!('person' in again)) throw new Error('the owner’s browser was not let in');
    expect(again.person.id).toBe(person.id);
    // No token, a forged one, another account's: the account's counts, spent.
    const other = await counting.signIn({ email: 'ada@example.com', password: 'lovelace-1843', address: '198.51.100.71' });
    const forged = `${owner.device.split('.').slice(0, 2).join('.')}.${'A'.repeat(43)}`;
    for (const device of [undefined, forged, 'person' in other ? other.device : 'x']) {
      expect(await signIn('203.0.113.70', 'allen-ptran-1989', device)).toMatchObject({ failure: 'throttled' });
    }
    // A device has its own count: its guesses throttle it alone.
    for (let i = 0; i < FAILURES_PER_DEVICE; i++) expect(await signIn('198.51.100.72', 'guess-guess', again.device)).toEqual({ failure: 'invalid_credentials' });
    expect(await signIn('198.51.100.72', 'allen-ptran-1989', again.device)).toMatchObject({ failure: 'throttled' });
    expect(await signIn('198.51.100.72', 'allen-ptran-1989', owner.device)).toMatchObject({ person: { id: person.id } });
  });

  it('forgets a device once its token has lived its lifetime, and when the password changes', async () => {
    const { person } = await counting.signUp({ email: 'barbara-liskov@example.com', password: 'liskov-clu-1974' });
    const signIn = (address: string, password: string, device?: string) => counting.signIn({ email: 'barbara-liskov@example.com', password, address, device });
    const first = await signIn('198.51.100.80', 'liskov-clu-1974');
    if (!('person' in first)) throw new Error('the owner was not let in');
    const issued = now;
    now = new Date(issued.getTime() + KNOWN_DEVICE_TTL_MS - 1);
    await exhaust(signIn, 0x50);
    const second = await signIn('198.51.100.80', 'liskov-clu-1974', first.device);
    if (!('person' in second)) throw new Error('the owner’s browser was not let in');
    now = new Date(issued.getTime() + KNOWN_DEVICE_TTL_MS);
    expect(await signIn('198.51.100.80', 'liskov-clu-1974', first.device)).toMatchObject({ failure: 'throttled' });
    expect(await signIn('198.51.100.80', 'liskov-clu-1974', second.device)).toMatchObject({ person: { id: person.id } });
    await counting.setPassword(person.id, 'liskov-clu-1975');
    expect(await signIn('198.51.100.80', 'liskov-clu-1975', second.device)).toMatchObject({ failure: 'throttled' });
    // Back to the file's time: other stores here date what they make by the real clock.
    now = issued;
  });

  it('throttles an account without an address at the limit of one address', async () => {
    await counting.signUp({ email: 'niklaus@example.com', password: 'wirth-pascal-70' });
    for (let i = 0; i < FAILURES_PER_EMAIL_PER_ADDRESS; i++) expect(await counting.signIn({ email: 'niklaus@example.com', password: 'guess-guess' })).toEqual({ failure: 'invalid_credentials' });
    expect(await counting.signIn({ email: 'niklaus@example.com', password: 'wirth-pascal-70' })).toEqual({ failure: 'throttled', retryAfterSeconds: THROTTLE_WINDOW_MS / 1000 });
  });

  it('throttles one address guessing at many accounts', async () => {
    for (let attempt = 0; attempt < FAILURES_PER_ADDRESS; attempt++) {
      await counting.signIn({ email: `victim${attempt}@example.com`, password: 'guess-guess', address: '203.0.113.9' });
    }
    expect(await store.signIn({ email: 'ada@example.com', password: 'lovelace-1843', address: '203.0.113.9' })).toMatchObject({ failure: 'throttled' });
    expect(await store.signIn({ email: 'ada@example.com', password: 'lovelace-1843', address: '203.0.113.10' })).toMatchObject({ person: { email: 'ada@example.com' } });
  });

  it('answers an email longer than any account’s as a wrong one, counted against the address only, keyed by nothing of it', async () => {
    const throttleKeys = async () => (await migrated.orm.em.getConnection().execute<{ key: string }[]>(`select "key" from "sign_in_throttle" order by "key"`, [], 'all')).map((row) => row.key);
    const address = '198.51.100.40';
    const long = `${randomBytes(2_000).toString('base64url')}@example.com`;
    expect(long.length).toBeGreaterThan(EMAIL_MAX_LENGTH);
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) expect(await counting.signIn({ email: long, password: 'guess-guess', address })).toEqual({ failure: 'invalid_credentials' });
    expect(await counting.signIn({ email: long, password: 'guess-guess', address })).toMatchObject({ failure: 'throttled' });
    expect((await throttleKeys()).filter((key) => key.includes(long.slice(0, 40)))).toEqual([]);
  });

  it('keeps no row for an email tried from an address already over its limit', async () => {
    const throttleKeys = async () => (await migrated.orm.em.getConnection().execute<{ key: string }[]>(`select "key" from "sign_in_throttle" order by "key"`, [], 'all')).map((row) => row.key);
    const address = '198.51.100.41';
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++) await counting.signIn({ email: `tried${i}@example.com`, password: 'guess-guess', address });
    const before = await throttleKeys();
    for (let i = 0; i < 10; i++) expect(await counting.signIn({ email: `later${i}@example.com`, password: 'guess-guess', address })).toMatchObject({ failure: 'throttled' });
    expect(await throttleKeys()).toEqual(before);
  });

  it('keeps sessions as token hashes that expire on the clock and end on sign-out', async () => {
    const { person } = await store.signUp({ email: 'linus@example.com', password: 'torvalds-1991' });
    const started = await store.startSession(person.id);
    expect(started.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(started.expiresAt.getTime()).toBe(now.getTime() + SESSION_TTL_MS);
    const stored = await migrated.orm.em.getConnection().execute<{ token_hash: string }[]>('select token_hash from person_session where id = ?', [started.sessionId]);
    expect(stored).toEqual([{ token_hash: hashSessionToken(started.token) }]);
    expect(await store.session(started.token)).toMatchObject({ sessionId: started.sessionId, person: { id: person.id, email: 'linus@example.com' } });
    // Another last character, whatever the token ends with (a fixed 'A' would be the token itself 1 time in 64).
    const forged = `${started.token.slice(0, -1)}${started.token.endsWith('A') ? 'B' : 'A'}`;
    expect(await store.session(forged)).toBeNull();

    const saved = now;
    now = new Date(started.expiresAt.getTime() - 1);
    expect(await store.session(started.token)).not.toBeNull();
    now = started.expiresAt;
    expect(await store.session(started.token)).toBeNull();
    now = saved;

    const other = await store.startSession(person.id);
    await store.endSession(other.token);
    expect(await store.session(other.token)).toBeNull();
    expect(await store.session(started.token)).not.toBeNull();
  });

  it(`keeps at most ${MAX_SESSIONS_PER_PERSON} live sessions a person: a sign-in past them ends the oldest`, async () => {
    const { person } = await store.signUp({ email: 'sessions-cap@example.com', password: 'hopper-cobol-59' });
    const saved = now;
    const sessions: { token: string }[] = [];
    // A minute apart; the last at the same instant as the one before it.
    for (let i = 0; i <= MAX_SESSIONS_PER_PERSON; i++) {
      now = new Date(saved.getTime() + Math.min(i, MAX_SESSIONS_PER_PERSON - 1) * 60_000);
      sessions.push(await store.startSession(person.id));
    }
    const live = async () => (await Promise.all(sessions.map((session) => store.session(session.token)))).map((found) => found !== null);
    expect(await live()).toEqual([false, ...Array(MAX_SESSIONS_PER_PERSON).fill(true)]);
    const count = async () => (await migrated.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from person_session where person_id = ?', [person.id]))[0].n;
    expect(await count()).toBe(MAX_SESSIONS_PER_PERSON);

    // A week later every one has expired: the next sign-in leaves only itself.
    now = new Date(now.getTime() + SESSION_TTL_MS);
    const fresh = await store.startSession(person.id);
    expect(await count()).toBe(1);
    expect(await store.session(fresh.token)).not.toBeNull();
    now = saved;
  });

  it('ends every session when the password changes', async () => {
    const { person } = await store.signUp({ email: 'margaret@example.com', password: 'hamilton-apollo' });
    const session = await store.startSession(person.id);
    await store.setPassword(person.id, 'hamilton-apollo-11');
    expect(await store.session(session.token)).toBeNull();
    expect(await store.signIn({ email: 'margaret@example.com', password: 'hamilton-apollo-11' })).toMatchObject({ person: { id: person.id } });
  });

  it('lists the workspaces a person belongs to, and only theirs', async () => {
    const { person, workspace } = await store.signUp({ email: 'liskov@example.com', password: 'liskov-substitution' });
    const second = await store.createWorkspace(person.id, '  Research  ');
    expect(second).toMatchObject({ name: 'Research', receivesFreeGrant: false });
    expect((await store.workspaces(person.id)).map((w) => [w.name, w.role])).toEqual([[workspace.name, 'owner'], ['Research', 'owner']]);
    const ada = (await store.signIn({ email: 'ada@example.com', password: 'lovelace-1843' })) as { person: { id: string } };
    expect(await store.role(ada.person.id, second.id)).toBeNull();
    await expect(store.createWorkspace(person.id, '   ')).rejects.toMatchObject({ kind: 'invalid_name', field: 'name' });
  });

  it(`lets a person create ${WORKSPACES_PER_PERSON} workspaces in all, however many are asked for at once; the operator is not bound`, async () => {
    const { person } = await store.signUp({ email: 'hoarder@example.com', password: 'many-workspaces' });
    // Sign-up made the first; twice the remaining allowance, all at once.
    const results = await Promise.allSettled(Array.from({ length: 2 * (WORKSPACES_PER_PERSON - 1) }, (_, i) => store.createWorkspace(person.id, `W${i}`)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(WORKSPACES_PER_PERSON - 1);
    const refused = results.filter((result) => result.status === 'rejected').map((result) => (result as PromiseRejectedResult).reason);
    expect(refused).toHaveLength(WORKSPACES_PER_PERSON - 1);
    for (const reason of refused) expect(reason).toBeInstanceOf(WorkspaceLimitReached);
    expect(await store.workspaces(person.id)).toHaveLength(WORKSPACES_PER_PERSON);
    const operator = createIdentityStore(migrated.orm);
    expect(await operator.createWorkspace({ name: 'Given by the operator', ownerPersonId: person.id })).toMatchObject({ ownerPersonId: person.id });
  });

  it('limits the sign-ups one address attempts per window, refused ones included; a refused one keeps nothing', async () => {
    const address = '198.51.100.7';
    await expect(counting.signUp({ email: 'farm-bad@example.com', password: 'short', address })).rejects.toMatchObject({ kind: 'invalid_password' });
    await counting.signUp({ email: 'farm0@example.com', password: 'free-credits-please', address });
    await expect(counting.signUp({ email: 'farm0@example.com', password: 'free-credits-please', address })).rejects.toMatchObject({ kind: 'duplicate_email' });
    for (let i = 3; i < SIGN_UPS_PER_ADDRESS; i++) await counting.signUp({ email: `farm${i}@example.com`, password: 'free-credits-please', address });
    const refused = await counting.signUp({ email: 'farm-extra@example.com', password: 'free-credits-please', address }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SignUpThrottled);
    expect((refused as SignUpThrottled).retryAfterSeconds).toBe(THROTTLE_WINDOW_MS / 1000);
    const rows = await migrated.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from person where email like 'farm%'`);
    expect(rows[0].n).toBe(SIGN_UPS_PER_ADDRESS - 2);
    expect((await counting.signUp({ email: 'farm-elsewhere@example.com', password: 'free-credits-please', address: '198.51.100.8' })).person.email).toBe('farm-elsewhere@example.com');
    const saved = now;
    now = new Date(now.getTime() + THROTTLE_WINDOW_MS);
    expect((await counting.signUp({ email: 'farm-later@example.com', password: 'free-credits-please', address })).person.email).toBe('farm-later@example.com');
    now = saved;
  });

  it('lets at most the limit of parallel sign-ups from one address through', async () => {
    const address = '198.51.100.21';
    const answers = await Promise.allSettled(
      Array.from({ length: 4 * SIGN_UPS_PER_ADDRESS }, (_, i) => counting.signUp({ email: `rush${i}@example.com`, password: 'free-credits-please', address })),
    );
    const created = answers.filter((answer) => answer.status === 'fulfilled').length;
    expect(created).toBe(SIGN_UPS_PER_ADDRESS);
    for (const answer of answers) if (answer.status === 'rejected') expect(answer.reason).toBeInstanceOf(SignUpThrottled);
    const rows = await migrated.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from person where email like 'rush%'`);
    expect(rows[0].n).toBe(SIGN_UPS_PER_ADDRESS);
  });

  it('lets at most the limit of parallel guesses at one account be checked, and a refused guess never counts', async () => {
    await counting.signUp({ email: 'guessed-at@example.com', password: 'liskov-substitution' });
    const guesses = await Promise.all(
      Array.from({ length: 4 * FAILURES_PER_EMAIL_PER_ADDRESS }, (_, i) => counting.signIn({ email: 'guessed-at@example.com', password: `guess-${i}-guess`, address: '198.51.100.22' })),
    );
    expect(guesses.filter((answer) => 'failure' in answer && answer.failure === 'invalid_credentials')).toHaveLength(FAILURES_PER_EMAIL_PER_ADDRESS);
    expect(guesses.filter((answer) => 'failure' in answer && answer.failure === 'throttled')).toHaveLength(3 * FAILURES_PER_EMAIL_PER_ADDRESS);
    // The address counted the checked guesses only: it may still guess up to its own limit at other accounts.
    const others = await Promise.all(
      Array.from({ length: FAILURES_PER_ADDRESS - FAILURES_PER_EMAIL_PER_ADDRESS + 1 }, (_, i) => counting.signIn({ email: `nobody${i}@example.com`, password: 'guess-guess', address: '198.51.100.22' })),
    );
    expect(others.filter((answer) => 'failure' in answer && answer.failure === 'invalid_credentials')).toHaveLength(FAILURES_PER_ADDRESS - FAILURES_PER_EMAIL_PER_ADDRESS);
  });

  it('does not count a successful sign-in against its address', async () => {
    await counting.signUp({ email: 'frances@example.com', password: 'allen-fortran-1' });
    const address = '198.51.100.23';
    for (let i = 0; i < FAILURES_PER_ADDRESS + 1; i++) expect(await counting.signIn({ email: 'frances@example.com', password: 'allen-fortran-1', address })).toHaveProperty('person');
    expect(await counting.signIn({ email: 'frances@example.com', password: 'allen-fortran-1', address })).toHaveProperty('person');
  });

  it('sweeps expired sessions', async () => {
    const { person } = await store.signUp({ email: 'edsger@example.com', password: 'dijkstra-goto' });
    const session = await store.startSession(person.id);
    const saved = now;
    now = new Date(session.expiresAt.getTime() + 1);
    await store.sweep();
    now = saved;
    const rows = await migrated.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from person_session where id = ?', [session.sessionId]);
    expect(rows[0].n).toBe(0);
  });
});
