import { describe, expect, it } from 'vitest';
import { walkBudget } from '../../schema/pipeline/walk-budget.ts';

const settle = () => new Promise((resolve) => setImmediate(resolve));

function account(held: number) {
  const state = { held, soFar: 0, grows: [] as number[], canGrow: true };
  const budget = walkBudget({
    held: () => state.held,
    soFar: () => state.soFar,
    grow: async (extra) => {
      state.grows.push(extra);
      if (!state.canGrow) throw new Error('insufficient_credits');
      state.held += extra;
    },
  });
  return { state, budget };
}

describe('a walk paying as it goes', () => {
  it('lets edges fetch side by side while their worst cases fit the hold, and holds the next until one lands', async () => {
    const { state, budget } = account(10);
    const first = await budget.reserve(4);
    await budget.reserve(4);
    let third = false;
    const waiting = budget.reserve(4).then(() => (third = true));
    await settle();
    expect(third).toBe(false);
    state.soFar = 1;
    first();
    await waiting;
    expect(third).toBe(true);
    expect(state.grows).toEqual([]);
  });

  it('lets an edge that does not fit fetch alone while what came back still fits: an account able to pay is never refused', async () => {
    const { state, budget } = account(5);
    state.soFar = 3;
    const alone = await budget.reserve(20);
    let next = false;
    const waiting = budget.reserve(20).then(() => (next = true));
    await settle();
    expect(next).toBe(false);
    state.soFar = 5;
    alone();
    await waiting;
    expect(next).toBe(true);
    expect(state.grows).toEqual([]);
  });

  it('grows the hold by what came back beyond it, once nothing is in flight; refused, every later edge is refused without asking again', async () => {
    const { state, budget } = account(5);
    state.soFar = 8;
    const release = await budget.reserve(1);
    expect(state.grows).toEqual([3]);
    release();
    state.soFar = 12;
    state.canGrow = false;
    await expect(budget.reserve(1)).rejects.toThrow('insufficient_credits');
    await expect(budget.reserve(1)).rejects.toThrow('insufficient_credits');
    expect(state.grows).toEqual([3, 4]);
    expect(budget.refusal()?.error).toBeInstanceOf(Error);
  });

  it('wakes the edges waiting behind a refused growth with the refusal', async () => {
    const { state, budget } = account(5);
    state.soFar = 4;
    const first = await budget.reserve(3);
    const waiting = budget.reserve(3);
    state.soFar = 9;
    state.canGrow = false;
    first();
    await expect(waiting).rejects.toThrow('insufficient_credits');
  });
});
