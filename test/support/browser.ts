import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (apt), or CHROMIUM_PATH; playwright-core drives it and downloads nothing. */
export const CHROMIUM_PATH = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path): path is string => Boolean(path && existsSync(path)));

/** Why browser tests are skipped here, or undefined when a browser is available. */
export const NO_BROWSER = CHROMIUM_PATH ? undefined : 'no chromium on this machine (apt-get install chromium, or set CHROMIUM_PATH): browser tests skipped';

export function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM_PATH) throw new Error(NO_BROWSER);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}
