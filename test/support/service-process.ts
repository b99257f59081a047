import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loopbackListener, spawnUntil } from '../../bench/processes.ts';
import { DEMO_KEY_FILE } from '../../service/demo-workspace.ts';
import { TEST_OPERATOR_TOKEN, type TestService } from './service.ts';

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  operatorUrl: string;
  operatorToken: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, as a deployment stops an instance (SIGKILL if it has not exited 10 s later). */
  stop(): Promise<void>;
  /** SIGKILL: the instance dies in the middle of its work. */
  kill(): Promise<void>;
}

export interface DemoProcess extends ServiceProcess {
  /** The demo key, from its file (a production banner names the file, never the key). */
  key: string;
}

const READY = /base URL:\s+(\S+)[\s\S]*operator:\s+(\S+)/;
/** The banner's last line on a demo: by then the demo key is in its file and the sign-in lines are printed too. */
const DEMO_READY = /base URL:\s+(\S+)[\s\S]*operator:\s+(\S+)[\s\S]*demo key:[\s\S]*\n\s*try:/;
const started = new Set<ServiceProcess>();

/** `node server.ts` with `env` over the test process's environment, once its output matches `ready`. */
async function spawnServer(env: Record<string, string>, ready: RegExp, operatorToken: (match: RegExpExecArray) => string): Promise<ServiceProcess & { match: RegExpExecArray }> {
  const { child, match, lines, stop } = await spawnUntil('server.ts', env, ready, { timeoutMs: 60_000 });
  const kill = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  const instance = { child, match, url: match[1], operatorUrl: match[2], operatorToken: operatorToken(match), output: lines, stop, kill };
  started.add(instance);
  return instance;
}

/**
 * `node server.ts` in a process of its own beside a test service, as a second instance is deployed: on the test
 * service's PostgreSQL database with its tiers, in production mode with the keys it generated into its data folder,
 * reading its simulated platforms. `env` adds to (or overrides) that environment.
 */
export async function startServiceProcess(svc: TestService, options: { env?: Record<string, string> } = {}): Promise<ServiceProcess> {
  if (!svc.db.databaseUrl) throw new Error('a second process needs the test service on PostgreSQL');
  const generated = (file: string) => readFileSync(join(svc.dataDir, file), 'utf8').trim();
  return spawnServer(
    {
      DATABASE_URL: svc.db.databaseUrl,
      SVC_DATA_DIR: svc.dataDir,
      ...(await loopbackListener(true)),
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
      ...options.env,
    },
    READY,
    () => TEST_OPERATOR_TOKEN,
  );
}

const secretKey = () => `k1:${randomBytes(32).toString('base64')}`;

/**
 * `node server.ts` on its own with the demo workspace and key, in `dataDir`:
 * - without `databaseUrl`, the embedded default with no configuration at all, as a newcomer's `npm start` (a new
 *   folder is a first start, a folder a process used before is a restart, a copied PGlite template skips migrating);
 * - with `databaseUrl`, in production mode on that database, with secrets of its own and its simulated platforms.
 * `env` adds to (or overrides) that environment.
 */
export async function startDemoProcess(options: { dataDir: string; databaseUrl?: string; env?: Record<string, string> }): Promise<DemoProcess> {
  const env: Record<string, string> = options.databaseUrl
    ? { DATABASE_URL: options.databaseUrl, SVC_DEMO: 'true', SVC_SIMULATED_PLATFORMS: 'on', SVC_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN, SVC_CURSOR_KEYS: secretKey(), SVC_WEBHOOK_KEYS: secretKey(), SVC_OAUTH_KEYS: secretKey() }
    : { DATABASE_URL: '', SVC_OPERATOR_TOKEN: '' };
  const instance = await spawnServer({ SVC_DATA_DIR: options.dataDir, ...(await loopbackListener(Boolean(options.databaseUrl))), ...env, ...options.env }, DEMO_READY, () =>
    options.databaseUrl ? TEST_OPERATOR_TOKEN : readFileSync(join(options.dataDir, 'operator-token'), 'utf8').trim(),
  );
  return { ...instance, key: readFileSync(join(options.dataDir, DEMO_KEY_FILE), 'utf8').trim() };
}

/**
 * The embedded default started on a data folder another process holds: its exit code and output once it has said it
 * failed to start (a process that starts instead is stopped, and this throws).
 */
export async function refusedDemoProcess(dataDir: string): Promise<{ code: number | null; output: string }> {
  const { child, match, output, stop } = await spawnServer(
    { SVC_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', SVC_OPERATOR_TOKEN: '' },
    /Failed to start:.*\n|base URL:\s+(\S+)/,
    () => '',
  );
  if (match[1]) {
    await stop();
    throw new Error(`a second process started on a held data folder:\n${output()}`);
  }
  const code = child.exitCode ?? (await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode))));
  return { code, output: output() };
}

/** For afterAll: no process outlives its test file. */
export async function killServiceProcesses(): Promise<void> {
  await Promise.all([...started].map((instance) => instance.kill()));
  started.clear();
}
