/**
 * The web console in a real browser (headless Chromium) against a real Chorus (`startService`:
 * real HTTP, the built SPA, SQLite in a temporary project) with a scripted OneBot account over a
 * real WebSocket: login, the overview's account, moderation that the bot obeys at once (ban in one
 * group, undo, delete, undo), a corpus setting saved from the community page, a read-only session,
 * reloads on every page, and no console errors or failed requests. Screenshots of every page at
 * desktop and phone width go to test-output/screenshots/ (see web/README.md).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { describeText } from '../../src/repeater/keywords.ts';
import { jiebaTagger, KeywordExtractor, seededRandom, type RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import {
  CHROMIUM,
  HAVE_CHROMIUM,
  IN_CI,
  initialJsGzip,
  launchChromium,
  OUTPUT,
  sharedWebBuild,
} from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { BROWSER_WAIT_MS, logIn, whereThrown } from '../support/page-problems.ts';
import { replyUsageWritten } from '../support/reply-usage.ts';

const READ = 'browser-read-token-not-secret';
const WRITE = 'browser-write-token-not-secret';
const BOT = 10001;
const ASKERS = 6;
const G1 = 201;
const G2 = 202;
const TRIGGER = '今天晚饭吃什么呢';
const ANSWER = '去吃火锅吧朋友们';
const CHATTER = ['嗯嗯', '哦哦', '好的', '在吗', '真香', '好耶', '嗯嗯嗯嗯', '好的呢', '行吧', '是的', '对的', '嗯呢'];
const FILLER = '嗯嗯嗯';
const PAGES = [
  { name: 'overview', path: '', title: '概览' },
  { name: 'corpus', path: `corpus?q=${encodeURIComponent(ANSWER)}`, title: '语料' },
  { name: 'community', path: 'community', title: '社区' },
  { name: 'settings', path: 'settings', title: '设置' },
  { name: 'bots', path: 'bots', title: '机器人' },
  { name: 'database', path: 'database', title: '数据库' },
  { name: 'groups', path: 'groups', title: '群组' },
  // The Why page puts the group it shows into its address; the test asks for the one it talks in.
  { name: 'why', path: `why?group=${G2}`, title: '为什么' },
  { name: 'logs', path: 'logs', title: '日志' },
  { name: 'updates', path: 'updates', title: '更新' },
  { name: 'ai', path: 'ai-extension', title: 'AI 扩展' },
];
const SHOTS = join(OUTPUT, 'screenshots');
const WAIT_MS = 8000;
const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string) => describeText(text, text, KEYWORDS).keywords;

async function waitUntil(what: string, condition: () => boolean, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** What the browser did wrong on a page: console errors, page errors, failed or refused requests. */
interface Problems {
  list: string[];
  /** Statuses a step provokes on purpose (a wrong token is a 401). */
  expect(status: number, path: string): void;
}

function watch(page: Page): Problems {
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  const expected: { status: number; path: string }[] = [];
  const list: string[] = [];
  page.on('console', (message) => {
    // A refused request is reported by the response handler, which knows the expected ones.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded'))
      list.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) =>
    list.push(`page error on ${new URL(page.url()).pathname}: ${error.message} ${whereThrown(error)}`),
  );
  page.on('requestfailed', (request) => {
    // A poll cut short by navigating away is not a failure.
    if (request.failure()?.errorText !== 'net::ERR_ABORTED') list.push(`failed: ${request.url()}`);
  });
  page.on('response', (response) => {
    if (response.status() < 400) return;
    const path = new URL(response.url()).pathname;
    const index = expected.findIndex((e) => e.status === response.status() && e.path === path);
    if (index >= 0) expected.splice(index, 1);
    else list.push(`HTTP ${response.status()}: ${response.request().method()} ${path}`);
  });
  return { list, expect: (status, path) => expected.push({ status, path }) };
}

