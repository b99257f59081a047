import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** `node server.ts` refused by its configuration: what an operator sees in the deployment's log. */
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-production-start-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function start(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, ['server.ts'], { env: { PATH: process.env.PATH ?? '', SVC_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env }, timeout: 60_000 });
    throw new Error('the service started');
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('a production start refused by its configuration', () => {
  it('prints one "Failed to start" line naming what is missing, no stack trace, and exits non-zero', async () => {
    const { code, stdout, stderr } = await start({ NODE_ENV: 'production' });
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^Failed to start: Production mode .* needs SVC_OPERATOR_TOKEN/);
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
