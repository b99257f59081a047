import { EventEmitter, once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A connection the proxy took but has not passed on yet: its client waits for the server's first answer. */
export interface HeldConnection {
  /** Passes it on to the target, as if it had never waited. */
  pass(): void;
  /** Cuts it, as a database that went away would. */
  cut(): void;
}

/**
 * A TCP proxy to a PostgreSQL server on 127.0.0.1 that a test cuts and restores (a database that goes away and comes
 * back), or whose next new connection it holds (a connection under way for as long as the test wants).
 */
export function startProxy(target: URL) {
  const sockets = new Set<Socket>();
  const events = new EventEmitter();
  let server: Server | undefined;
  let port = 0;
  let listening = false;
  let holding = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const pass = (client: Socket) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
  };
  const listen = () =>
    listening ? Promise.resolve() : new Promise<void>((resolve) => {
      server = createServer((client) => {
        track(client);
        if (!holding) return pass(client);
        holding = false;
        const held: HeldConnection = { pass: () => pass(client), cut: () => client.destroy() };
        events.emit('held', held);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        listening = true;
        resolve();
      });
    });
  return {
    listen,
    /** `url` with its host replaced by the proxy's. */
    through(url: string): string {
      const proxied = new URL(url);
      proxied.host = `127.0.0.1:${port}`;
      return proxied.toString();
    },
    /** The next new connection waits (the ones after it pass): resolves with it once it arrives. */
    async holdNext(): Promise<HeldConnection> {
      holding = true;
      const [held] = (await once(events, 'held')) as [HeldConnection];
      return held;
    },
    /** Refuses new connections and cuts the open ones. */
    async down() {
      listening = false;
      const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
