import { describe, expect, it } from 'vitest';
import { createKnownBalances, KNOWN_BALANCE_RULES } from '../../../adapters/billing/known-balances.ts';

const WS = 'ws-1';

/** A database whose reads are answered by the test, one at a time, and an injected clock. */
function setup() {
  let now = 1_000_000;
  let balance = 100;
  const reads: Array<() => void> = [];
  const known = createKnownBalances(
    () => new Promise<number>((resolve) => reads.push(() => resolve(balance))),
    () => now,
  );
  return {
    known,
    reads,
    /** Answers the oldest read with the database's balance now. */
    answer: async () => {
      reads.shift()!();
      await Promise.resolve();
    },
    setBalance: (value: number) => (balance = value),
    advance: (ms: number) => (now += ms),
  };
}

describe('known balances', () => {
  it('lastKnown answers what was learned, however old, and never reads', async () => {
    const t = setup();
    expect(t.known.lastKnown(WS)).toBeUndefined();
    const first = t.known.balance(WS);
    await t.answer();
    await first;
    t.setBalance(40);
    t.advance(KNOWN_BALANCE_RULES.maxAgeMs * 10);
    expect(t.known.lastKnown(WS)).toBe(100);
    t.known.forget(WS);
    expect(t.known.lastKnown(WS)).toBeUndefined();
    expect(t.reads).toHaveLength(0);
  });

  it('reads once, then answers from memory until refreshAfterMs, with no read', async () => {
    const t = setup();
    const first = t.known.balance(WS);
    const joined = t.known.balance(WS);
    expect(t.reads).toHaveLength(1);
    await t.answer();
    expect(await first).toBe(100);
    expect(await joined).toBe(100);
    t.setBalance(90);
    t.advance(KNOWN_BALANCE_RULES.refreshAfterMs - 1);
    expect(await t.known.balance(WS)).toBe(100);
    expect(t.reads).toHaveLength(0);
  });

  it('past refreshAfterMs answers at once and reads behind the call; past maxAgeMs the call reads', async () => {
    const t = setup();
    const first = t.known.balance(WS);
    await t.answer();
    await first;
    t.setBalance(90);
    t.advance(KNOWN_BALANCE_RULES.refreshAfterMs);
    expect(await t.known.balance(WS)).toBe(100);
    expect(await t.known.balance(WS)).toBe(100);
    expect(t.reads).toHaveLength(1);
    await t.answer();
    expect(await t.known.balance(WS)).toBe(90);
    t.setBalance(80);
    t.advance(KNOWN_BALANCE_RULES.maxAgeMs);
    const waiting = t.known.balance(WS);
    expect(t.reads).toHaveLength(1);
    await t.answer();
    expect(await waiting).toBe(80);
  });

  it("a change's answer replaces the balance at once", async () => {
    const t = setup();
    const first = t.known.balance(WS);
    await t.answer();
    await first;
    const change = t.known.changing(WS);
    t.known.changed(change, 97);
    expect(await t.known.balance(WS)).toBe(97);
    expect(t.reads).toHaveLength(0);
  });

  it('a read that a change answered during is neither kept nor answered: the entry the change left is', async () => {
    const t = setup();
    const read = t.known.balance(WS);
    const change = t.known.changing(WS);
    t.known.changed(change, 97);
    await t.answer();
    // The read's snapshot predates the charge, whose unbooked amount the change already took off.
    expect(await read).toBe(97);
    expect(await t.known.balance(WS)).toBe(97);
    expect(t.reads).toHaveLength(0);
  });

  it('a read that a change started during, still unanswered, reads once more; a read alone is kept', async () => {
    const t = setup();
    const read = t.known.balance(WS);
    const change = t.known.changing(WS);
    await t.answer();
    expect(t.reads).toHaveLength(1);
    t.known.changed(change, undefined);
    t.setBalance(97);
    const second = t.reads.length;
    const next = t.known.balance(WS);
    expect(t.reads).toHaveLength(second + 1);
    await t.answer();
    await t.answer();
    expect(await read).toBe(97);
    expect(await next).toBe(97);
    expect(await t.known.balance(WS)).toBe(97);
    expect(t.reads).toHaveLength(0);
  });

  it('two overlapping changes forget the balance: the later answer may miss the other charge', async () => {
    const t = setup();
    const a = t.known.changing(WS);
    const b = t.known.changing(WS);
    t.known.changed(b, 95);
    t.known.changed(a, 97);
    const next = t.known.balance(WS);
    expect(t.reads).toHaveLength(1);
    t.setBalance(92);
    await t.answer();
    expect(await next).toBe(92);
  });

  it('a failed change and forget both make the next call read', async () => {
    const t = setup();
    t.known.changed(t.known.changing(WS), 97);
    t.known.changed(t.known.changing(WS), undefined);
    const afterFailure = t.known.balance(WS);
    expect(t.reads).toHaveLength(1);
    await t.answer();
    await afterFailure;
    t.known.forget(WS);
    void t.known.balance(WS);
    expect(t.reads).toHaveLength(1);
  });

  it('a clock that went back is not trusted', async () => {
    const t = setup();
    t.known.changed(t.known.changing(WS), 97);
    t.advance(-1);
    void t.known.balance(WS);
    expect(t.reads).toHaveLength(1);
  });
});
