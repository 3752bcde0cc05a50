/**
 * The dashboard pages in headless Chromium against a real Chorus (`startService`, the built SPA,
 * SQLite) with a scripted OneBot account over a real WebSocket: the Why page explains a group's
 * decisions in Chinese, the Logs page tails the service log live (a line logged after the page
 * opened appears; pause holds it back; the export is a text attachment), the Overview draws its
 * charts. Screenshots at 1280 and 390 px go to test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { seededRandom, type RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { BROWSER_WAIT_MS, logIn } from '../support/page-problems.ts';

const READ = 'dash-read-token-not-secret';
const BOT = 10001;
const GROUP = 401;
const SHOTS = join(OUTPUT, 'screenshots');

async function waitUntil(what: string, condition: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Console errors, page errors and failed requests of a page (an aborted stream on leaving is fine). */
function problemsOf(page: Page): string[] {
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  const list: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') list.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => list.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) list.push(`HTTP ${response.status()}: ${new URL(response.url()).pathname}`);
  });
  return list;
}

describe(
  'dashboard pages in Chromium',
  { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false },
  () => {
    let dir: string;
    let service: RunningService;
    let browser: Browser;
    let peer: OneBotPeer;
    let base: string;
    const decisions: RepeaterDecision[] = [];
    let second = Math.floor(Date.now() / 1000) - 10_000;
    const say = (text: string, userId = 9) => peer.groupMessage({ groupId: GROUP, userId, text, time: ++second });
    const decided = (id: number) => waitUntil(`decision on ${id}`, () => decisions.some((d) => d.messageId === id));

    const shoot = async (page: Page, name: string) => {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 800 });
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    };
    const open = async (path: string, title: string): Promise<{ page: Page; problems: string[] }> => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const problems = problemsOf(page);
      await logIn(page, base, READ);
      await page.goto(`${base}/${path}`);
      await page.locator('h1.page-title', { hasText: title }).waitFor();
      return { page, problems };
    };

    before(async () => {
      if (!HAVE_CHROMIUM) throw new Error(`CI=true and no Chromium at ${CHROMIUM}`);
      dir = await mkdtemp(join(tmpdir(), 'chorus-dash-browser-'));
      const webRoot = await sharedWebBuild();
      await mkdir(SHOTS, { recursive: true });
      const port = await freePort();
      service = await startService({
        projectDir: dir,
        webRoot,
        env: {
          CHORUS_PORT: String(port),
          CHORUS_CONSOLE_TOKEN: READ,
          CHORUS_REPEATER_NICKNAMES: '小合',
          CHORUS_REPEATER_COOLDOWN_SEC: '0',
          CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
        },
        logDestination: new Writable({ write: (_c, _e, done) => done() }),
        random: seededRandom(3),
        onDecision: (decision) => decisions.push(decision),
      });
      base = `http://127.0.0.1:${port}/chorus`;
      peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT, firstMessageId: 1 });
      await waitUntil('bot online', () => service.chat.onebot.bots().length === 1);
      for (const [text, user] of [
        ['量子力学的基本原理是什么', 9],
        ['小合 今天吃什么', 10],
        ['嗯嗯嗯', 11],
        ['好', 12],
      ] as const) {
        await decided(say(text, user));
      }
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await peer?.close().catch(() => undefined);
      await service?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('the Why page explains each decision of a group in one Chinese sentence', async () => {
      const { page, problems } = await open(`why?group=${GROUP}`, '为什么');
      const rows = page.getByTestId('decisions').locator('[data-test="why"]');
      await rows.first().waitFor();
      const sentences = await rows.allInnerTexts();
      assert.equal(sentences.length, 4, sentences.join('\n'));
      // Newest first: too short, not worth a lookup, addressed, never learned.
      assert.match(sentences[0] ?? '', /太短/);
      assert.match(sentences[1] ?? '', /不值得查语料/);
      assert.match(sentences[2] ?? '', /点名机器人/);
      assert.match(sentences[3] ?? '', /还没学过「.*量子.*」/);
      // Each row shows the message and its sender beside the cause.
      await page.getByTestId('decisions').getByText('量子力学的基本原理是什么').waitFor();
      assert.match(await page.getByTestId('decisions').innerText(), /user9:/);
      // A new decision shows up on the next poll.
      await decided(say('我们下周一起去看海边日落吧', 13));
      await page.getByText(/还没学过「.*日落.*」/).waitFor({ timeout: 8000 });
      await shoot(page, 'why');
      assert.deepEqual(problems, []);
      await page.close();
    });

    it('the Logs page tails the log live, pauses, filters and exports', async () => {
      const { page, problems } = await open('logs', '日志');
      await page.getByTestId('log-live').getByText('实时').waitFor();
      const table = page.getByTestId('log-table');
      await table.getByText('console listening at').first().waitFor();
      service.logger.warn({ scope: 'browser-test', n: 1 }, 'a line logged after the page opened');
      await table.getByText('a line logged after the page opened').waitFor();

      await page.getByTestId('log-pause').click();
      service.logger.warn({ scope: 'browser-test', n: 2 }, 'held back while paused');
      await page.waitForTimeout(500);
      assert.equal(await table.getByText('held back while paused').count(), 0, 'paused: not shown');
      await page.getByTestId('log-pause').click();
      await table.getByText('held back while paused').waitFor();

      await page.getByTestId('log-text').locator('input').fill('after the page');
      // The filter applies after a pause in typing: wait until the other lines are gone.
      await table.getByText('console listening at').first().waitFor({ state: 'detached' });
      await table.getByText('a line logged after the page opened').waitFor();
      assert.equal(await table.getByText('console listening at').count(), 0, 'filtered out');

      const href = await page.getByTestId('log-export').getAttribute('href');
      assert.ok(href);
      const exported = await page.request.get(new URL(href, base).toString());
      assert.equal(exported.status(), 200);
      assert.match(exported.headers()['content-disposition'] ?? '', /attachment; filename="chorus-logs_/);
      assert.match(await exported.text(), /WARN {2}\[browser-test\] a line logged after the page opened/);
      await page.getByTestId('log-text').locator('input').fill('');
      await table.getByText('console listening at').first().waitFor();
      await shoot(page, 'logs');
      assert.deepEqual(problems, []);
      await page.close();
    });

    it('the Overview draws messages per minute and decisions by reason', async () => {
      const { page, problems } = await open('', '概览');
      await page.getByTestId('chart-messages').locator('canvas').waitFor();
      await page.getByTestId('chart-reasons').locator('canvas').waitFor();
      await page.waitForTimeout(1000);
      await shoot(page, 'overview-charts');
      assert.deepEqual(problems, []);
      await page.close();
    });
  },
);
