import pg from 'pg';
import type { TestService } from './service.ts';

export interface StatementLog {
  /** Every statement text sent since the log started, in order. */
  readonly texts: string[];
  stop(): void;
}

const textOf = (query: unknown) => (typeof query === 'string' ? query : ((query as { text?: string } | null)?.text ?? ''));

/**
 * Records every statement a test service sends, through the ORM's connection and through `pg` itself (the
 * rate-limit store's pool, the key change feed), so a test can prove a call sent none.
 */
export function logStatements(svc: TestService): StatementLog {
  const texts: string[] = [];
  const connection = svc.service.orm.em.getConnection();
  const execute = connection.execute;
  connection.execute = ((...args: Parameters<typeof execute>) => {
    texts.push(textOf(args[0]));
    return execute.apply(connection, args);
  }) as typeof connection.execute;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    texts.push(textOf(args[0]));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
  return {
    texts,
    stop() {
      connection.execute = execute;
      pg.Client.prototype.query = query;
    },
  };
}
