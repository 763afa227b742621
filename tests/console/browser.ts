import { chromium, type Browser } from 'playwright-core';

/**
 * The system Chromium, headless, with nothing phoning home. `launch` gives every browser a fresh
 * temporary profile (user-data-dir) of its own, removed when it closes.
 */
export const CHROMIUM = '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
