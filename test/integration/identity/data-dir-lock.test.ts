import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, LOCK_FILE } from '../../../adapters/db/data-dir-lock.ts';

const CHILD = new URL('./lock-attempt.ts', import.meta.url).pathname;

function attemptInChild(dataDir: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [CHILD, dataDir], { encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

async function holdInChild(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CHILD, dataDir, 'hold'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(line.toString()).toBe('acquired\n');
  return child;
}

/** A pid that is certainly not running: a child that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('data folder lock', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second process with a clear message naming the owner', () => {
    const lock = acquireDataDirLock(dataDir);
    try {
      expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
      const second = attemptInChild(dataDir);
      expect(second.status).toBe(3);
      expect(second.output).toContain(`refused: The data folder is in use by another running service (pid ${process.pid})`);
      expect(second.output).toContain(join(dataDir, LOCK_FILE));
    } finally {
      lock.release();
    }
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    expect(attemptInChild(dataDir)).toEqual({ status: 0, output: 'acquired\n' });
  });

  it('refuses a second acquisition inside the same process', () => {
    const lock = acquireDataDirLock(dataDir);
    try {
      expect(() => acquireDataDirLock(dataDir)).toThrow(DataDirLockedError);
    } finally {
      lock.release();
    }
  });

  it('is released when the owning process exits normally', () => {
    expect(attemptInChild(dataDir)).toEqual({ status: 0, output: 'acquired\n' });
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('is held while another process lives, and taken over once it is killed', async () => {
    const holder = await holdInChild(dataDir);
    try {
      expect(() => acquireDataDirLock(dataDir)).toThrow(new RegExp(`pid ${holder.pid}\\)`));
    } finally {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
    // kill -9 ran no exit hook: the lock file is still there, naming a dead pid.
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(`${holder.pid}\n`);
    const lock = acquireDataDirLock(dataDir);
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });

  it('takes over a lock naming a dead pid, and an old lock without a pid', () => {
    writeFileSync(join(dataDir, LOCK_FILE), `${deadPid()}\n`);
    acquireDataDirLock(dataDir).release();

    writeFileSync(join(dataDir, LOCK_FILE), 'garbage');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dataDir, LOCK_FILE), old, old);
    acquireDataDirLock(dataDir).release();
  });

  it('does not take over a fresh lock whose owner has not written its pid yet', () => {
    writeFileSync(join(dataDir, LOCK_FILE), '');
    expect(() => acquireDataDirLock(dataDir)).toThrow(DataDirLockedError);
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe('');
  });

  it('treats a lock naming its own pid but not held here as left over from a previous process', () => {
    writeFileSync(join(dataDir, LOCK_FILE), `${process.pid}\n`);
    const lock = acquireDataDirLock(dataDir);
    expect(() => acquireDataDirLock(dataDir)).toThrow(DataDirLockedError);
    lock.release();
  });

  it.each([
    ['a free folder', () => undefined],
    ['a folder with a stale lock', () => writeFileSync(join(dataDir, LOCK_FILE), `${deadPid()}\n`)],
  ])('lets exactly one of several simultaneous starters win on %s', async (_name, prepare) => {
    prepare();
    const children = Array.from({ length: 4 }, () =>
      spawn(process.execPath, [CHILD, dataDir, 'hold'], { stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    try {
      const outcomes = await Promise.all(
        children.map(async (child) => {
          const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
          return chunk.toString().startsWith('acquired') ? 'acquired' : 'refused';
        }),
      );
      expect(outcomes.filter((o) => o === 'acquired')).toHaveLength(1);
    } finally {
      for (const child of children) child.kill('SIGKILL');
    }
  });
});
