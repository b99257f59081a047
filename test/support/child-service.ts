import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_OPERATOR_TOKEN, type TestService } from './service.ts';

const children = new Set<ChildProcess>();

/** A real `node server.ts` on the test's database, reading the test's own simulated platforms. */
export async function startChild(svc: TestService): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['server.ts'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: svc.db.databaseUrl,
      SVC_DATA_DIR: svc.dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_DEMO: 'false',
      SVC_SIM_PUBLISH: 'off',
      SVC_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      FORUM_UPSTREAM_URL: svc.service.platforms.simulated.forum,
      MICROBLOG_UPSTREAM_URL: svc.service.platforms.simulated.microblog,
      SVC_WEBHOOK_ALLOW_HTTP: 'true',
      SVC_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      // One tier table for every instance on a database (an instance with another refuses to start).
      SVC_TIERS: JSON.stringify(svc.tiers),
      // Production mode asks for every key: the same ones the test's own instance generated.
      SVC_CURSOR_KEYS: readFileSync(join(svc.dataDir, 'cursor-keys'), 'utf8').trim(),
      SVC_WEBHOOK_KEYS: readFileSync(join(svc.dataDir, 'webhook-keys'), 'utf8').trim(),
      SVC_OAUTH_KEYS: readFileSync(join(svc.dataDir, 'oauth-keys'), 'utf8').trim(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  for (let waited = 0; waited < 30_000; waited += 100) {
    const url = /base URL:\s+(\S+)/.exec(output)?.[1];
    if (url) return { child, url };
    if (child.exitCode !== null) throw new Error(`child exited: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`child did not start: ${output}`);
}

export function killChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** For afterAll: no child outlives its test file. */
export function killChildren(): void {
  for (const child of children) child.kill('SIGKILL');
}
