/**
 * One Chromium for the browser files of a suite run (run-suite.mjs): started by the runner with
 * playwright-core's `launchServer`, the arguments of test/support/browser.ts, and handed to each
 * browser file as CHORUS_TEST_BROWSER_WS; `launchChromium()` there connects to it and the file
 * opens its own contexts, as it does on a browser of its own. A launch and the first page cost each
 * of the 17 files 1–3 s; the runner ends this one when the run ends. A file run alone launches its
 * own. If the shared one has died, the next file gets a new one.
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHORUS_CHROMIUM || '/usr/bin/chromium';
/** The same as CHROMIUM_ARGS in test/support/browser.ts. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export class SharedChromium {
  /** @type {Promise<import('playwright-core').BrowserServer | undefined> | undefined} */
  #server;
  #dead = false;

  /** The endpoint for the next browser file, or undefined (no Chromium here: the file says so itself). */
  async endpoint() {
    if (!existsSync(CHROMIUM)) return undefined;
    if (!this.#server || this.#dead) this.#server = this.#launch();
    return (await this.#server)?.wsEndpoint();
  }

  async #launch() {
    this.#dead = false;
    try {
      const server = await chromium.launchServer({ executablePath: CHROMIUM, args: ARGS });
      server.process().once('exit', () => {
        this.#dead = true;
      });
      return server;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      process.stderr.write(`suite: no shared Chromium (${why}); each browser file launches its own\n`);
      return undefined;
    }
  }

  async close() {
    await (await this.#server)?.close().catch(() => undefined);
  }

  /** On a stopped run: no waiting. */
  kill() {
    void this.#server?.then((server) => server?.kill()).catch(() => undefined);
  }
}
