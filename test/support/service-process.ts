import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnUntil } from '../../bench/processes.ts';
import { TEST_OPERATOR_TOKEN, type TestService } from './service.ts';

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  operatorUrl: string;
  operatorToken: string;
  /** SIGTERM, as a deployment stops an instance (SIGKILL if it has not exited 10 s later). */
  stop(): Promise<void>;
  /** SIGKILL: the instance dies in the middle of its work. */
  kill(): Promise<void>;
}

const READY = /base URL:\s+(\S+)[\s\S]*operator:\s+(\S+)/;
const started = new Set<ServiceProcess>();

/**
 * `node server.ts` in a process of its own beside a test service, as a second instance is deployed: on the test
 * service's PostgreSQL database with its tiers, in production mode with the keys it generated into its data folder,
 * reading its simulated platforms.
 */
export async function startServiceProcess(svc: TestService): Promise<ServiceProcess> {
  if (!svc.db.databaseUrl) throw new Error('a second process needs the test service on PostgreSQL');
  const generated = (file: string) => readFileSync(join(svc.dataDir, file), 'utf8').trim();
  const { child, match, stop } = await spawnUntil(
    'server.ts',
    {
      DATABASE_URL: svc.db.databaseUrl,
      SVC_DATA_DIR: svc.dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
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
      SVC_CURSOR_KEYS: generated('cursor-keys'),
      SVC_WEBHOOK_KEYS: generated('webhook-keys'),
      SVC_OAUTH_KEYS: generated('oauth-keys'),
    },
    READY,
    { timeoutMs: 60_000 },
  );
  const kill = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  const instance = { child, url: match[1], operatorUrl: match[2], operatorToken: TEST_OPERATOR_TOKEN, stop, kill };
  started.add(instance);
  return instance;
}

/** For afterAll: no process outlives its test file. */
export async function killServiceProcesses(): Promise<void> {
  await Promise.all([...started].map((instance) => instance.kill()));
  started.clear();
}
