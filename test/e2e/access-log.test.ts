import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { killServiceProcesses, startDemoProcess } from '../support/service-process.ts';

/** The structured logs a real process writes: one JSON access line per request. */
let db: TestDatabase | undefined;
/** On PostgreSQL: the process's data folder (on PGlite the database's own folder is). */
let dataDir: string | undefined;

afterAll(async () => {
  await killServiceProcesses();
  await db?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('structured logs', () => {
  it('write one JSON access line per request: request id, workspace, operation, status, credits, duration', async () => {
    // A copy of the run's migrated database (what is logged does not depend on a cold start, which embedded-default tests).
    db = await createTestDatabase();
    if (!db.dataDir) dataDir = await mkdtemp(join(tmpdir(), 'svc-logs-'));
    const { url, key, output } = await startDemoProcess({ dataDir: db.dataDir ?? dataDir!, databaseUrl: db.databaseUrl, env: { LOG_LEVEL: 'info', SVC_SIM_PUBLISH: 'off' } });
    // X-Forwarded-For is anyone's to write: the address logged is the connection's peer, never the header's.
    const res = await fetch(`${url}/v1/whoami`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'log-check-0001', 'x-forwarded-for': '203.0.113.9' } });
    expect(res.status).toBe(200);
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !line; i++) {
      line = output()
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => entry.requestId === 'log-check-0001');
      if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(line).toMatchObject({
      msg: 'request',
      clientAddress: '127.0.0.1',
      level: 30,
      service: 'conversation-data-service',
      method: 'GET',
      path: '/v1/whoami',
      status: 200,
      surface: 'rest',
      operation: 'whoami',
      creditsCharged: 0,
      workspaceId: expect.any(String),
      durationMs: expect.any(Number),
    });
    // A long path is cut to ACCESS_LOG_TEXT_MAX, its full length said.
    const long = `/v1/${'x'.repeat(8000)}`;
    expect((await fetch(`${url}${long}`, { headers: { 'x-request-id': 'log-check-long' } })).status).toBe(404);
    let longLine: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !longLine; i++) {
      longLine = output()
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => entry.requestId === 'log-check-long');
      if (!longLine) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(longLine!.path).toBe(`${long.slice(0, 1024)}… (${long.length} characters)`);
    // The embedded default's banner prints the demo key on purpose; no log line ever holds a credential.
    expect(output().split('\n').filter((text) => text.startsWith('{') && text.includes(key))).toEqual([]);
    if (db.databaseUrl) {
      // Production (SVC_DEMO=true): the banner names the files, and neither the key nor the password is printed.
      const password = /^password: (\S+)$/m.exec(await readFile(join(dataDir!, 'demo-person'), 'utf8'))![1];
      expect(output()).toContain(`demo key:  in ${join(dataDir!, 'demo-key')}`);
      expect(output()).not.toContain(key);
      expect(output()).not.toContain(password);
    }
  }, 90_000);
});
