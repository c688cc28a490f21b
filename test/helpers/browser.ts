// Headless Chromium for the browser tests (Debian's chromium through playwright-core; nothing is downloaded).
// On a machine without Chromium a browser test is reported by Jest as skipped, never as passed, so `npm test` still
// works on a fresh machine with only Node and npm. CI sets REQUIRE_BROWSER=1 (.ci/run installs chromium): there a
// missing browser fails the suite instead of skipping it.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && process.env.REQUIRE_BROWSER === "1") {
  throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
}
if (!hasChromium) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/** `test` when Chromium is here, `test.skip` (reported as skipped) when it is not. */
export const browserTest: jest.It = hasChromium ? test : test.skip;

/** Chromium headless with the flags this machine needs (no sandbox as root, no background network). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", ...extraArgs],
  });
}
