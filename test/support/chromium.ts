import { accessSync, constants } from 'node:fs';

/** Where Debian's (or another distribution's) Chromium lives; `CHROMIUM_PATH` wins. Nothing is ever downloaded. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/snap/bin/chromium'];

export function findChromium(): string | undefined {
  for (const path of [process.env.CHROMIUM_PATH, ...CANDIDATES]) {
    if (!path) continue;
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here; try the next place
    }
  }
  return undefined;
}

export const NO_BROWSER_NOTICE = 'SKIPPED: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); .ci/run installs it';
