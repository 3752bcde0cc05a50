/**
 * The Why page in headless Chromium against a real Chorus (`startService`, the built SPA, SQLite)
 * with a scripted OneBot account over a real WebSocket (docs/repeater.md#why): members chat,
 * Chorus restarts, and the earlier decisions are found on the page by typing part of a message,
 * each with the sender, the group's name and the one cause that decided it in Chinese (the count
 * against the threshold drawn); faces and images never show as CQ text. "Try a sentence" says why
 * a phrase would not be answered (never learned; seen too few times). Screenshots at 1280 and
 * 390 px go to test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { EAGER_REPEATER } from '../support/console-conversation.ts';
import { logIn, waitUntil, watchProblems } from '../support/page-problems.ts';

const TOKEN = 'why-browser-token-not-secret';
const BOT = 10071;
const GROUP = 4071;
const Q = '下周去海边旅游吗';
const A = '好啊记得带防晒';
const SHOTS = join(OUTPUT, 'screenshots');

/**
 * Pictures from outside the console (QQ's image servers, the QQ face pictures' site) are not
 * reachable here: they are refused at once, and their failed loads are not the page's problems
 * (the page then shows the picture's label).
 */
const OUTSIDE = /multimedia\.nt\.qq\.com\.cn|qpic\.cn|koishi\.js\.org/;
const offline = (page: Page) => page.route(OUTSIDE, (route) => route.abort());
const isPage = (problem: string) => !OUTSIDE.test(problem);

describe('the Why page in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let service: RunningService;
  let browser: Browser;
  let base: string;
  let webRoot: string;
  const decisions: RepeaterDecision[] = [];

  const start = async () => {
    const port = await freePort();
    service = await startService({
      projectDir: dir,
      webRoot,
      env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: TOKEN, ...EAGER_REPEATER },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
      onDecision: (decision) => decisions.push(decision),
    });
    base = `http://127.0.0.1:${port}/chorus`;
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT });
    peer.groups = [{ group_id: GROUP, group_name: '周末出游群', member_count: 30 }];
    return peer;
  };
  const shoot = async (page: Page, name: string) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  before(async () => {
    if (!HAVE_CHROMIUM) throw new Error(`CI=true and no Chromium at ${CHROMIUM}`);
    dir = await mkdtemp(join(tmpdir(), 'chorus-why-browser-'));
    webRoot = await sharedWebBuild();
    await mkdir(SHOTS, { recursive: true });
    // Yesterday's chat: a phrase answered once, a question nobody answered, a face and a picture.
    const peer = await start();
    let second = Math.floor(Date.now() / 1000) - 86_400;
    const say = async (userId: number, message: string, nickname: string) => {
      const id = peer.groupMessage({ groupId: GROUP, userId, message, time: ++second, nickname });
      await waitUntil(`decision on ${id}`, () => decisions.some((d) => d.messageId === id));
    };
    await say(15, '有人知道火星上能种土豆吗[CQ:face,id=178]', '小周');
    await say(16, '[CQ:image,file=abc.jpg,url=https://multimedia.nt.qq.com.cn/download?x=1]看这张', '小周');
    await say(11, Q, '小林');
    await say(12, A, '阿杰');
    await say(13, '今天天气真不错啊朋友们', '阿梅');
    await say(14, Q, '老王');
    await peer.close();
    await service.stop();
    // Chorus restarts: the page must find those decisions in the database.
    decisions.length = 0;
    await start();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('after a restart, finds earlier decisions by text, each with its sender, group and one cause', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = watchProblems(page);
    await offline(page);
    await logIn(page, base, TOKEN);
    await page.goto(`${base}/why`);
    await page.locator('h1.page-title', { hasText: '为什么' }).waitFor();
    const table = page.getByTestId('decisions');
    await table.getByText('周末出游群').first().waitFor();
    assert.doesNotMatch(await page.locator('body').innerText(), /\[CQ:/, 'no raw CQ text');
    // The picture: a thumbnail when the stored message kept its address, else a labelled placeholder.
    // The message's own text (the phrase link below it renders its keywords the same way).
    const picture = table.locator('.message > [data-test="cq-text"]', { hasText: '看这张' });
    await picture.waitFor();
    assert.ok(
      (await picture.locator('img').count()) === 1 || /图片/.test(await picture.innerText()),
      await picture.innerHTML(),
    );
    // The face: its picture, or its name (斜眼笑) when the picture cannot load.
    const face = table
      .locator('.message > [data-test="cq-text"]', { hasText: '有人知道火星上能种土豆吗' })
      .getByTestId('cq-face');
    await face.first().waitFor();
    await shoot(page, 'why-kept');

    await page.getByTestId('why-search').locator('input').fill('海边旅游');
    const rows = table.locator('tbody tr');
    // The search runs as one types; the two messages saying it remain, newest first.
    await rows.nth(1).getByText(/小林/).waitFor();
    await table.getByText('今天天气真不错啊朋友们').waitFor({ state: 'detached' });
    const texts = await rows.allInnerTexts();
    assert.match(texts[0] ?? '', /老王/);
    assert.match(texts[0] ?? '', /「好啊记得带防晒」只出现过 1 次，这次需要 2 次。/);
    assert.match(texts[1] ?? '', /小林/);
    assert.match(texts[1] ?? '', /还没学过「.*海边.*」/);
    await shoot(page, 'why-search');
    assert.deepEqual(problems.filter(isPage), []);
    await page.close();
  });

  it('try a sentence: says why it would not be answered', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = watchProblems(page);
    await offline(page);
    await logIn(page, base, TOKEN);
    await page.goto(`${base}/why?group=${GROUP}`);
    await page.locator('h1.page-title', { hasText: '为什么' }).waitFor();
    const card = page.getByTestId('try-card');
    await card.getByTestId('try-text').locator('input').fill('月亮上的兔子吃什么草');
    await card.getByTestId('try-button').click();
    await card
      .getByTestId('try-why')
      .getByText(/还没学过「.*兔子.*」/)
      .waitFor();
    assert.match(await card.getByTestId('try-result').innerText(), /不会说话/);

    await card.getByTestId('try-text').locator('input').fill(Q);
    await card.getByTestId('try-button').click();
    await card.getByTestId('try-why').getByText('「好啊记得带防晒」只出现过 1 次，这次需要 2 次。').waitFor();
    const result = await card.getByTestId('try-result').innerText();
    assert.match(result, /考虑过的回答/);
    assert.match(result, /次数不够\s*好啊记得带防晒/);
    await shoot(page, 'why-try');
    assert.deepEqual(problems.filter(isPage), []);
    await page.close();
  });
});
