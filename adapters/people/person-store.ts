import { randomBytes, randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Membership, type MembershipRole } from '../db/entities/membership.ts';
import { Person } from '../db/entities/person.ts';
import { Workspace } from '../db/entities/workspace.ts';
import type { Orm } from '../db/orm.ts';
import type { SqlDb } from '../db/sql.ts';
import { IdentityError } from '../identity/identity-error.ts';
import { hashKeySecret } from '../identity/key-material.ts';
import type { IdentityStore, PersonRecord, WorkspaceRecord } from '../identity/identity-store.ts';
import { decoyHash, hashPassword, verifyPassword } from './password-hash.ts';
import { knownDevice, knownDeviceToken } from './known-device.ts';
import { createSignInThrottle, deviceThrottleKeys, signUpKeys, SignUpThrottled, throttleKeys } from './sign-in-throttle.ts';

/** A session lasts this long from sign-in, used or not; then the person signs in again. */
export const SESSION_TTL_MS = 7 * 24 * 3_600_000;
/**
 * Live dashboard sessions a person keeps: a sign-in past it ends their oldest. Browsers and devices of one person
 * stay far below it; without it, each successful sign-in added a week-long row.
 */
export const MAX_SESSIONS_PER_PERSON = 20;
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;
export const NAME_MAX_LENGTH = 80;
export const EMAIL_MAX_LENGTH = 254;
/**
 * Workspaces one person may create (and own) themselves, sign-up's first included: each brings its own tier
 * allowances (webhooks, monitors, a rate limit), so without a ceiling one person could multiply them. The operator's
 * `workspace:create` is not bound by it.
 */
export const WORKSPACES_PER_PERSON = 10;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** 256 random bits, base64url: the cookie value. Only its SHA-256 is stored. */
const TOKEN_BYTES = 32;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface MemberWorkspace extends WorkspaceRecord {
  role: MembershipRole;
}

export interface PersonSession {
  sessionId: string;
  person: PersonRecord;
  expiresAt: Date;
}

export interface StartedSession {
  /** The cookie value, shown to the browser only: the store keeps its hash. */
  token: string;
  sessionId: string;
  expiresAt: Date;
}

export type SignInResult =
  /** `device`: the known-device token the browser keeps (known-device.ts), fresh with each sign-in. */
  | { person: PersonRecord; device: string }
  | { failure: 'invalid_credentials' }
  | { failure: 'throttled'; retryAfterSeconds: number };

/**
 * People of the dashboard: sign-up, password sign-in (throttled), sessions and memberships. The stable API the
 * dashboard and the OAuth approval screen build on.
 */
export interface PersonStore {
  /**
   * A new person and their first workspace (owner, with the free grant), in one transaction. With `address` (the
   * client's IP) every sign-up attempt from it counts, refused ones included, throwing SignUpThrottled over the limit.
   */
  signUp(input: { email: string; password: string; name?: string; address?: string }): Promise<{ person: PersonRecord; workspace: WorkspaceRecord }>;
  /**
   * Checks the password; failures are throttled per account and `address` (the client's IP), per account and per
   * address, or, from a browser holding a live known-device token of the account (`device`), per device and per
   * address (sign-in-throttle.ts).
   */
  signIn(input: { email: string; password: string; address?: string; device?: string }): Promise<SignInResult>;
  /** Sets a new password and ends every session of the person. */
  setPassword(personId: string, password: string): Promise<void>;
  startSession(personId: string): Promise<StartedSession>;
  /** The signed-in person behind a cookie value, or null (unknown, ended or expired). */
  session(token: string): Promise<PersonSession | null>;
  endSession(token: string): Promise<void>;
  /** The person's workspaces, oldest first. */
  workspaces(personId: string): Promise<MemberWorkspace[]>;
  /** The person's role in a workspace, or null when they are not a member (or either does not exist). */
  role(personId: string, workspaceId: string): Promise<MembershipRole | null>;
  /** Makes the person a member of an existing workspace with `role`; keeps an existing membership as it is. */
  addMembership(personId: string, workspaceId: string, role: MembershipRole): Promise<void>;
  /** Another workspace owned by the person (only their oldest gets the free grant). */
  createWorkspace(personId: string, name: string): Promise<WorkspaceRecord>;
  /** Deletes expired sessions and ended throttle windows (housekeeping). */
  sweep(): Promise<void>;
}

export interface PersonStoreOptions {
  orm: Orm;
  db: SqlDb;
  identity: IdentityStore;
  clock: () => Date;
  /**
   * scrypt's cost (log2 N) of new hashes and of the decoy; default 15. Only tests lower it, where what is counted is
   * attempts (throttles), not what each one costs.
   */
  passwordLog2N?: number;
}

