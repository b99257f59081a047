import { PostgresNotificationChannel } from '@agendajs/postgres-backend';

/**
 * The backend's LISTEN channel, made to stop for good. Its own `disconnect` clears a reconnect timer that is waiting,
 * but not a `connect` already under way (a reconnect after a lost connection): one that wins a pool client after the
 * disconnect keeps it and LISTENs on it, so the job store's `pool.end()` waits forever; one that fails schedules the
 * next attempt, which then fails on the ended pool every 100 ms ("Cannot use a pool after calling end on the pool").
 *
 * Here `disconnect` first closes the channel (a `connect` after it, such as the reconnect timer's, does nothing), waits
 * for the attempts under way to settle, and only then runs the backend's own disconnect, which releases the client an
 * attempt won and clears the timer a failed one set. Only the class's public methods are overridden; the backend's
 * reconnect calls `this.connect()`, so it goes through here (test/integration/jobs/listen-channel.test.ts fails if
 * that changes).
 */
export class StoppingListenChannel extends PostgresNotificationChannel {
  #closed = false;
  #disconnected: Promise<void> | undefined;
  readonly #attempts = new Set<Promise<void>>();

  override connect(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const attempt = super.connect();
    const settled = attempt.then(
      () => undefined,
      () => undefined,
    );
    this.#attempts.add(settled);
    void settled.then(() => this.#attempts.delete(settled));
    return attempt;
  }

  /** Agenda's stop and drain each disconnect the channel, and the job store's close runs both: the second waits on the first. */
  override disconnect(): Promise<void> {
    this.#disconnected ??= this.#disconnect();
    return this.#disconnected;
  }

  async #disconnect(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#attempts);
    await super.disconnect();
  }
}
