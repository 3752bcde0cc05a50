/**
 * A page on another port of the same host cannot make a write with the operator's session cookie
 * (docs/rules.md#console-origin), in headless Chromium: the browser holds a write session of the
 * console at 127.0.0.1:<port>; a page served from 127.0.0.1:<other port> posts "log out
 * everywhere" (a write without a body, so nothing but the origin check stands in its way) with
 * that cookie (the same site, so SameSite=Lax lets it go), and nothing changes. The console's own
 * page, in the same browser, still writes with the same session.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium } from '../support/browser.ts';
import { startHarness, WRITE_TOKEN } from '../unit/console/harness.ts';

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(
  'a foreign page in Chromium',
  { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false },
  () => {
    it('cannot write with the session cookie; the console page can', async (t) => {
      const h = await startHarness(t);
      const secret = async () =>
        (JSON.parse(await readFile(join(h.dir, 'console-auth.json'), 'utf8')) as { session_secret: string })
          .session_secret;
      const secretBefore = await secret();
      const api = new URL(h.api).pathname;

      // The attacker's page, on another port of the same host: it fires the write at the console
      // with the browser's cookies, then reports back that it did.
      let reported = false;
      const evil = createServer((request, response) => {
        if (request.url === '/done') {
          reported = true;
          response.end('ok');
          return;
        }
        response.setHeader('content-type', 'text/html; charset=utf-8');
        response.end(`<!doctype html><script>
        (async () => {
          const opts = { credentials: 'include', mode: 'no-cors' };
          await fetch(${JSON.stringify(`${h.api}/auth/sessions/revoke`)}, { ...opts, method: 'POST' }).catch(() => {});
          await fetch('/done');
        })();
      </script>`);
      });
      evil.listen(0, '127.0.0.1');
      await once(evil, 'listening');
      t.after(() => {
        evil.closeAllConnections();
        evil.close();
      });
      const evilAddress = evil.address();
      if (typeof evilAddress !== 'object' || evilAddress === null) throw new Error('no address');

      const browser = await launchChromium();
      t.after(() => browser.close());
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${h.origin}${api.replace(/\/api$/, '')}/login`);
      // Logged in through the console page's own fetch, so the browser holds the cookie.
      const status = await page.evaluate(
        async ([url, token]) =>
          (
            await fetch(url as string, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ token }),
            })
          ).status,
        [`${api}/auth/login`, WRITE_TOKEN],
      );
      assert.equal(status, 200);

      await page.goto(`http://127.0.0.1:${evilAddress.port}/`);
      await until('the foreign page to finish', () => reported);
      assert.equal(await secret(), secretBefore, 'no session was revoked');

      // Back on the console's own page, the same session writes.
      await page.goto(`${h.origin}${api.replace(/\/api$/, '')}/login`);
      const revoked = await page.evaluate(
        async (url) => (await fetch(url, { method: 'POST', credentials: 'same-origin' })).status,
        `${api}/auth/sessions/revoke`,
      );
      assert.equal(revoked, 200);
      assert.notEqual(await secret(), secretBefore, 'the console page revoked the sessions');
    });
  },
);
