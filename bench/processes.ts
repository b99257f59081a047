import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Spawned {
  child: ChildProcess;
  lines: () => string;
  stop(): Promise<void>;
}

/** Runs a script of this project in its own process and waits until it prints a line matching `ready`. */
export async function spawnUntil(script: string, env: Record<string, string>, ready: RegExp, timeoutMs = 60_000): Promise<Spawned & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
  for (let waited = 0; waited < timeoutMs; waited += 50) {
    const match = ready.exec(output);
    if (match) return { child, lines: () => output, stop, match };
    if (child.exitCode !== null) throw new Error(`${script} exited early:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`${script} did not get ready:\n${output}`);
}

/** The service on the embedded default in a fresh data folder (or DATABASE_URL when set), in its own process. */
export async function spawnService(extraEnv: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  const key = () => `k1:${randomBytes(32).toString('base64')}`;
  // On PostgreSQL the service runs in production mode: every secret given, the simulated platforms and the demo asked for.
  const production: Record<string, string> = process.env.DATABASE_URL
    ? { SVC_OPERATOR_TOKEN: randomBytes(24).toString('base64url'), SVC_CURSOR_KEYS: key(), SVC_WEBHOOK_KEYS: key(), SVC_SIMULATED_PLATFORMS: 'on', SVC_DEMO: 'true' }
    : {};
  const proc = await spawnUntil('server.ts', { SVC_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...production, ...extraEnv }, /base URL:\s+(\S+)[\s\S]*demo key:\s+(\S+)/);
  return {
    url: proc.match[1],
    key: proc.match[2],
    dataDir,
    stop: async () => {
      await proc.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
