import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Spawned {
  child: ChildProcess;
  lines: () => string;
  stop(): Promise<void>;
}

/** Runs a script of this project (or of `cwd`'s checkout) in its own process and waits for a line matching `ready`. */
export async function spawnUntil(script: string, env: Record<string, string>, ready: RegExp, options: { cwd?: string; timeoutMs?: number; nodeFlags?: readonly string[] } = {}): Promise<Spawned & { match: RegExpExecArray }> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), script], { cwd: options.cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
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

/** A port free on loopback now, for a production process that must know its public URL before it listens. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * The listener's environment: any free port on the embedded default; in production (which requires SVC_PUBLIC_URL,
 * the OAuth issuer) a free port chosen first so the public URL names it.
 */
export async function loopbackListener(production: boolean): Promise<Record<string, string>> {
  if (!production) return { PORT: '0', HOST: '127.0.0.1' };
  const port = await freePort();
  return { PORT: String(port), HOST: '127.0.0.1', SVC_OPERATOR_PORT: '0', SVC_PUBLIC_URL: `http://127.0.0.1:${port}` };
}

export interface BenchService {
  url: string;
  pid: number;
  /** Everything the process printed so far. */
  output: () => string;
  operatorUrl: string;
  operatorToken: string;
  key: string;
  dataDir: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** The checkout whose server.ts runs (the bench's own by default; another for a "before" measurement). */
  root?: string;
  /** `postgres://…` of a database of this run; absent: the embedded default in a fresh data folder. */
  databaseUrl?: string;
  /** A second instance shares the first one's data folder: same demo key, same generated secrets. */
  dataDir?: string;
  env?: Record<string, string>;
  /** Extra flags for node, before the script: a paired measurement of a runtime flag gives them to one side. */
  nodeFlags?: readonly string[];
}

const secretKey = () => `k1:${randomBytes(32).toString('base64')}`;
/** One set of production secrets per bench run: instances on one database must share them. */
const production = { SVC_OPERATOR_TOKEN: randomBytes(24).toString('base64url'), SVC_CURSOR_KEYS: secretKey(), SVC_WEBHOOK_KEYS: secretKey(), SVC_OAUTH_KEYS: secretKey(), SVC_SIMULATED_PLATFORMS: 'on', SVC_DEMO: 'true' };

/** The service in its own process, logging only warnings, with its demo key and operator API. */
export async function spawnService(options: ServiceOptions = {}): Promise<BenchService> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-bench-')));
  const env: Record<string, string> = {
    SVC_DATA_DIR: dataDir,
    ...(await loopbackListener(Boolean(options.databaseUrl))),
    LOG_LEVEL: 'warn',
    SVC_SIM_PUBLISH: 'off',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl, ...production } : { DATABASE_URL: '' }),
    ...options.env,
  };
  // The key is read from its file: a production banner names the file, never the key.
  const proc = await spawnUntil(join(options.root ?? '.', 'server.ts'), env, /base URL:\s+(\S+)[\s\S]*operator:\s+(\S+)[\s\S]*demo key:.*\n/, { cwd: options.root, nodeFlags: options.nodeFlags });
  const operatorToken = options.databaseUrl ? production.SVC_OPERATOR_TOKEN : (await readFile(join(dataDir, 'operator-token'), 'utf8')).trim();
  return {
    url: proc.match[1],
    pid: proc.child.pid!,
    output: proc.lines,
    operatorUrl: proc.match[2],
    key: (await readFile(join(dataDir, 'demo-key'), 'utf8')).trim(),
    operatorToken,
    dataDir,
    stop: async () => {
      await proc.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
