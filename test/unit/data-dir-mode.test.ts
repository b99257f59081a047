import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDataDir } from '../../adapters/db/data-dir-mode.ts';

let root: string;
const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'data-dir-mode-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the data folder', () => {
  it('is created owner-only, its missing parents too', async () => {
    const folder = join(root, 'a', 'data');
    ensurePrivateDataDir(folder);
    expect(await modeOf(folder)).toBe(0o700);
    expect(await modeOf(join(root, 'a'))).toBe(0o700);
  });

  it('left world-readable by an older start is tightened', async () => {
    const folder = join(root, 'data');
    await mkdir(folder, { mode: 0o755 });
    expect(await modeOf(folder)).toBe(0o755);
    ensurePrivateDataDir(folder);
    expect(await modeOf(folder)).toBe(0o700);
  });
});
