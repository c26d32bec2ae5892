import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM } from "../../src/util/chromium.ts";

export { CHROMIUM };

/**
 * Headless Debian chromium for the report tests, never a downloaded browser. CI installs it with
 * `apt-get install -y chromium`; where it is missing the browser tests are skipped with this message.
 */
export const haveChromium = existsSync(CHROMIUM);
export const NO_CHROMIUM = `${CHROMIUM} not found: browser tests skipped (install it with: apt-get install -y chromium)`;

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
