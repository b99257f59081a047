import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sqlDbFromOrm, type SqlDb } from '../../../adapters/db/sql.ts';
import { createIdentityStore } from '../../../adapters/identity/identity-store.ts';
import { createDeliveryPolicy } from '../../../adapters/webhooks/delivery-policy.ts';
import { DELIVERY_SLOTS, type SlotLimits } from '../../../adapters/webhooks/delivery-slots.ts';
import { createDeliveryWorker, type AttemptOutcome, type SendEvent } from '../../../adapters/webhooks/delivery-worker.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

const TIMED_OUT: AttemptOutcome = { statusCode: null, error: 'timed out after 15000 ms', durationMs: 15_000, responseExcerpt: null, retryAfterMs: null };
const ANSWERED: AttemptOutcome = { statusCode: 200, error: null, durationMs: 5, responseExcerpt: 'ok', retryAfterMs: null };

/**
 * One account's hanging receiver with a backlog must not hold back another account's due delivery: the sweep's
 * slots are shared fairly (per webhook, per workspace) and a freed slot is refilled at once. The receivers are fakes
 * that answer when told; the clock is fixed, so only what is due now is claimed.
 */
describe(`webhook delivery slots (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  const migrated = useMigratedOrm();
  let sql: SqlDb;
  const now = new Date('2026-06-01T12:00:00.000Z');

  beforeAll(async () => {
    sql = sqlDbFromOrm(migrated.orm);
  });
  beforeEach(async () => {
    // Each test sees only its own deliveries due.
    await sql.all(`delete from "webhook_delivery"`);
  });

  async function webhook(workspaceId: string, url: string): Promise<string> {
    const id = randomUUID();
    await sql.all(
      `insert into "webhook" ("id", "workspace_id", "name", "url", "events", "secret_ciphertext", "created_at", "updated_at")
       values (?, ?, 'hook', ?, '["webhook.test"]', 'whsec_x', ?, ?)`,
      [id, workspaceId, url, now.toISOString(), now.toISOString()],
    );
    return id;
  }

  /** `count` deliveries due `agoMs` before now and earlier, one millisecond apart (the first is the oldest). */
  async function due(webhookId: string, count: number, agoMs: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      const at = new Date(now.getTime() - agoMs - (count - i)).toISOString();
      await sql.all(
        `insert into "webhook_delivery" ("id", "webhook_id", "event_id", "event_type", "payload", "status", "next_attempt_at", "created_at")
         values (?, ?, ?, 'webhook.test', '{}', 'pending', ?, ?)`,
        [id, webhookId, `evt_${randomUUID()}`, at, at],
      );
      ids.push(id);
    }
    return ids;
  }

  /** Receivers by URL: a hanging one answers (as a timeout) only once released; the others answer 200 at once. */
  function receivers() {
    const hanging = new Set<string>();
    let released = false;
    const waiting: (() => void)[] = [];
    const inFlight = new Map<string, number>();
    const peak = new Map<string, number>();
    const sent: string[] = [];
    const listeners: (() => void)[] = [];
    const send: SendEvent = async ({ url }) => {
      sent.push(url);
      for (const listener of listeners) listener();
      inFlight.set(url, (inFlight.get(url) ?? 0) + 1);
      peak.set(url, Math.max(peak.get(url) ?? 0, inFlight.get(url)!));
      try {
        if (!hanging.has(url)) return ANSWERED;
        if (!released) await new Promise<void>((resolve) => waiting.push(resolve));
        return TIMED_OUT;
      } finally {
        inFlight.set(url, inFlight.get(url)! - 1);
      }
    };
    return {
      send,
      hang: (url: string) => hanging.add(url),
      /** The longest-waiting request to a hanging receiver answers (as a timeout). */
      releaseOne: () => waiting.shift()!(),
      /** The hanging receivers answer from now on (as timeouts), those waiting too. */
      release() {
        released = true;
        for (const resolve of waiting.splice(0)) resolve();
      },
      sentTo: (url: string) => sent.filter((u) => u === url).length,
      /** The URLs sent to, in order. */
      order: () => [...sent],
      inFlightAt: (url: string) => inFlight.get(url) ?? 0,
      peakAt: (url: string) => peak.get(url) ?? 0,
      /** Resolves once `url` (any URL when null) has been sent `count` requests. */
      sent: (url: string | null, count: number) =>
        new Promise<void>((resolve) => {
          const check = () => sent.filter((u) => url === null || u === url).length >= count && resolve();
          listeners.push(check);
          check();
        }),
    };
  }

  const workerWith = (send: SendEvent, slots?: SlotLimits) =>
    createDeliveryWorker({
      slots,
      db: sql,
      secrets: { generate: () => 'whsec_x', encrypt: (s) => s, decrypt: (s) => s },
      send,
      policy: createDeliveryPolicy(() => 0.5),
      clock: () => now,
    });

  async function statusOf(ids: string[]) {
    const rows = await sql.all<{ id: string; status: string; attempts: unknown }>(`select "id", "status", "attempts" from "webhook_delivery"`);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => `${byId.get(id)!.status}/${Number(byId.get(id)!.attempts)}`);
  }

  it('starts another workspace’s due delivery in the first sweep while a hanging receiver has a backlog', async () => {
    const identity = createIdentityStore(migrated.orm);
    const attacker = (await identity.createWorkspace({ name: 'A' })).id;
    const bystander = (await identity.createWorkspace({ name: 'B' })).id;
    const hangingUrls = ['https://a.example/1', 'https://a.example/2', 'https://a.example/3'];
    const receiver = receivers();
    const backlog: string[] = [];
    for (const url of hangingUrls) {
      receiver.hang(url);
      // Due long before B's: oldest first alone would take all of these first.
      backlog.push(...(await due(await webhook(attacker, url), 30, 60_000)));
    }
    const [theirs] = await due(await webhook(bystander, 'https://b.example/in'), 1, 0);
    const worker = workerWith(receiver.send);

    await worker.sweep();
    expect(receiver.sentTo('https://b.example/in')).toBe(1);
    // A holds its workspace's slots, never more than its webhook's share each; the rest stay free for others.
    const held = hangingUrls.map((url) => receiver.inFlightAt(url));
    expect(held.reduce((a, b) => a + b, 0)).toBe(DELIVERY_SLOTS.perWorkspace);
    for (const n of held) expect(n).toBeLessThanOrEqual(DELIVERY_SLOTS.perWebhook);

    receiver.release();
    await worker.idle();
    expect(await statusOf([theirs])).toEqual(['succeeded/1']);
    // Nothing of the backlog lost or attempted twice: each attempt failed once and waits for its retry.
    expect(new Set(await statusOf(backlog))).toEqual(new Set(['retrying/1']));
    for (const url of hangingUrls) expect(receiver.peakAt(url)).toBeLessThanOrEqual(DELIVERY_SLOTS.perWebhook);
  });

  it('gives a slot freed by one of four hanging workspaces holding them all to a fifth’s fresh delivery, not to the backlog', async () => {
    const identity = createIdentityStore(migrated.orm);
    const receiver = receivers();
    const backlog: string[] = [];
    for (let a = 0; a < DELIVERY_SLOTS.total / DELIVERY_SLOTS.perWorkspace; a++) {
      const attacker = (await identity.createWorkspace({ name: `A${a}` })).id;
      for (let h = 0; h < DELIVERY_SLOTS.perWorkspace / DELIVERY_SLOTS.perWebhook; h++) {
        const url = `https://a${a}.example/${h}`;
        receiver.hang(url);
        backlog.push(...(await due(await webhook(attacker, url), 10, 60_000)));
      }
    }
    const worker = workerWith(receiver.send);
    await worker.sweep();
    expect(receiver.order()).toHaveLength(DELIVERY_SLOTS.total);

    // A fresh delivery of another account, due now, while every slot is held by an overdue backlog.
    const bystander = (await identity.createWorkspace({ name: 'B' })).id;
    const [theirs] = await due(await webhook(bystander, 'https://b.example/in'), 1, 0);
    expect(await worker.sweep()).toBe(0);
    receiver.releaseOne();
    await receiver.sent(null, DELIVERY_SLOTS.total + 1);
    expect(receiver.order().at(-1)).toBe('https://b.example/in');

    receiver.release();
    await worker.idle();
    expect(await statusOf([theirs])).toEqual(['succeeded/1']);
  });

  it('gives a freed slot to the workspace served least recently, not to the oldest delivery', async () => {
    const identity = createIdentityStore(migrated.orm);
    const backlogged = (await identity.createWorkspace({ name: 'backlogged' })).id;
    const fresh = (await identity.createWorkspace({ name: 'fresh' })).id;
    const receiver = receivers();
    await due(await webhook(backlogged, 'https://old.example/in'), 3, 60_000);
    await due(await webhook(fresh, 'https://new.example/in'), 1, 0);
    // One slot: each attempt ends before the next is claimed, so every claim chooses between the two workspaces.
    const worker = workerWith(receiver.send, { total: 1, perWebhook: 1, perWorkspace: 1 });

    await worker.sweep();
    await worker.idle();
    expect(receiver.order()).toEqual(['https://old.example/in', 'https://new.example/in', 'https://old.example/in', 'https://old.example/in']);
  });

  it('refills a freed slot at once, without waiting for the slots a hanging receiver holds or for the next sweep', async () => {
    const identity = createIdentityStore(migrated.orm);
    const slow = (await identity.createWorkspace({ name: 'slow' })).id;
    const quick = (await identity.createWorkspace({ name: 'quick' })).id;
    const receiver = receivers();
    receiver.hang('https://slow.example/in');
    await due(await webhook(slow, 'https://slow.example/in'), 5, 60_000);
    const quickOnes = await due(await webhook(quick, 'https://quick.example/in'), 6, 1_000);
    const worker = workerWith(receiver.send);

    await worker.sweep();
    // One sweep: the quick receiver's six deliveries follow one another through its two slots as each ends.
    await receiver.sent('https://quick.example/in', quickOnes.length);
    expect(receiver.inFlightAt('https://slow.example/in')).toBe(DELIVERY_SLOTS.perWebhook);
    expect(receiver.peakAt('https://quick.example/in')).toBeLessThanOrEqual(DELIVERY_SLOTS.perWebhook);
    receiver.release();
    await worker.idle();
    expect(await statusOf(quickOnes)).toEqual(quickOnes.map(() => 'succeeded/1'));
  });

  it('claims nothing once closed, and lets the attempts in flight finish', async () => {
    const workspace = (await createIdentityStore(migrated.orm).createWorkspace({ name: 'closing' })).id;
    const receiver = receivers();
    receiver.hang('https://closing.example/in');
    const ids = await due(await webhook(workspace, 'https://closing.example/in'), 3, 1_000);
    const worker = workerWith(receiver.send);
    await worker.sweep();
    const closing = worker.close(60_000);
    receiver.release();
    await closing;
    expect(await worker.sweep()).toBe(0);
    expect((await statusOf(ids)).sort()).toEqual(['pending/0', 'retrying/1', 'retrying/1']);
  });
});
