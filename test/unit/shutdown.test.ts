import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../adapters/logging/logger.ts';
import { runShutdown, SHUTDOWN_STEP_MS, type Cleanup } from '../../service/shutdown.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('shutdown', () => {
  it('goes on past a step that never finishes once its bound has passed, and names it in the log', async () => {
    vi.useFakeTimers();
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const ran: string[] = [];
    const steps: Cleanup[] = [
      { step: 'listener', run: () => void ran.push('listener') },
      { step: 'job store', run: () => new Promise<void>(() => ran.push('job store')) },
      { step: 'database', run: () => void ran.push('database') },
    ];
    const closed = runShutdown(steps);
    await vi.advanceTimersByTimeAsync(SHUTDOWN_STEP_MS - 1);
    expect(ran).toEqual(['listener', 'job store']);
    await vi.advanceTimersByTimeAsync(1);
    await closed;
    expect(ran).toEqual(['listener', 'job store', 'database']);
    expect(errors).toHaveBeenCalledWith({ step: 'job store', waitedMs: SHUTDOWN_STEP_MS }, expect.stringContaining('did not finish'));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('goes on past a step that fails, synchronously or not, and runs each step once', async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const ran: string[] = [];
    const steps: Cleanup[] = [
      {
        step: 'usage ledger',
        run: () => {
          ran.push('usage ledger');
          throw new Error('gone');
        },
      },
      { step: 'credit leases', run: async () => void ran.push('credit leases') },
      { step: 'rate limiter', run: () => Promise.reject(new Error('refused')) },
      { step: 'database', run: () => void ran.push('database') },
    ];
    await runShutdown(steps);
    await runShutdown(steps);
    expect(ran).toEqual(['usage ledger', 'credit leases', 'database']);
    expect(errors.mock.calls.map(([fields]) => (fields as { step: string }).step)).toEqual(['usage ledger', 'rate limiter']);
  });
});
