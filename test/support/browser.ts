import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's chromium driven by playwright-core (never a downloaded browser). The flags keep it
 * from reaching out of this machine: its background services would only meet refused connections.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.RDP_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
