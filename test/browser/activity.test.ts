/**
 * The activity log in a real browser (headless Chromium) against a real Chorus (`startService`,
 * SQLite, the built SPA) with scripted OneBot accounts over real WebSockets: a phrase is taught
 * and answered; a member bans the answer in chat by replying 「不可以」 to the bot's message; the
 * ban is in the activity log with that member's nickname and QQ number; an unban from the
 * console (confirmed) makes the bot answer the phrase again. Screenshots at 1280 and 390 px.
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
import { logIn, waitUntil, watchProblems } from '../support/page-problems.ts';

const WRITE = 'activity-browser-write-token';
const READ = 'activity-browser-read-token';
const BOT = 10001;
const ASKERS = 4;
const GROUP = 301;
const TRIGGER = '周末一起去爬山吗';
const ANSWER = '好啊带上零食一起';
const FILLER = '嗯嗯嗯';
const CHATTER = ['嗯嗯', '哦哦', '好的', '在吗', '真香', '好耶', '嗯嗯嗯嗯', '好的呢', '行吧', '是的', '对的', '嗯呢'];
const BANNER = { userId: 777, nickname: '小红' };
const SHOTS = join(OUTPUT, 'screenshots');

describe('activity log in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let service: RunningService;
  let browser: Browser;
  let peer: OneBotPeer;
  /** One account per question: an account never repeats one of its own latest replies in a group. */
  const askers: OneBotPeer[] = [];
  let turn = 0;
  let base: string;
  const decisions: RepeaterDecision[] = [];
  let second = Math.floor(Date.now() / 1000) - 100_000;

  const say = (userId: number, text: string, through = peer, nickname = '') => {
    second++;
    return through.groupMessage({ groupId: GROUP, userId, text, time: second, ...(nickname ? { nickname } : {}) });
  };
  const decided = async (messageId: number, selfId: number) => {
    const find = () => decisions.find((d) => d.messageId === messageId && d.selfId === selfId);
    await waitUntil(`decision on ${messageId}`, () => Boolean(find()), 20_000);
    return find() as RepeaterDecision;
  };
  const drained = async (through: OneBotPeer, ids: number[]) => {
    for (const id of ids) await decided(id, through.selfId);
    const { learning } = service.corpus.runtime;
    const worker = service.corpus.learnWorker;
    await waitUntil(
      'learning',
      () => learning.queue.size === 0 && worker.counters.handled + worker.counters.failed === learning.counters.queued,
      20_000,
    );
  };
  /** Asks the trigger through a fresh account; the account's reply, or null when it kept quiet. */
  const ask = async (): Promise<{ replied: boolean; asker: OneBotPeer; messageId: number | null }> => {
    const asker = askers[turn++];
    assert.ok(asker, 'enough accounts for the questions');
    await drained(
      asker,
      CHATTER.map((line, i) => say(30 + i, line, asker)),
    );
    const before = asker.sent.length;
    const decision = await decided(say(9, TRIGGER, asker), asker.selfId);
    await service.chat.repeater.idle();
    const reply = asker.sent.slice(before).find((sent) => sent.message.includes(ANSWER));
    return { replied: decision.outcome === 'replied', asker, messageId: reply?.messageId ?? null };
  };
  const shoot = async (page: Page, name: string) => {
    const width = page.viewportSize()?.width ?? 0;
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  };

  before(async () => {
    if (!HAVE_CHROMIUM) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs it`);
    dir = await mkdtemp(join(tmpdir(), 'chorus-activity-browser-'));
    const webRoot = await sharedWebBuild();
    await mkdir(SHOTS, { recursive: true });
    const port = await freePort();
    service = await startService({
      projectDir: dir,
      webRoot,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: READ,
        CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
        CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
        CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
        CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
        // The bot says nothing after a ban: the test looks only for its answers.
        CHORUS_REPEATER_BAN_ACK: '',
      },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
      random: seededRandom(11),
      onDecision: (decision) => decisions.push(decision),
    });
    base = `http://127.0.0.1:${port}/chorus`;
    const url = `ws://127.0.0.1:${port}/onebot/v11/ws`;
    peer = await OneBotPeer.connect({ url, selfId: BOT, firstMessageId: 1 });
    for (let i = 1; i <= ASKERS; i++) {
      askers.push(await OneBotPeer.connect({ url, selfId: BOT + i, firstMessageId: i * 1_000_000 + 1 }));
    }
    await waitUntil('bots online', () => service.chat.onebot.bots().length === ASKERS + 1);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    for (const asker of askers) await asker.close().catch(() => undefined);
    await peer?.close().catch(() => undefined);
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a 「不可以」 ban is in the log with the member; an unban from the console lets the bot answer again', async () => {
    const ids: number[] = [];
    for (let round = 0; round < 3; round++) ids.push(say(2, TRIGGER), say(3, ANSWER), say(4, FILLER));
    await drained(peer, ids);
    service.store.corpus.invalidateSnapshots();
    service.corpus.runtime.composite.invalidateFindCache();
    service.chat.repeater.bundles.clear();

    const first = await ask();
    assert.equal(first.replied, true, 'answered after teaching');
    assert.ok(first.messageId, 'the reply was sent');

    // A member replies 「不可以」 to the bot's message (docs/rules.md#bans a).
    const banMessage = first.asker.groupMessage({
      groupId: GROUP,
      userId: BANNER.userId,
      nickname: BANNER.nickname,
      message: `[CQ:reply,id=${first.messageId}]不可以`,
      time: ++second,
    });
    const banned = await decided(banMessage, first.asker.selfId);
    assert.equal(banned.outcome, 'banned');
    let entries: Awaited<ReturnType<typeof service.store.activity.list>>['items'] = [];
    const deadline = Date.now() + 10_000;
    while (entries.length === 0 && Date.now() < deadline) {
      entries = (await service.store.activity.list({ kinds: ['chat_ban'], offset: 0, limit: 5 })).items;
      if (entries.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(entries.length, 1, 'the chat ban is recorded');
    assert.equal((await ask()).replied, false, 'banned: not answered');

    for (const width of [1280, 390]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const problems = watchProblems(page);
      await logIn(page, base, WRITE);
      await page.goto(`${base}/activity?kind=chat_ban`);
      const entry = page.locator('[data-kind="chat_ban"]').first();
      await entry.waitFor();
      const who = await entry.getByTestId('who').innerText();
      assert.match(who, new RegExp(`${BANNER.nickname}.*QQ ${BANNER.userId}`));
      assert.match(await entry.innerText(), /群内禁用/);
      assert.match(await entry.innerText(), new RegExp(`群 ${GROUP}`));
      await page.waitForLoadState('networkidle');
      await page.locator('.n-spin').waitFor({ state: 'detached' });
      await shoot(page, 'activity');
      assert.deepEqual(problems, []);
      await context.close();
    }

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await logIn(page, base, WRITE);
    await page.goto(`${base}/activity`);
    const entry = page.locator('[data-kind="chat_ban"]').first();
    await entry.getByRole('button', { name: '解除本群禁用' }).click();
    // Nothing is lifted before the confirmation says what will happen.
    const dialog = page.locator('.n-dialog');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), new RegExp(`群 ${GROUP}`));
    const unbanned = page.waitForResponse((r) => r.url().includes('/unban') && r.request().method() === 'POST');
    await dialog.getByRole('button', { name: '确认' }).click();
    assert.equal((await unbanned).status(), 200);
    await page.locator('[data-kind="unban"]').first().waitFor();
    assert.match(await page.locator('[data-kind="unban"]').first().getByTestId('who').innerText(), /控制台（可写/);
    await dialog.waitFor({ state: 'detached' });
    await page.waitForLoadState('networkidle');
    await page.locator('.n-spin').waitFor({ state: 'detached' });
    await shoot(page, 'activity-unbanned');
    assert.deepEqual(problems, []);
    await context.close();

    assert.equal((await ask()).replied, true, 'unbanned: answered again');
  });
});
