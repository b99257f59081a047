// Child process for the lock tests: tries to take the data-folder lock, reports, then holds or exits.
import { acquireDataDirLock } from '../../../adapters/db/data-dir-lock.ts';

const [dataDir, mode] = process.argv.slice(2);
try {
  acquireDataDirLock(dataDir);
  process.stdout.write('acquired\n');
  // 'hold' keeps the lock until killed; otherwise exit normally so the exit hook releases it.
  if (mode === 'hold') setInterval(() => undefined, 60_000);
} catch (error) {
  process.stdout.write(`refused: ${(error as Error).message}\n`);
  process.exitCode = 3;
}
