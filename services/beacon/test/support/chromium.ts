import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package, which test/infra/provision.ts installs (playwright-core downloads no browser). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium, or an error that says how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: run \`node test/infra/provision.ts\` as root ` +
        '(it installs the Debian package chromium), or `apt-get install -y chromium`; CHROMIUM_PATH names another binary',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH });
}
