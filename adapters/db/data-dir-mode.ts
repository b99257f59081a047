import { chmodSync, mkdirSync } from 'node:fs';
import { logger } from '../logging/logger.ts';

/**
 * The data folder holds the embedded database (emails, password and key hashes), its generated secrets and the demo
 * key: only the service's own user may enter it. PGlite writes its files 0644, so the folder is what keeps them.
 */
export const DATA_DIR_MODE = 0o700;

/** Creates the data folder owner-only, and tightens one that already exists (an older start left it 0755). */
export function ensurePrivateDataDir(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: DATA_DIR_MODE });
  try {
    chmodSync(folder, DATA_DIR_MODE);
  } catch (error) {
    // A folder of another user (a mounted volume) cannot be changed; the service still runs on it.
    logger.warn({ folder, reason: (error as Error).message }, 'data folder left as it is: its mode could not be set to 700');
  }
}
