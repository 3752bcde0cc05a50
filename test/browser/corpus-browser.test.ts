/**
 * The corpus browser (语料 page) in headless Chromium against a real Chorus (`startService`, the
 * built console, SQLite) taught by a scripted OneBot account over a real WebSocket: a taught phrase
 * found by typing the sentence a member said (and a word of it), browsing newest and most sent,
 * group names beside numbers, QQ faces and images never shown as CQ text, links in from the Why
 * page and the overview's hot words, and three answers
 * banned everywhere at once after a confirmation that lists them, which the bot obeys. Screenshots
 * at 1280 and 390 px go to test-output/screenshots/corpus-browser-*.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { seededRandom, type RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { BROWSER_WAIT_MS, logIn, waitUntil } from '../support/page-problems.ts';
import { replyUsageWritten } from '../support/reply-usage.ts';

const READ = 'corpus-browser-read-token';
const WRITE = 'corpus-browser-write-token';
const BOT = 71001;
const G1 = 9401;
const GROUP_NAME = '周末旅行团';
const SHOTS = join(OUTPUT, 'screenshots');
const FACE = 178;
/** Phrase → answer, as members said them; the answers hold a QQ face and a picture. */
const TAUGHT = [
  { phrase: '下周去旅游', answer: '好羡慕你们啊' },
  { phrase: '今天上班好累啊', answer: `早点睡觉吧[CQ:face,id=${FACE}]` },
  { phrase: '周末一起打游戏吗', answer: '[CQ:image,file=abc.jpg,url=https://gchat.qpic.cn/gchatpic_new/1/abc/0]' },
] as const;
const FILLER = '嗯嗯嗯';
const extractor = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string) => describeText(text, text, extractor).keywords;
/** Pictures come from QQ's servers and the faces' site, unreachable here: the page shows their labels. */
const OUTSIDE = /qpic\.cn|koishi\.js\.org/;

