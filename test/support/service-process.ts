import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServiceProcess {
  url: string;
  operatorUrl: string;
  operatorToken: string;
  stop(): Promise<void>;
}

const READY = /base URL:\s+(\S+)[\s\S]*operator:\s+(\S+)/;
const READY_TIMEOUT_MS = 60_000;

/** `npm start` in a process of its own on a PostgreSQL database another instance uses: a second instance, as deployed. */
export async function startServiceProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-process-'));
  const key = () => `k1:${randomBytes(32).toString('base64')}`;
  const operatorToken = randomBytes(24).toString('base64url');
  const child = spawn(process.execPath, ['server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SVC_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SVC_OPERATOR_TOKEN: operatorToken,
      SVC_CURSOR_KEYS: key(),
      SVC_WEBHOOK_KEYS: key(),
      SVC_OAUTH_KEYS: key(),
      SVC_SIMULATED_PLATFORMS: 'on',
      SVC_SIM_PUBLISH: 'off',
      SVC_DEMO: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(forced);
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  const started = Date.now();
  while (!READY.test(output)) {
    if (child.exitCode !== null || Date.now() - started > READY_TIMEOUT_MS) {
      await stop();
      throw new Error(`the second instance did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [, url, operatorUrl] = READY.exec(output)!;
  return { url: url!, operatorUrl: operatorUrl!, operatorToken, stop };
}
