// Chromium for the browser tests: Debian's chromium driven by playwright-core. CI installs /usr/bin/chromium; without
// it these tests fail and say why, rather than pass having checked nothing.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`This browser test needs Chromium at ${CHROMIUM}, and there is none: install it (apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