describe('语料 browser in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let service: RunningService;
  let browser: Browser;
  let peer: OneBotPeer;
  /** Fresh accounts to ask with: an account never repeats one of its own latest replies. */
  const askers: OneBotPeer[] = [];
  let base: string;
  const decisions: RepeaterDecision[] = [];
  let second = Math.floor(Date.now() / 1000) - 100_000;

  const say = (through: OneBotPeer, userId: number, text: string) => {
    second++;
    return text.includes('[CQ:')
      ? through.groupMessage({ groupId: G1, userId, message: text, time: second })
      : through.groupMessage({ groupId: G1, userId, text, time: second });
  };
  const decided = async (messageId: number) => {
    await waitUntil(`decision on ${messageId}`, () => decisions.some((d) => d.messageId === messageId));
    return decisions.find((d) => d.messageId === messageId) as RepeaterDecision;
  };
  const drained = async (ids: number[]) => {
    for (const id of ids) await decided(id);
    const { learning } = service.corpus.runtime;
    const worker = service.corpus.learnWorker;
    await waitUntil(
      'learning',
      () => learning.queue.size === 0 && worker.counters.handled + worker.counters.failed === learning.counters.queued,
    );
  };
  /** Asks `phrase` through a given account: did the bot answer? */
  const answered = async (asker: OneBotPeer, phrase: string): Promise<boolean> => {
    const decision = await decided(say(asker, 9, phrase));
    await service.chat.repeater.idle();
    return decision.outcome === 'replied';
  };
  const shoot = async (page: Page, name: string) => {
    const width = page.viewportSize()?.width ?? 0;
    await page.screenshot({ path: join(SHOTS, `corpus-browser-${name}-${width}.png`), fullPage: true });
  };
  const open = async (width: number) => {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText !== 'net::ERR_ABORTED' && !OUTSIDE.test(request.url()))
        problems.push(`failed: ${request.url()}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400 && !OUTSIDE.test(response.url()))
        problems.push(`HTTP ${response.status()} ${response.url()}`);
    });
    await logIn(page, base, WRITE);
    return { page, problems };
  };
  /** The page's text has no CQ code, and the rendered faces and images are there. */
  const noRawCq = async (page: Page) => {
    const text = await page.locator('body').innerText();
    assert.ok(!text.includes('[CQ:'), `raw CQ text on the page:\n${text}`);
  };
  const search = async (page: Page, text: string) => {
    await page.getByRole('textbox', { name: '搜索内容' }).fill(text);
    await page.getByRole('button', { name: '搜索', exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === text);
    await page.getByTestId('sentence-keywords').waitFor();
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-corpus-browser-'));
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
      },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
      random: seededRandom(11),
      onDecision: (decision) => decisions.push(decision),
    });
    base = `http://127.0.0.1:${port}/chorus`;
    const url = `ws://127.0.0.1:${port}/onebot/v11/ws`;
    peer = await OneBotPeer.connect({ url, selfId: BOT, firstMessageId: 1 });
    peer.groups = [{ group_id: G1, group_name: GROUP_NAME, member_count: 12 }];
    for (let i = 1; i <= 2; i++)
      askers.push(await OneBotPeer.connect({ url, selfId: BOT + i, firstMessageId: i * 1_000_000 + 1 }));
    await waitUntil('bots online', () => service.chat.onebot.bots().length === 3);
    // Taught as members teach it: phrase, answer, something else; three times each.
    for (const { phrase, answer } of TAUGHT) {
      const ids: number[] = [];
      for (let round = 0; round < 3; round++)
        ids.push(say(peer, 2, phrase), say(peer, 3, answer), say(peer, 4, FILLER));
      await drained(ids);
    }
    service.store.corpus.invalidateSnapshots();
    service.corpus.runtime.composite.invalidateFindCache();
    service.chat.repeater.bundles.clear();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    for (const asker of askers) await asker.close().catch(() => undefined);
    await peer?.close().catch(() => undefined);
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('finds a taught phrase by the sentence a member said, and by a word of it', async () => {
    // The bot answers the first phrase (so it is "most sent" below).
    assert.equal(await answered(askers[0]!, TAUGHT[0].phrase), true, 'taught: answered');
    for (const width of [1280, 390]) {
      const { page, problems } = await open(width);
      await page.goto(`${base}/corpus`);
      const card = page.locator(`[data-context="${keywordsOf(TAUGHT[0].phrase)}"]`);
      await search(page, TAUGHT[0].phrase);
      await card.waitFor();
      assert.match(await page.getByTestId('sentence-keywords').innerText(), /找到了这条语料/);
      assert.equal(
        await page.locator('[data-context]').first().getAttribute('data-context'),
        keywordsOf(TAUGHT[0].phrase),
      );
      const line = card.locator(`[data-group="${G1}"]`);
      assert.match(await line.innerText(), new RegExp(`${GROUP_NAME}（${G1}）`), 'the group name beside its number');
      assert.equal(await line.getAttribute('data-state'), 'ready');
      assert.match(await card.innerText(), new RegExp(TAUGHT[0].answer));
      await shoot(page, 'sentence');
      await search(page, '旅游');
      await card.waitFor();
      await noRawCq(page);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('browses newest and most sent without typing; faces and images are never CQ text', async () => {
    // "Where used" is written every 2 s: the first test's answer, before the pages are opened.
    await replyUsageWritten(
      service,
      { contextKeywords: keywordsOf(TAUGHT[0].phrase), answerKeywords: keywordsOf(TAUGHT[0].answer) },
      [G1],
    );
    for (const width of [1280, 390]) {
      const { page, problems } = await open(width);
      await page.goto(`${base}/corpus`);
      await page.getByTestId('browse-newest').click();
      await page.locator(`[data-context="${keywordsOf(TAUGHT[0].phrase)}"]`).waitFor();
      // Members' chatter is learned too (the filler after each answer): the taught phrases are
      // among the contexts, the later taught first.
      const listed = await page
        .locator('[data-context]')
        .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-context')));
      const places = TAUGHT.map(({ phrase }) => listed.indexOf(keywordsOf(phrase)));
      assert.ok(
        places.every((place) => place >= 0),
        `${listed.join(' | ')}`,
      );
      assert.deepEqual(
        [...places].sort((a, b) => b - a),
        places,
        'newest first',
      );
      await page.locator(`[data-context="${keywordsOf(TAUGHT[1].phrase)}"] [data-test="cq-face"]`).waitFor();
      await page.locator(`[data-context="${keywordsOf(TAUGHT[2].phrase)}"] [data-test="cq-image"]`).waitFor();
      await noRawCq(page);
      await shoot(page, 'newest');

      await page.getByTestId('browse-most-sent').click();
      await page.waitForURL((url) => url.searchParams.get('order') === 'most_sent');
      await page.locator('[data-context]').first().waitFor();
      assert.equal(
        await page.locator('[data-context]').first().getAttribute('data-context'),
        keywordsOf(TAUGHT[0].phrase),
        'what the bot sent, most first',
      );
      await page.locator('[data-test="where-used"]').first().waitFor();
      await shoot(page, 'most-sent');
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('is reached from a decision on the Why page and from the hot words', async () => {
    const { page, problems } = await open(1280);
    await page.goto(`${base}/why?group=${G1}`);
    const link = page
      .getByTestId('phrase-link')
      .filter({ hasText: keywordsOf(TAUGHT[0].phrase) })
      .first();
    await link.click();
    await page.waitForURL((url) => url.pathname.endsWith('/corpus') && url.searchParams.get('in') === 'keywords');
    await page.locator(`[data-context="${keywordsOf(TAUGHT[0].phrase)}"]`).waitFor();

    await page.goto(`${base}/`);
    const hot = page.getByTestId('hot-links').getByRole('link').first();
    const word = (await hot.innerText()).trim();
    await hot.click();
    await page.waitForURL((url) => url.pathname.endsWith('/corpus'));
    await page.locator('[data-context]').first().waitFor();
    assert.ok(
      (await page.locator('[data-context]').evaluateAll((cards) => cards.map((c) => c.textContent ?? ''))).some(
        (text) => text.includes(word),
      ),
      `the hot word ${word} opens its phrase`,
    );
    await noRawCq(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('bans three answers everywhere at once after a confirmation; the bot no longer answers them', async () => {
    for (const { phrase } of TAUGHT.slice(1))
      assert.equal(await answered(askers[0]!, phrase), true, `${phrase} answered`);
    const { page, problems } = await open(1280);
    await page.goto(`${base}/corpus?order=newest`);
    await page
      .locator('[data-context]')
      .nth(TAUGHT.length - 1)
      .waitFor();
    // Each phrase's first answer line is its most counted answer: the taught one.
    const taughtLine = (phrase: string) => page.locator(`[data-context="${keywordsOf(phrase)}"] [data-answer]`).first();
    for (const { phrase } of TAUGHT) await taughtLine(phrase).getByTestId('select-answer').click();
    await page.getByTestId('bulk-bar').getByText('已选 3 个回答').waitFor();
    await page.getByTestId('bulk-bar').getByRole('button', { name: '全局禁用' }).click();
    const dialog = page.getByTestId('confirm-text');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /在所有群禁用这 3 个回答/);
    assert.equal(await dialog.locator('[data-test="confirm-item"]').count(), 3, 'the dialog lists what it bans');
    assert.ok(!(await dialog.innerText()).includes('[CQ:'));
    await shoot(page, 'bulk-confirm');
    let bans = 0;
    page.on('response', (r) => {
      if (r.url().includes('/ban') && r.request().method() === 'POST' && r.status() === 200) bans++;
    });
    await page.getByRole('button', { name: '确认' }).click();
    await waitUntil('three bans', () => bans === 3);
    for (const { phrase } of TAUGHT)
      await taughtLine(phrase).locator(`[data-group="${G1}"][data-state="banned_everywhere"]`).waitFor();
    await page.getByTestId('bulk-bar').waitFor({ state: 'detached' });
    await shoot(page, 'bulk-banned');
    for (const { phrase } of TAUGHT) assert.equal(await answered(askers[1]!, phrase), false, `${phrase}: banned`);
    await noRawCq(page);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
