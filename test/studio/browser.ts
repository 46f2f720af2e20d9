/**
 * Debian's Chromium driven by playwright-core (a browser download does not work on these
 * machines; `.ci/run` installs the `chromium` package). A missing browser fails the tests
 * loudly: the studio's end-to-end tests never skip.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";

/** Where Debian puts Chromium (override with CHROMIUM_PATH). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Screenshots of every view, kept as test artifacts (gitignored). */
export const ARTIFACTS = resolve(import.meta.dirname, "../../test-results/studio");

/** A launched browser with a fresh, empty profile. */
export interface TestBrowser {
  browser: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium at 1280×800 with a new user-data-dir. */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: install it with apt-get install -y chromium (the studio's browser tests need it and never skip)`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), "ddsctl-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return {
    browser: context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type { Browser };