describe('web console in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let service: RunningService;
  let browser: Browser;
  let peer: OneBotPeer;
  /**
   * One account per question in a group: an account never repeats one of its own ten latest
   * replies there, so asking the same thing again goes through a fresh account.
   */
  const askers: OneBotPeer[] = [];
  const asked = new Map<number, number>();
  let base: string;
  let api: string;
  const decisions: RepeaterDecision[] = [];
  let second = Math.floor(Date.now() / 1000) - 100_000;
  const figures: Record<string, unknown> = {};

  const say = (groupId: number, userId: number, text: string, through = peer) => {
    second++;
    return through.groupMessage({ groupId, userId, text, time: second });
  };
  const decided = async (groupId: number, messageId: number) => {
    const find = () => decisions.find((d) => d.groupId === groupId && d.messageId === messageId);
    await waitUntil(`decision on ${messageId}`, () => Boolean(find()));
    return find() as RepeaterDecision;
  };
  const drained = async (ids: number[]) => {
    for (const id of ids) await waitUntil(`decision on ${id}`, () => decisions.some((d) => d.messageId === id));
    const { learning } = service.corpus.runtime;
    const worker = service.corpus.learnWorker;
    await waitUntil(
      'learning',
      () => learning.queue.size === 0 && worker.counters.handled + worker.counters.failed === learning.counters.queued,
    );
  };
  /** Asks the trigger in a group after pushing the answer out of the recent window; replied? */
  const answers = async (groupId: number): Promise<boolean> => {
    const turn = asked.get(groupId) ?? 0;
    asked.set(groupId, turn + 1);
    const asker = askers[turn];
    assert.ok(asker, 'enough accounts for the questions');
    await drained(CHATTER.map((line, i) => say(groupId, 30 + i, line, asker)));
    const decision = await decided(groupId, say(groupId, 9, TRIGGER, asker));
    await service.chat.repeater.idle();
    if (process.env.DEBUG_BROWSER_TEST) console.log(groupId, decision.outcome, decision.reason);
    return decision.outcome === 'replied';
  };
  const teach = async (groupId: number) => {
    const ids: number[] = [];
    for (let round = 0; round < 3; round++)
      ids.push(say(groupId, 2, TRIGGER), say(groupId, 3, ANSWER), say(groupId, 4, FILLER));
    await drained(ids);
    // Learning's own caches are not what this suite is about: start the questions from the database.
    service.store.corpus.invalidateSnapshots();
    service.corpus.runtime.composite.invalidateFindCache();
    service.chat.repeater.bundles.clear();
  };

  const shoot = async (page: Page, name: string) => {
    const width = page.viewportSize()?.width ?? 0;
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  };
  const login = async (page: Page, token: string) => {
    await logIn(page, base, token);
  };
  const heading = (page: Page, title: string) => page.locator('h1.page-title', { hasText: title }).waitFor();

  before(async () => {
    if (!HAVE_CHROMIUM) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs it`);
    dir = await mkdtemp(join(tmpdir(), 'chorus-browser-'));
    const webRoot = await sharedWebBuild();
    figures.initial_js_gzip = await initialJsGzip(webRoot);
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
      random: seededRandom(7),
      onDecision: (decision) => decisions.push(decision),
    });
    base = `http://127.0.0.1:${port}/chorus`;
    api = `${base}/api`;
    peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT, firstMessageId: 1 });
    for (let i = 1; i <= ASKERS; i++) {
      const selfId = BOT + i;
      askers.push(
        await OneBotPeer.connect({
          url: `ws://127.0.0.1:${port}/onebot/v11/ws`,
          selfId,
          firstMessageId: i * 1_000_000 + 1,
        }),
      );
    }
    await waitUntil('bots online', () => service.chat.onebot.bots().length === ASKERS + 1);
    browser = await launchChromium();
  });

  after(async () => {
    await writeFile(join(OUTPUT, 'browser-figures.json'), `${JSON.stringify(figures, null, 2)}\n`).catch(
      () => undefined,
    );
    await browser?.close();
    for (const asker of askers) await asker.close().catch(() => undefined);
    await peer?.close().catch(() => undefined);
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('logs in (a wrong token shows the error) and the overview shows the connected account', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = watch(page);
    const started = Date.now();
    await page.goto(`${base}/`);
    await page.waitForURL(/\/chorus\/login\?next=/);
    await page.locator('#token').waitFor();
    figures.login_first_render_ms = Date.now() - started;
    figures.first_contentful_paint_ms = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
    );
    await shoot(page, 'login');
    problems.expect(401, '/chorus/api/auth/login');
    await page.locator('#token').fill('not-the-token');
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByTestId('login-error').waitFor();
    assert.match(await page.getByTestId('login-error').innerText(), /token|令牌/i);
    await page.locator('#token').fill(WRITE);
    await page.getByRole('button', { name: '登录' }).click();
    await heading(page, '概览');
    assert.equal(new URL(page.url()).pathname, '/chorus/');
    await page.getByTestId('accounts').getByText(String(BOT)).waitFor();
    const overview = Date.now();
    await page.reload();
    await page.getByTestId('accounts').getByText(String(BOT)).waitFor();
    figures.overview_render_after_reload_ms = Date.now() - overview;
    assert.deepEqual(problems.list, []);
    await page.close();
  });

  it('finds a taught pair; ban in one group, undo, delete and undo take effect on the bot at once', async () => {
    await teach(G1);
    await teach(G2);
    assert.equal(await answers(G1), true, 'answers in G1 after teaching');
    assert.equal(await answers(G2), true, 'answers in G2 after teaching');
    // The answers sent are written for "where used" every 2 s: the page is opened once they are.
    const sent = { contextKeywords: keywordsOf(TRIGGER), answerKeywords: keywordsOf(ANSWER) };
    await replyUsageWritten(service, sent, [G1, G2]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    await login(page, WRITE);
    await page.goto(`${base}/corpus?q=${encodeURIComponent(ANSWER)}`);
    const keywords = sent.contextKeywords;
    const card = page.locator(`[data-context="${keywords}"]`);
    await card.waitFor();
    // One line per answer, with its state in each group that learned it.
    const answer = card.locator('[data-answer]', { hasText: ANSWER });
    const inG1 = answer.locator(`[data-group="${G1}"]`);
    assert.match(await inG1.innerText(), new RegExp(`群 ${G1}`));
    // Where used: sent as a reply in G1 (by the teaching round's answers() just now).
    assert.match(await inG1.getByTestId('where-used').innerText(), /最近作为回复/);

    const banned = page.waitForResponse((r) => r.url().includes('/ban') && r.request().method() === 'POST');
    await inG1.getByRole('button', { name: /本群禁用/ }).click();
    // A ban is confirmed first, in a dialog that says what it will do.
    assert.match(await page.getByTestId('confirm-text').innerText(), new RegExp(`在 群 ${G1} 禁用下面这个回答`));
    await page.getByRole('button', { name: '确认' }).click();
    assert.equal((await banned).status(), 200);
    await answer.locator(`[data-group="${G1}"][data-state="banned_here"]`).waitFor();
    assert.equal(await answers(G1), false, 'banned in G1: not answered there');
    assert.equal(await answers(G2), true, 'still answered in G2');

    const undone = page.waitForResponse((r) => r.url().includes('/undo'));
    await page.locator('[data-kind="ban_group"]').first().getByRole('button', { name: '撤销' }).click();
    await page.getByRole('button', { name: '确认' }).click();
    assert.equal((await undone).status(), 200);
    assert.equal(await answers(G1), true, 'undo: answered in G1 again');

    await page.screenshot({ path: join(SHOTS, 'corpus-actions-1280.png'), fullPage: true });
    const deleted = page.waitForResponse(
      (r) => r.url().includes('/corpus/contexts/') && r.request().method() === 'DELETE',
    );
    await card.getByRole('button', { name: '删除整条语料' }).click();
    await page.getByRole('button', { name: '确认' }).click();
    assert.equal((await deleted).status(), 200);
    await card.waitFor({ state: 'detached' });
    assert.equal(await answers(G1), false, 'deleted: not answered in G1');
    assert.equal(await answers(G2), false, 'deleted: not answered in G2');

    const restored = page.waitForResponse((r) => r.url().includes('/undo'));
    await page.locator('[data-kind="delete_context"]').first().getByRole('button', { name: '撤销' }).click();
    await page.getByRole('button', { name: '确认' }).click();
    assert.equal((await restored).status(), 200);
    await card.waitFor();
    assert.equal(await answers(G1), true, 'undo delete: answered in G1 again');
    assert.equal(await answers(G2), true, 'undo delete: answered in G2 again');
    assert.deepEqual(problems.list, []);
    await context.close();
  });

  it('saves a corpus setting from the community page and shows it in corpus-status', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    await login(page, WRITE);
    await page.goto(`${base}/community`);
    // The value in words (issue 28.2), the raw value in data-value.
    assert.equal(await page.getByTestId('merge-strategy').innerText(), '本地有答案就用本地');
    assert.equal(await page.getByTestId('merge-strategy').getAttribute('data-value'), 'local_first');
    await page.locator('[data-field="merge_strategy"] .n-base-selection').click();
    // Choices are shown as words (web/src/locales/settings-zh.ts): merge_counts.
    await page.locator('.n-base-select-option', { hasText: '合并各来源的次数' }).click();
    const saved = page.waitForResponse(
      (r) => r.url().endsWith('/plugins/core/config') && r.request().method() === 'PUT',
    );
    await page.getByRole('button', { name: '保存' }).click();
    assert.equal((await saved).status(), 200);
    await page.getByTestId('save-steps').waitFor();
    await page.locator('[data-test="merge-strategy"][data-value="merge_counts"]').waitFor();
    const status = await (await context.request.get(`${api}/corpus-status`)).json();
    assert.equal(status.data.merge_strategy, 'merge_counts');
    assert.deepEqual(problems.list, []);
    await context.close();
  });

  it('a read-only session sees the pages but cannot save (disabled control, 403 when forced)', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    await login(page, READ);
    await page.goto(`${base}/community`);
    await page.getByTestId('read-only-tag').waitFor();
    const save = page.getByRole('button', { name: '保存' });
    await save.waitFor();
    assert.equal(await save.isDisabled(), true);
    const forced = await context.request.put(`${api}/plugins/core/config`, {
      data: { values: { merge_strategy: 'local_first' } },
    });
    assert.equal(forced.status(), 403);
    assert.equal(service.config.current().corpus.mergeStrategy, 'merge_counts', 'nothing changed');
    await page.goto(`${base}/corpus?q=${encodeURIComponent(ANSWER)}`);
    await page.locator('[data-answer]').first().waitFor();
    for (const button of await page.locator('[data-write]').all()) assert.equal(await button.isDisabled(), true);
    assert.deepEqual(problems.list, []);
    await context.close();
  });

  it('every page survives a reload, with no console errors or failed requests; screenshots at two widths', async () => {
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      const problems = watch(page);
      await login(page, WRITE);
      for (const entry of PAGES) {
        await page.goto(`${base}/${entry.path}`);
        await heading(page, entry.title);
        await page.reload();
        await heading(page, entry.title);
        assert.equal(page.url(), `${base}/${entry.path}`, `${entry.name} keeps its path`);
        await page.waitForLoadState('networkidle');
        await shoot(page, entry.name);
      }
      if (width > 600) {
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.goto(`${base}/`);
        await page.getByTestId('accounts').waitFor();
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: join(SHOTS, 'overview-dark-1280.png'), fullPage: true });
      }
      assert.deepEqual(problems.list, [], `width ${width}`);
      await context.close();
    }
  });
});
