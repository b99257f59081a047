import { describe, expect, it } from 'vitest';
import { ceilingsOf } from '../../bench/goals.ts';
import type { LoadResult } from '../../bench/load.ts';

/** A target's figures; its busiest thread spends all its process's CPU unless said otherwise. */
const result = (requestsPerSecond: number, ownUsPerCall: number, machineUsPerCall: number, busiestThreadUsPerCall = ownUsPerCall): LoadResult => ({
  name: 'target',
  requestsPerSecond,
  p50Ms: 1,
  p99Ms: 2,
  requests: requestsPerSecond * 5,
  non2xx: 0,
  errors: 0,
  cpu: { ownUsPerCall, busiestThreadUsPerCall, busiestThread: 'MainThread', machineUsPerCall, machineBusy: 1, cores: 2 },
});

/** The bench's reading of a target's CPU: which ceiling held it, one process's busiest thread or the machine. */
describe('ceilingsOf', () => {
  it('puts a process spending 250 µs per call at 4,000 req/s on its thread, and 2 cores at 2e6 / machine CPU per call', () => {
    const limits = ceilingsOf(result(3_900, 250, 340), 1)!;
    expect(limits.threads).toBe(4_000);
    expect(limits.machine).toBeCloseTo(5_882.35, 1);
    expect(limits.threadsBusy).toBeCloseTo(0.975, 3);
  });

  it('gives two processes twice the threads: two instances at 250 µs each could serve 8,000 req/s, the machine less', () => {
    const limits = ceilingsOf(result(5_800, 250, 340), 2)!;
    expect(limits.threads).toBe(8_000);
    expect(Math.min(limits.threads, limits.machine) / 3_900).toBeCloseTo(1.508, 2);
    expect(limits.threadsBusy).toBeCloseTo(0.725, 3);
  });

  it('bounds a process by its busiest thread, not by all its threads: 400 µs per call of which 250 on the event loop', () => {
    // On PGlite the embedded database's worker spends the other 150 µs beside the event loop, on the other core.
    const limits = ceilingsOf(result(3_000, 400, 520, 250), 1)!;
    expect(limits.threads).toBe(4_000);
    expect(limits.threadsBusy).toBeCloseTo(0.75, 3);
  });

  it('has nothing to say without CPU figures', () => {
    expect(ceilingsOf({ ...result(1, 1, 1), cpu: undefined }, 1)).toBeUndefined();
    expect(ceilingsOf(result(1, 0, 1), 1)).toBeUndefined();
  });
});
