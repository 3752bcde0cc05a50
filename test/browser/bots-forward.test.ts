/**
 * The 机器人 page's connections in headless Chromium against a real Chorus: one account connected
 * in reverse (a scripted peer dials Chorus) and one over forward WebSocket (Chorus dials a
 * SnowLuma-style stand-in, test/fixtures/forward-ws-server.ts). The page shows each direction, the
 * forward target's state with its token masked, and adds a target with a wrong token (shown as
 * waiting to retry with the refusal worded) and removes it. Screenshots at 1280 and 390 px go to
 * test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { ForwardWsServer } from '../fixtures/forward-ws-server.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { BROWSER_WAIT_MS, logIn } from '../support/page-problems.ts';
import { answerConfirm } from '../support/confirm-dialog.ts';

const READ = 'bots-forward-read-token';
const WRITE = 'bots-forward-write-token';
const SHOTS = join(OUTPUT, 'screenshots');
const TOKEN = randomBytes(12).toString('hex');

describe(
  '机器人 page connections in Chromium',
  { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false },
  () => {
    let dir: string;
    let service: RunningService;
    let browser: Browser;
    let reverse: OneBotPeer;
    let forward: ForwardWsServer;
    let wrong: ForwardWsServer;
    let base: string;
    const problems: string[] = [];

    const shoot = async (page: Page, name: string) => {
      const width = page.viewportSize()?.width ?? 0;
      await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
    };
    const open = async (width: number): Promise<Page> => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      page.setDefaultTimeout(BROWSER_WAIT_MS);
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
      });
      await logIn(page, base, WRITE);
      await page.goto(`${base}/bots`);
      await page.locator('h1.page-title', { hasText: '机器人' }).waitFor();
      return page;
    };

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'chorus-bots-forward-'));
      const webRoot = await sharedWebBuild();
      await mkdir(SHOTS, { recursive: true });
      forward = await ForwardWsServer.start({ selfId: 67001, accessToken: TOKEN });
      wrong = await ForwardWsServer.start({ selfId: 67003, accessToken: randomBytes(12).toString('hex') });
      const port = await freePort();
      service = await startService({
        projectDir: dir,
        webRoot,
        env: {
          CHORUS_PORT: String(port),
          CHORUS_CONSOLE_TOKEN: READ,
          CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
          CHORUS_ONEBOT_CONNECT: forward.url(TOKEN),
        },
        logDestination: new Writable({ write: (_c, _e, done) => done() }),
      });
      base = `http://127.0.0.1:${port}/chorus`;
      reverse = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: 67002 });
      await forward.peer(0);
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await reverse?.close().catch(() => undefined);
      await service?.stop();
      await forward?.stop();
      await wrong?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('shows each direction and the forward state, adds a target with a wrong token and removes it', async () => {
      const page = await open(1280);
      const card = page.getByTestId('bot-connections');
      const accounts = card.getByTestId('connected-bot');
      await accounts.filter({ hasText: '67001' }).getByText('正向').waitFor();
      await accounts.filter({ hasText: '67002' }).getByText('反向').waitFor();
      const first = card.getByTestId('forward-target').first();
      await first.getByTestId('forward-state').getByText('已连接').waitFor();
      await first.getByText('账号 67001').waitFor();
      assert.match(await first.innerText(), /access_token=\*\*\*/);

      // A target whose token the server refuses: shown as waiting to retry, the refusal worded.
      await card.getByTestId('forward-address').locator('input').fill(wrong.url('not-the-token'));
      await card.getByTestId('forward-add').getByRole('button').click();
      const added = card.getByTestId('forward-target').filter({ hasText: `127.0.0.1:${wrong.port}` });
      await added.getByTestId('forward-state').getByText('等待重试').waitFor();
      await added
        .getByTestId('forward-error')
        .getByText(/令牌被拒绝（HTTP 401）/)
        .waitFor();
      await added.getByText(/重试$/).first().waitFor();
      const text = await page.locator('body').innerText();
      assert.ok(!text.includes(TOKEN) && !text.includes('not-the-token'), 'no token on the page');
      await shoot(page, 'bots-connections');

      const narrow = await open(390);
      await narrow.getByTestId('forward-target').nth(1).getByTestId('forward-error').waitFor();
      await shoot(narrow, 'bots-connections');
      // The confirmation fits a phone: shown, looked at, cancelled (nothing removed).
      await narrow.getByTestId('forward-target').nth(1).getByTestId('forward-remove').getByRole('button').click();
      await narrow.getByRole('dialog').waitFor();
      await shoot(narrow, 'bots-remove-confirm');
      await answerConfirm(narrow, /移除正向连接？/, '移除', { cancel: true });
      await narrow.close();

      // Removing asks first, naming the address; cancelled, the target stays.
      await added.getByTestId('forward-remove').getByRole('button').click();
      await answerConfirm(page, /移除正向连接？[\s\S]*不再连接/, '移除', { cancel: true });
      assert.equal(await card.getByTestId('forward-target').count(), 2);
      await added.getByTestId('forward-remove').getByRole('button').click();
      await page.getByRole('dialog').waitFor();
      await shoot(page, 'bots-remove-confirm');
      await answerConfirm(page, /移除正向连接？/, '移除');
      await added.waitFor({ state: 'detached' });
      assert.equal(await card.getByTestId('forward-target').count(), 1);
      assert.deepEqual(problems, []);
    });
  },
);
