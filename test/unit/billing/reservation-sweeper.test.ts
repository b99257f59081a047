import { describe, expect, it } from 'vitest';
import { startReservationSweeper } from '../../../adapters/billing/reservation-sweeper.ts';

describe('reservation sweeper', () => {
  it('sweeps on its interval, reports failures, and stops', async () => {
    let sweeps = 0;
    const errors: unknown[] = [];
    const sweeper = startReservationSweeper(
      {
        sweepExpiredReservations: async () => {
          sweeps += 1;
          if (sweeps === 2) throw new Error('database away');
          return 1;
        },
      },
      { intervalMs: 10, onError: (error) => errors.push(error) },
    );
    await new Promise((done) => setTimeout(done, 55));
    sweeper.stop();
    const counted = sweeps;
    await new Promise((done) => setTimeout(done, 30));
    expect(counted).toBeGreaterThanOrEqual(3);
    expect(sweeps).toBe(counted);
    expect(errors).toHaveLength(1);
  });
});
