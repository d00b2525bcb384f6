// PNG screenshots of preview pages, taken by a headless Chromium through playwright-core (which
// downloads no browser: it drives the one at CHROMIUM_PATH).
import { chromium } from 'playwright-core';
import { PAGE_WIDTH } from './page.ts';

export interface Screenshot {
  readonly html: string;
  readonly file: string;
}

/** Writes each page's full height at PAGE_WIDTH pixels wide to its file. */
export async function writeScreenshots(chromiumPath: string, screenshots: readonly Screenshot[]): Promise<void> {
  const browser = await chromium.launch({ executablePath: chromiumPath });
  try {
    const page = await browser.newPage({ viewport: { width: PAGE_WIDTH, height: 900 } });
    for (const { html, file } of screenshots) {
      await page.setContent(html, { waitUntil: 'load' });
      await page.screenshot({ path: file, fullPage: true });
    }
  } finally {
    await browser.close();
  }
}
