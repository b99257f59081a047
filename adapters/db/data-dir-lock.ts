import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Exclusive ownership of a data folder. PGlite does not lock its files, and two processes on one folder
 * silently lose writes, so the service holds `<dataDir>/service.lock` (created with O_EXCL, holding the
 * owner's pid) for its whole life. A lock whose pid is no longer alive is stale (crash, kill -9) and is
 * taken over.
 */
export const LOCK_FILE = 'service.lock';
const TAKEOVER_FILE = 'service.lock.takeover';
/** A takeover guard older than this was left by a process that died mid-takeover. */
const TAKEOVER_GUARD_STALE_MS = 10_000;
/** A lock file without a pid younger than this may be mid-creation by another starter. */
const UNWRITTEN_LOCK_GRACE_MS = 2_000;
const MAX_ATTEMPTS = 5;

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

export class DataDirLockedError extends Error {
  readonly lockPath: string;
  readonly ownerPid: number | null;

  constructor(lockPath: string, ownerPid: number | null) {
    super(
      `The data folder is in use by another running service (pid ${ownerPid ?? 'unknown'}): ${lockPath} is held. ` +
        'Only one process may own an embedded database folder. Stop the other service, point this one at another ' +
        'SVC_DATA_DIR, or use DATABASE_URL; if no such process is running, delete the lock file.',
    );
    this.name = 'DataDirLockedError';
    this.lockPath = lockPath;
    this.ownerPid = ownerPid;
  }
}

/** Lock files this process holds: a lock naming our own pid that we do not hold is left over from a
 * previous process that had the same pid (typical for pid 1 in a restarted container). */
const heldByThisProcess = new Set<string>();

export function acquireDataDirLock(dataDir: string): DataDirLock {
  const folder = resolve(dataDir);
  mkdirSync(folder, { recursive: true });
  const lockPath = join(folder, LOCK_FILE);

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (tryCreate(lockPath)) return holdLock(lockPath);
    const owner = readOwner(lockPath);
    if (owner === undefined) continue; // vanished between our create and read: try again
    if (owner !== null && isAlive(owner, lockPath)) throw new DataDirLockedError(lockPath, owner);
    if (owner === null && !isOlderThan(lockPath, UNWRITTEN_LOCK_GRACE_MS)) {
      // Another starter created the file and has not written its pid yet: give it a moment.
      sleepSync(50);
      continue;
    }
    removeStaleLock(folder, lockPath, owner);
  }
  throw new DataDirLockedError(lockPath, readOwner(lockPath) ?? null);
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function holdLock(lockPath: string): DataDirLock {
  heldByThisProcess.add(lockPath);
  // Runs on normal exit and process.exit(); a killed process leaves a stale lock, which the next start takes over.
  const onExit = (): void => removeIfOurs(lockPath);
  process.once('exit', onExit);
  let released = false;
  return {
    path: lockPath,
    release() {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      removeIfOurs(lockPath);
    },
  };
}

function removeIfOurs(lockPath: string): void {
  if (!heldByThisProcess.delete(lockPath)) return;
  if (readOwner(lockPath) === process.pid) unlinkQuietly(lockPath);
}

/** The pid in the lock file; null when unreadable garbage; undefined when the file is gone. */
function readOwner(lockPath: string): number | null | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 && String(pid) === text.trim() ? pid : null;
}

function isAlive(pid: number, lockPath: string): boolean {
  if (pid === process.pid) return heldByThisProcess.has(lockPath);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else — still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a stale lock under a second O_EXCL guard, so two starters that both saw the same stale pid
 * cannot both delete the lock (the second would otherwise delete the first one's fresh lock).
 */
function removeStaleLock(folder: string, lockPath: string, stalePid: number | null): void {
  const guardPath = join(folder, TAKEOVER_FILE);
  if (!tryCreate(guardPath)) {
    // Another starter is taking over right now; let it finish before looking again.
    if (isOlderThan(guardPath, TAKEOVER_GUARD_STALE_MS)) unlinkQuietly(guardPath);
    else sleepSync(20);
    return;
  }
  try {
    if (readOwner(lockPath) === stalePid) unlinkQuietly(lockPath);
  } finally {
    unlinkQuietly(guardPath);
  }
}

function isOlderThan(path: string, ageMs: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ageMs;
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
