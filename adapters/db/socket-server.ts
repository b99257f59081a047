import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { socketServedPglite } from './socket-served-pglite.ts';

/**
 * Serves PGlite to PostgreSQL clients on a loopback port, started. Port 0: the OS gives the listener a free port, which
 * it holds from then on (`getServerConn` reads it back); a free port probed first and listened on after could be taken
 * by another process in between.
 */
export async function openSocketServer(pglite: PGlite, maxConnections: number): Promise<PGLiteSocketServer> {
  const server = new PGLiteSocketServer({ db: socketServedPglite(pglite), host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  return server;
}