interface SessionRow {
  session_id: string;
  expires_ms: number;
  id: string;
  email: string;
  name: string;
  created_ms: number;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Session tokens are stored as API key secrets are: their SHA-256 only. */
export function hashSessionToken(token: string): string {
  return hashKeySecret(token);
}

function validEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL.test(email)) {
    throw new IdentityError('invalid_email', 'Enter an email address like name@example.com.', { field: 'email' });
  }
  return email;
}

function validPassword(password: string): string {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new IdentityError('invalid_password', `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`, { field: 'password' });
  }
  return password;
}

function validName(raw: string | undefined, email: string): string {
  const name = (raw ?? '').trim() || email.split('@')[0];
  if (name.length > NAME_MAX_LENGTH) throw new IdentityError('invalid_name', `The name must be at most ${NAME_MAX_LENGTH} characters.`, { field: 'name' });
  return name;
}

function validWorkspaceName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > NAME_MAX_LENGTH) {
    throw new IdentityError('invalid_name', `A workspace name is 1 to ${NAME_MAX_LENGTH} characters.`, { field: 'name' });
  }
  return name;
}

function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

export function createPersonStore({ orm, db, identity, clock, passwordLog2N }: PersonStoreOptions): PersonStore {
  const throttle = createSignInThrottle(db);
  const decoy = decoyHash(passwordLog2N);

  return {
    async signUp({ email: rawEmail, password, name: rawName, address }) {
      const keys = address ? signUpKeys(address) : [];
      const createdAt = clock();
      // Every attempt counts, refused ones included: each answer tells whether an email has an account, and costs a hash.
      if (keys.length) {
        const { retryAfterSeconds } = await throttle.attempt(keys, createdAt);
        if (retryAfterSeconds > 0) throw new SignUpThrottled(retryAfterSeconds);
      }
      const email = validEmail(rawEmail);
      const name = validName(rawName, email);
      const passwordHash = await hashPassword(validPassword(password), passwordLog2N);
      try {
        const created = await orm.em.fork({ clear: true }).transactional(async (tx) => {
          const person = tx.create(Person, { id: randomUUID(), email, name, passwordHash, createdAt });
          // A new person has no workspace yet, so this one is their oldest: it receives the free grant.
          const workspace = tx.create(Workspace, { id: randomUUID(), name: `${name}'s workspace`, ownerPersonId: person.id, receivesFreeGrant: true, createdAt });
          tx.create(Membership, { personId: person.id, workspaceId: workspace.id, role: 'owner', createdAt });
          await tx.flush();
          return {
            person: { id: person.id, email, name, createdAt },
            workspace: { id: workspace.id, name: workspace.name, ownerPersonId: person.id, receivesFreeGrant: true, createdAt },
          };
        });
        return created;
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) {
          throw new IdentityError('duplicate_email', 'Someone already signed up with this email; sign in instead.', { field: 'email' });
        }
        throw error;
      }
    },

    async signIn({ email: rawEmail, password, address, device: token }) {
      const email = normaliseEmail(rawEmail);
      const possible = email.length <= EMAIL_MAX_LENGTH;
      const now = clock();
      const person = () =>
        db.all<{ id: string; email: string; name: string; created_at: unknown; password_hash: string | null }>(
          `select "id", "email", "name", "created_at", "password_hash" from "person" where "email" = ?`,
          [email],
        );
      // Read first only for a browser that says it is known: without a live token of this account it gets the usual counts.
      const known = token && possible ? await person() : undefined;
      const device = known?.[0]?.password_hash ? knownDevice(token, known[0].password_hash, email, now) : undefined;
      const keys = device ? deviceThrottleKeys(device, address) : throttleKeys(possible ? email : undefined, address);
      // Counted before the password is checked, as a failure until it proves otherwise: parallel guesses each take a place.
      const attempt = await throttle.attempt(keys, now);
      if (attempt.retryAfterSeconds > 0) return { failure: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
      // No account has such an email: the usual answer, without a lookup or a hash to spend on it.
      if (!possible) return { failure: 'invalid_credentials' };
      const [row] = known ?? (await person());
      // Unknown people cost the same scrypt time as known ones, so timing does not tell who has an account.
      const matches = await verifyPassword(password, row?.password_hash ?? decoy);
      if (!row || !row.password_hash || !matches) return { failure: 'invalid_credentials' };
      // The typos from this address (or this known device) are forgotten; the account's count from everywhere (and its
      // spares) and the address's only lose this attempt.
      const fromHere = device ? keys[0]!.key : keys[0]?.spare?.firstOf;
      if (fromHere) await throttle.clear(fromHere);
      await throttle.takeBack(attempt, attempt.windows.map(({ key }) => key).filter((key) => key !== fromHere));
      return { person: { id: row.id, email: row.email, name: row.name, createdAt: toDate(row.created_at) }, device: knownDeviceToken(row.password_hash, email, now) };
    },

    async setPassword(personId, password) {
      const passwordHash = await hashPassword(validPassword(password), passwordLog2N);
      await db.transaction(async (tx) => {
        await tx.all(`update "person" set "password_hash" = ? where "id" = ?`, [passwordHash, personId]);
        await tx.all(`delete from "person_session" where "person_id" = ?`, [personId]);
      });
    },

    async startSession(personId) {
      const token = randomBytes(TOKEN_BYTES).toString('base64url');
      const sessionId = randomUUID();
      const createdAt = clock();
      const expiresAt = new Date(createdAt.getTime() + SESSION_TTL_MS);
      await db.transaction(async (tx) => {
        // Under the person's row lock, so two sign-ins at once keep the cap between them.
        await tx.all(`select 1 from "person" where "id" = ? for update`, [personId]);
        await tx.all(`insert into "person_session" ("id", "token_hash", "person_id", "created_at", "expires_at") values (?, ?, ?, ?::timestamptz, ?::timestamptz)`, [
          sessionId,
          hashSessionToken(token),
          personId,
          createdAt.toISOString(),
          expiresAt.toISOString(),
        ]);
        // The oldest past the cap are ended (this new one always kept), and the person's expired ones go with them.
        await tx.all(
          `delete from "person_session" where "person_id" = ? and "id" not in (
             select "id" from "person_session" where "person_id" = ? and "expires_at" > ?::timestamptz
             order by "id" = ? desc, "created_at" desc, "id" desc limit ?)`,
          [personId, personId, createdAt.toISOString(), sessionId, MAX_SESSIONS_PER_PERSON],
        );
      });
      return { token, sessionId, expiresAt };
    },

    async session(token) {
      if (!TOKEN.test(token)) return null;
      const [row] = await db.all<SessionRow>(
        `select s."id" as "session_id", (extract(epoch from s."expires_at") * 1000)::float8 as "expires_ms",
           p."id", p."email", p."name", (extract(epoch from p."created_at") * 1000)::float8 as "created_ms"
         from "person_session" s join "person" p on p."id" = s."person_id"
         where s."token_hash" = ?`,
        [hashSessionToken(token)],
      );
      // Expired the instant its time is reached, like keys: no grace.
      if (!row || clock().getTime() >= row.expires_ms) return null;
      return {
        sessionId: row.session_id,
        expiresAt: new Date(row.expires_ms),
        person: { id: row.id, email: row.email, name: row.name, createdAt: new Date(row.created_ms) },
      };
    },

    async endSession(token) {
      if (!TOKEN.test(token)) return;
      await db.all(`delete from "person_session" where "token_hash" = ?`, [hashSessionToken(token)]);
    },

    async workspaces(personId) {
      if (!UUID.test(personId)) return [];
      const rows = await db.all<{ id: string; name: string; owner_person_id: string | null; receives_free_grant: boolean; created_at: unknown; role: MembershipRole }>(
        `select w."id", w."name", w."owner_person_id", w."receives_free_grant", w."created_at", m."role"
         from "membership" m join "workspace" w on w."id" = m."workspace_id"
         where m."person_id" = ? order by w."created_at" asc, w."id" asc`,
        [personId],
      );
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        ownerPersonId: row.owner_person_id,
        receivesFreeGrant: row.receives_free_grant,
        createdAt: toDate(row.created_at),
        role: row.role,
      }));
    },

    async role(personId, workspaceId) {
      if (!UUID.test(personId) || !UUID.test(workspaceId)) return null;
      const [row] = await db.all<{ role: MembershipRole }>(`select "role" from "membership" where "person_id" = ? and "workspace_id" = ?`, [personId, workspaceId]);
      return row?.role ?? null;
    },

    async addMembership(personId, workspaceId, role) {
      await db.all(
        `insert into "membership" ("person_id", "workspace_id", "role", "created_at") values (?, ?, ?, ?::timestamptz) on conflict do nothing`,
        [personId, workspaceId, role, clock().toISOString()],
      );
    },

    async createWorkspace(personId, name) {
      return identity.createWorkspace({ name: validWorkspaceName(name), ownerPersonId: personId, maxOwned: WORKSPACES_PER_PERSON });
    },

    async sweep() {
      const now = clock();
      await db.all(`delete from "person_session" where "expires_at" <= ?::timestamptz`, [now.toISOString()]);
      await throttle.sweep(now);
    },
  };
}
