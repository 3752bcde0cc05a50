/**
 * Helpers of a browser test: waiting for a condition, and what a page did wrong (console errors,
 * page errors, failed requests, error answers), which the test compares with what it provoked.
 */
import type { Page } from 'playwright-core';

/**
 * How long a browser step may take before the test fails: a failure bound, not an expectation.
 * Two browser files run at once on a 2-core machine beside the rest of the suite, and CI runs saw
 * single steps take over 10 s there.
 */
export const BROWSER_WAIT_MS = 30_000;

export async function waitUntil(what: string, condition: () => boolean, timeoutMs = BROWSER_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Console errors, page errors, failed requests and error answers the test did not provoke. */
export function watchProblems(page: Page): string[] {
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  const list: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) list.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (error) => list.push(`page error: ${error.message} ${whereThrown(error)}`));
  page.on('requestfailed', (r) => {
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') list.push(`failed: ${r.url()}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) list.push(`HTTP ${r.status()}: ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  return list;
}

/** Logs in through the console's login page with `token` and waits until it has left the page. */
export async function logIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.locator('#token').fill(token);
  await page.getByRole('button', { name: '登录' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith('/login'));
}

/** Where a page error was thrown (the first frames of its stack), so a failure names the code. */
export function whereThrown(error: Error): string {
  const frames = (error.stack ?? '').split('\n').filter((line) => line.trim().startsWith('at '));
  return frames.length > 0
    ? `(${frames
        .slice(0, 3)
        .map((line) => line.trim())
        .join(' ← ')})`
    : '';
}
