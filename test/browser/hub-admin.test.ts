/**
 * The hub's moderation page in headless Chromium (docs/hub.md#moderation), served by a real hub
 * (SQLite) from a build of web/: sign in with the admin token, search the pool, withdraw and
 * restore an answer (the hub stops and resumes serving it), block a deployment (its token is
 * refused), at 1280 and 390 px. Screenshots in test-output/screenshots/hub-admin-*.png.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startHub } from '../../src/hub/start.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { HubClient, ORIGIN_SERVING } from '../integration/hub-support.ts';

const ADMIN = 'hub-admin-token-for-the-browser-test';
const SHOTS = join(OUTPUT, 'screenshots');

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the hub moderation page', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  for (const [width, height] of [
    [1280, 860],
    [390, 844],
  ] as const) {
    it(`search, withdraw, restore and block at ${width} px`, async (t) => {
      const webRoot = await sharedWebBuild();
      await mkdir(SHOTS, { recursive: true });
      const dir = await mkdtemp(join(tmpdir(), 'chorus-hub-admin-'));
      // One deployment's contributions served at once (the origin's rule), so that the page's
      // withdraw and restore show in what the hub serves.
      const hub = await startHub({
        host: '127.0.0.1',
        port: 0,
        dataDir: dir,
        adminToken: ADMIN,
        webRoot,
        ...ORIGIN_SERVING,
      });
      t.after(async () => {
        await hub.close();
        await rm(dir, { recursive: true, force: true });
      });
      const http = new HubClient(hub.url);
      const bot = await http.enroll();
      for (const [keywords, answer] of [
        ['周末去哪里玩', '去爬山'],
        ['周末去哪里玩', '加群领红包'],
        ['今天吃什么', '火锅'],
      ]) {
        const body = { op: 'upsert_answer', keywords, answer_keywords: answer, message: answer };
        assert.equal((await http.contribute(body, bot.corpus_token)).status, 200);
      }
      const served = async () =>
        ((await http.context('周末去哪里玩', bot.corpus_token)).body.answers as { keywords: string }[])
          .map((item) => item.keywords)
          .sort();

      const browser = await launchChromium();
      t.after(() => browser.close());
      const page = await (await browser.newContext({ viewport: { width, height } })).newPage();
      await page.goto(`${hub.url}/admin/`);
      await page.getByRole('heading', { name: 'Chorus 社区中心 · 管理' }).waitFor();

      // A wrong token is refused and the form stays.
      await page.locator('[data-test=token] input').fill('not-the-admin-token-at-all');
      await page.getByTestId('sign-in').click();
      await page.getByTestId('problem').getByText('令牌不对，请重新填写').waitFor();
      await page.locator('[data-test=token] input').fill(ADMIN);
      await page.getByTestId('sign-in').click();
      await page.getByTestId('answers').getByText('火锅').waitFor();

      // Search narrows the pool.
      await page.locator('[data-test=search] input').fill('周末');
      await page.getByTestId('search-button').click();
      await until('the search result', async () => (await page.getByTestId('answers').getByText('火锅').count()) === 0);
      const row = page.getByTestId('answers').locator('tr', { hasText: '加群领红包' });
      await row.getByText('提供中').waitFor();

      // Withdraw: the hub stops serving it.
      await row.getByTestId('withdraw').click();
      await row.getByText('管理员撤下').waitFor();
      assert.deepEqual(await served(), ['去爬山']);
      await page.screenshot({ path: join(SHOTS, `hub-admin-pool-${width}.png`), fullPage: true });

      // Restore: served again.
      await row.getByTestId('restore').click();
      await row.getByText('提供中').waitFor();
      assert.deepEqual(await served(), ['加群领红包', '去爬山']);

      // Block the deployment: its token is refused.
      await page.locator('.n-tabs-tab', { hasText: /^部署$/ }).click();
      const deployment = page.getByTestId('deployments').locator('tr', { hasText: bot.deployment_id });
      await deployment.getByTestId('block').click();
      await deployment.getByText('已封禁').waitFor();
      assert.equal((await http.context('周末去哪里玩', bot.corpus_token)).status, 403);
      await page.screenshot({ path: join(SHOTS, `hub-admin-deployments-${width}.png`), fullPage: true });

      // The audit log lists every action, newest first; rates show the address.
      await page.locator('.n-tabs-tab', { hasText: /^操作记录$/ }).click();
      const audit = page.getByTestId('audit');
      await audit.getByText('封禁部署').waitFor();
      assert.equal(await audit.getByText('撤下回答').count(), 1);
      assert.equal(await audit.getByText('恢复回答').count(), 1);
      await page.locator('.n-tabs-tab', { hasText: /^频率$/ }).click();
      await page.getByTestId('rates').getByText('127.0.0.1').waitFor();
      await page.screenshot({ path: join(SHOTS, `hub-admin-rates-${width}.png`), fullPage: true });
      // Nothing in English on the Chinese page beyond product and protocol names.
      const text = await page.locator('body').innerText();
      assert.doesNotMatch(
        text.replace(
          /Chorus|CHORUS_HUB_ADMIN_TOKEN|English|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|\d+\.\d+\.\d+\.\d+/g,
          '',
        ),
        /[A-Za-z]{3,}/,
      );
    });
  }
});
