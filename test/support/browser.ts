import { chromium, type Browser } from 'playwright-core';
import { findChromium, NO_BROWSER_NOTICE } from './chromium.ts';

/** Debian's chromium (apt), or CHROMIUM_PATH; playwright-core drives it and downloads nothing. */
export const CHROMIUM_PATH = findChromium();

/** Why browser tests are skipped here, or undefined when a browser is available. */
export const NO_BROWSER = CHROMIUM_PATH ? undefined : NO_BROWSER_NOTICE;

export function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM_PATH) throw new Error(NO_BROWSER);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}
