import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkcePair } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A loopback listener standing for an internal service: it only counts who connects. */
async function receiver(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => count };
}

let svc: TestService;
let internal: Awaited<ReturnType<typeof receiver>>;
let allowed: Awaited<ReturnType<typeof receiver>>;

beforeAll(async () => {
  [internal, allowed] = await Promise.all([receiver(), receiver()]);
  // The service's own client metadata fetch (no test fetch): one loopback port is allowed, to show a fetch that is
  // let through does reach its receiver.
  svc = await startTestService({ clientMetadataDestinations: { allowHosts: new Set([`127.0.0.1:${allowed.port}`]) } });
});
afterAll(async () => {
  await svc?.close();
  internal?.server.close();
  allowed?.server.close();
});

async function authorize(clientId: string): Promise<{ status: number; text: string }> {
  const url = `${svc.url}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:53682/callback',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    scope: 'read:social',
  })}`;
  const answer = await fetch(url, { redirect: 'manual' });
  return { status: answer.status, text: await answer.text() };
}

describe('a client ID metadata document on an internal address', () => {
  it.each(['127.0.0.1', 'localhost', '127.0.0.1.', '2130706433', '[::ffff:127.0.0.1]'])('on %s is refused before any connection is opened', async (host) => {
    const answer = await authorize(`https://${host}:${internal.port}/clients/agent.json`);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('client_id metadata document fetch failed');
    expect(internal.connections()).toBe(0);
  });

  it('is fetched when the address is allowed: the receiver sees the connection (it speaks no TLS, so the fetch still fails)', async () => {
    const answer = await authorize(`https://127.0.0.1:${allowed.port}/clients/agent.json`);
    expect(answer.text).toContain('client_id metadata document fetch failed');
    expect(allowed.connections()).toBeGreaterThan(0);
    expect(internal.connections()).toBe(0);
  });
});
