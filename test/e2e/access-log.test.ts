import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** The structured logs a real process writes: one JSON access line per request. */
let child: ChildProcess | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  child?.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('structured logs', () => {
  it('write one JSON access line per request: request id, workspace, operation, status, credits, duration', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-logs-'));
    child = spawn(process.execPath, ['server.ts'], {
      cwd: process.cwd(),
      env: { ...process.env, SVC_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', SVC_OPERATOR_TOKEN: '', LOG_LEVEL: 'info', SVC_SIM_PUBLISH: 'off', VITEST: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    let url: string | undefined;
    let key: string | undefined;
    for (let i = 0; i < 600 && !(url && key); i++) {
      url = /base URL:\s+(\S+)/.exec(output)?.[1];
      key = /demo key:\s+(\S+)/.exec(output)?.[1];
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(url, output).toBeDefined();
    const res = await fetch(`${url}/v1/whoami`, { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'log-check-0001' } });
    expect(res.status).toBe(200);
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !line; i++) {
      line = output
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((entry) => entry.requestId === 'log-check-0001');
      if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(line).toMatchObject({
      msg: 'request',
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
    // The banner prints the demo key on purpose; no log line ever holds a credential.
    expect(output.split('\n').filter((text) => text.startsWith('{') && text.includes(key!))).toEqual([]);
    // A real process's cold start (a new embedded database, every migration) took 33 s on a loaded 2-core machine.
  }, 90_000);
});
