/**
 * The 更新 (updates) page in headless Chromium against a real Chorus (`startService`, the built
 * SPA) whose update domain points at a temporary release folder (`versions/0.1.0` + `current`)
 * and a stand-in release feed on 127.0.0.1 (test/fixtures/release-feed.ts). Applies the bot
 * release with the live progress bar, rolls back, migrates a Pallas-Bot `.env`, and saves
 * screenshots at desktop and phone width to test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { buildRelease, ReleaseFeed, writeFakeApp } from '../fixtures/release-feed.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { BROWSER_WAIT_MS, logIn } from '../support/page-problems.ts';
import { answerConfirm } from '../support/confirm-dialog.ts';

const READ = 'updates-read-token-not-secret';
const WRITE = 'updates-write-token-not-secret';
const SHOTS = join(OUTPUT, 'screenshots');

describe('updates page in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let root: string;
  let service: RunningService;
  let browser: Browser;
  let feed: ReleaseFeed;
  let base: string;

  const shoot = (page: Page, name: string) =>
    page.screenshot({ path: join(SHOTS, `${name}-${page.viewportSize()?.width ?? 0}.png`), fullPage: true });

  before(async () => {
    if (!HAVE_CHROMIUM) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs it`);
    dir = await mkdtemp(join(tmpdir(), 'chorus-updates-browser-'));
    const webRoot = await sharedWebBuild();
    await mkdir(SHOTS, { recursive: true });
    feed = await ReleaseFeed.start();
    const v020 = await buildRelease(dir, '0.2.0');
    feed.releases = [{ release: v020, notes: '## 0.2.0\n\n- 更安全的更新：校验 SHA256SUMS\n- 一键回滚' }];
    root = join(dir, 'release');
    const running = join(root, 'versions', '0.1.0');
    await writeFakeApp(running, '0.1.0');
    await symlink(join('versions', '0.1.0'), join(root, 'current'));
    const project = join(dir, 'project');
    await mkdir(project);
    await writeFile(join(project, '.env'), 'PALLAS_AI_API_TOKEN=secret-xyz\nSUPERUSERS=["1"]\nHOST=127.0.0.1\n');
    const port = await freePort();
    service = await startService({
      projectDir: project,
      webRoot,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: READ,
        CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
        CHORUS_UPDATE_FEED_URL: feed.url,
        CHORUS_DEPLOYMENT: 'release',
      },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
      update: { releaseRoot: root, runningDir: running, runningVersion: '0.1.0', timing: { checkCacheMs: 0 } },
    });
    base = `http://127.0.0.1:${port}/chorus`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await feed?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('applies the bot release with live progress, rolls back, and migrates the config', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await logIn(page, base, WRITE);
    await page.goto(`${base}/updates`);
    await page.locator('h1.page-title', { hasText: '更新' }).waitFor();
    await page.getByTestId('bot-latest').getByText('v0.2.0').waitFor();
    assert.match(
      await page.getByTestId('update-bot').innerText(),
      /发布包部署[\s\S]*0\.1\.0[\s\S]*有更新[\s\S]*校验 SHA256SUMS/,
    );
    await shoot(page, 'updates-before');

    await page.getByRole('button', { name: '更新机器人' }).click();
    await page.getByRole('dialog').waitFor();
    await shoot(page, 'updates-confirm');
    await answerConfirm(page, /更新机器人？[\s\S]*0\.2\.0/, '更新机器人');
    await page.getByTestId('update-progress').getByText('完成').waitFor();
    assert.match(await page.getByTestId('update-message').innerText(), /version 0\.2\.0 installed/);
    await page.getByTestId('restart-pending').waitFor();
    assert.equal(await page.getByTestId('bot-current').innerText(), '0.2.0');
    assert.equal(await readlink(join(root, 'current')), 'versions/0.2.0');
    await shoot(page, 'updates-applied');

    await page.getByRole('button', { name: '回滚到 0.1.0' }).click();
    await answerConfirm(page, /回滚机器人？[\s\S]*0\.1\.0/, '回滚到 0.1.0');
    await page.getByTestId('update-notice').getByText('已回滚到 0.1.0').waitFor();
    assert.equal(await readlink(join(root, 'current')), 'versions/0.1.0');

    const migration = page.getByTestId('update-migration');
    assert.match(await migration.innerText(), /PALLAS_AI_API_TOKEN[\s\S]*CHORUS_AI_API_TOKEN/);
    assert.ok(!(await migration.innerText()).includes('secret-xyz'), 'values are never shown');
    await page.getByRole('button', { name: '迁移配置' }).click();
    await answerConfirm(page, /迁移配置？[\s\S]*3 个/, '确认');
    await page
      .getByTestId('update-notice')
      .getByText(/已迁移 3 个键/)
      .waitFor();
    await migration.getByText('没有需要迁移的键').waitFor();
    await shoot(page, 'updates-after');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByTestId('bot-latest').waitFor();
    await shoot(page, 'updates');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the web console card shows the bundled and the installed versions and which is served, in zh and en', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    const missing: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'warning' && m.text().includes('Not found')) missing.push(m.text());
    });
    await logIn(page, base, WRITE);
    await page.goto(`${base}/updates`);
    const served = page.getByTestId('web-served');
    await served.getByText('机器人自带的控制台').waitFor();
    assert.equal(await page.getByTestId('web-current').innerText(), '0.1.0');
    assert.match(await page.getByTestId('web-versions').innerText(), /机器人自带版本 0\.1\.0 · 已安装的发布 无/);
    await page.evaluate("localStorage.setItem('chorus.locale', 'en')");
    await page.reload();
    await served.getByText('the console bundled with the bot').waitFor();
    assert.match(
      await page.getByTestId('web-versions').innerText(),
      /Bundled with the bot 0\.1\.0 · Installed release none/,
    );
    await page.evaluate("localStorage.removeItem('chorus.locale')");
    assert.deepEqual(missing, []);
    await page.close();
  });
});
