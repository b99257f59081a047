import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { createPostgreSqlTypeParsers } from '@mikro-orm/sql';
import { parse as parseArray } from 'postgres-array';
import { openSocketServer } from './socket-server.ts';
import type { EmbeddedDatabaseOptions, ErrorFields, Reply, Request } from './embedded-database.ts';

/**
 * The worker side of `EmbeddedDatabase`: owns the PGlite instance and runs what the service's thread sends. Messages
 * are handled as they come, each awaiting PGlite's own locks, so a statement waits for an open transaction here just
 * as it did in the service's thread.
 */
const port = parentPort!;
const { dataDir } = workerData as EmbeddedDatabaseOptions;
const post = (reply: Reply) => port.postMessage(reply);

/** Stands for the caller's rollback inside PGlite's transaction callback; never leaves this file. */
const ROLLED_BACK = Symbol('rolled back');

interface OpenTransaction {
  tx: Transaction;
  finish: (commit: boolean) => void;
  /** PGlite's transaction: resolves once committed, rejects on a failed commit or a rollback. */
  done: Promise<void>;
}

const transactions = new Map<number, OpenTransaction>();
const servers = new Map<number, PGLiteSocketServer>();
const unlistens = new Map<string, () => Promise<void>>();
let nextHandle = 1;

// The same type parsers the ORM gives a PGlite it opens itself (dates as text, their arrays parsed).
const pglite = await PGlite.create({ dataDir, parsers: createPostgreSqlTypeParsers(parseArray) }).catch((error: unknown) => {
  post({ failed: errorFields(error) });
  throw error;
});
port.on('message', (request: Request) => {
  handle(request).then(
    (result) => post({ id: request.id, result }),
    (error: unknown) => post({ id: request.id, error: errorFields(error) }),
  );
});
post({ opened: true });

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'query':
      return (request.tx ? open(request.tx) : pglite).query(request.sql, request.params, request.options);
    case 'exec':
      return (request.tx ? open(request.tx) : pglite).exec(request.sql);
    case 'begin':
      return begin();
    case 'end':
      return end(request.tx, request.commit);
    case 'rollback':
      return open(request.tx).rollback();
    case 'listen':
      unlistens.set(request.channel, await pglite.listen(request.channel, (payload) => post({ notify: request.channel, payload })));
      return undefined;
    case 'unlisten': {
      const unlisten = unlistens.get(request.channel);
      unlistens.delete(request.channel);
      return unlisten?.();
    }
    case 'serve': {
      const server = await openSocketServer(pglite, request.maxConnections);
      const handle = nextHandle++;
      servers.set(handle, server);
      return { server: handle, address: server.getServerConn() };
    }
    case 'unserve':
      await servers.get(request.server)?.stop();
      servers.delete(request.server);
      return undefined;
    case 'close':
      return pglite.close();
  }
}

function open(handle: number): Transaction {
  const transaction = transactions.get(handle);
  if (!transaction) throw new Error('Transaction is closed');
  return transaction.tx;
}

/** Opens a PGlite transaction held until `end`; resolves to its handle once BEGIN ran. */
function begin(): Promise<number> {
  const handle = nextHandle++;
  return new Promise<number>((begun, failed) => {
    let finish!: (commit: boolean) => void;
    const outcome = new Promise<boolean>((resolve) => (finish = resolve));
    const done = pglite.transaction(async (tx) => {
      transactions.set(handle, { tx, finish, done });
      begun(handle);
      if (!(await outcome)) throw ROLLED_BACK;
    });
    done.catch(failed);
  });
}

async function end(handle: number, commit: boolean): Promise<void> {
  const transaction = transactions.get(handle);
  if (!transaction) return;
  transactions.delete(handle);
  transaction.finish(commit);
  await transaction.done.catch((error: unknown) => {
    if (error !== ROLLED_BACK) throw error;
  });
}

/** An error's message and PostgreSQL fields as plain data; the statement's parameters and options stay here. */
function errorFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: ErrorFields = { message: error.message };
  for (const [key, value] of Object.entries(error)) {
    if (key !== 'params' && key !== 'queryOptions' && (typeof value === 'string' || typeof value === 'number')) fields[key] = value;
  }
  if (error.name) fields.name = error.name;
  return fields;
}
