/**
 * The 群组 page (groups, requests, people) in headless Chromium against a real Chorus with a
 * scripted OneBot account over a real WebSocket: the account's groups with their switches
 * (switching reply off there, applied when flipped, makes the bot stop answering in that group), a silence with its
 * countdown, the request inbox (approve one, approve a selection in a batch), and a user banned
 * everywhere. Every lasting action (ignore a group, reject a request or a selection, ban a user
 * everywhere, disconnect an account) asks first: cancelled, nothing changes (read back over HTTP);
 * confirmed, it applies. A read session sees no member number and every control disabled, with the
 * reason. Screenshots at 1280 and 390 px go to test-output/screenshots/.
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
import { answerConfirm } from '../support/confirm-dialog.ts';
import { BROWSER_WAIT_MS, logIn } from '../support/page-problems.ts';

const READ = 'groups-browser-read-token';
const WRITE = 'groups-browser-write-token';
const BOT = 66001;
const G1 = 9301;
const G2 = 9302;
const SHOTS = join(OUTPUT, 'screenshots');

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A screenshot of a dialog waits for its opening transition (finite animations) to end. */
async function settled(page: Page): Promise<void> {
  const still =
    "document.getAnimations().some((a) => a.playState === 'running' && a.effect?.getTiming().iterations !== Infinity)";
  await until('the dialog opened', async () => (await page.evaluate(still)) === false);
}

describe('群组 page in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let service: RunningService;
  let browser: Browser;
  let peer: OneBotPeer;
  let base: string;
  const decisions: RepeaterDecision[] = [];
  const problems: string[] = [];
  let second = Math.floor(Date.now() / 1000) - 100_000;

  const api = async (path: string, token = READ) => {
    const response = await fetch(`${base}/api${path}`, { headers: { 'x-chorus-token': token } });
    return ((await response.json()) as { data: Record<string, unknown> }).data;
  };
  const shoot = async (page: Page, name: string) => {
    const width = page.viewportSize()?.width ?? 0;
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  };
  const open = async (width: number, token = WRITE): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
    });
    await logIn(page, base, token);
    await page.goto(`${base}/groups`);
    await page.locator('h1.page-title', { hasText: '群组' }).waitFor();
    return page;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-groups-browser-'));
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
        // Proactive speech fires one second after the last message in a group switched on.
        CHORUS_REPEATER_PROACTIVE_FACTOR: '0',
        CHORUS_REPEATER_PROACTIVE_FLOOR_SEC: '1',
        CHORUS_REPEATER_PROACTIVE_CHECK_SEC: '1',
      },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
      onDecision: (decision) => decisions.push(decision),
    });
    base = `http://127.0.0.1:${port}/chorus`;
    peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT });
    peer.groups = [
      { group_id: G1, group_name: '读书会', member_count: 42 },
      { group_id: G2, group_name: '羽毛球小分队', member_count: 12 },
    ];
    peer.request({ kind: 'friend', userId: 7101, comment: '你好，加个好友' });
    peer.request({ kind: 'friend', userId: 7102 });
    peer.request({ kind: 'group', userId: 7103, groupId: 9400, subType: 'invite' });
    await until('requests in the inbox', async () => {
      const bots = (await api('/request-overview')).bots as { pending_friend_requests: unknown[] }[];
      return bots.length === 1 && bots[0]?.pending_friend_requests.length === 2;
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await peer?.close().catch(() => undefined);
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('switches a group, silences it, answers requests and bans a user', async () => {
    const page = await open(1280);
    const card = page.getByTestId(`group-${G1}`);
    await card.getByText('读书会').waitFor();
    await page.getByTestId(`group-${G2}`).getByText('羽毛球小分队').waitFor();
    await shoot(page, 'groups');

    // Reply off in G1, applied when flipped (no 保存 any more): the bot stops answering there, not in G2.
    assert.equal(await card.getByRole('button', { name: '保存' }).count(), 0);
    await card.getByRole('switch', { name: '回复' }).click();
    await until('saved', async () => (await api(`/group-configs/${G1}`)).reply === false);
    const said = (groupId: number) =>
      peer.groupMessage({ groupId, userId: 5, text: `周末有人打球吗${++second}`, time: second });
    const m1 = said(G1);
    const m2 = said(G2);
    await until(
      'decisions',
      () => decisions.some((d) => d.messageId === m1) && decisions.some((d) => d.messageId === m2),
    );
    assert.equal(decisions.find((d) => d.messageId === m1)?.reason, 'reply-off');
    assert.notEqual(decisions.find((d) => d.messageId === m2)?.reason, 'reply-off');
    // Today's activity per group shows on its card.
    await page.reload();
    await card.getByText(/今日消息 1 条，回复 0 条/).waitFor();

    // Silence for 30 minutes: the countdown shows, and the stored silence_until is ahead.
    await card.getByRole('button', { name: '静音 30 分钟' }).click();
    await card.getByTestId('silence').waitFor();
    assert.match(await card.getByTestId('silence').innerText(), /静音中，还剩 0:(29|30):\d\d/);
    assert.ok(Number((await api(`/group-configs/${G1}`)).silence_until) > Date.now() / 1000 + 1700);

    // Requests: approve one, then the rest as a batch.
    await page.locator('.n-tabs-tab', { hasText: '请求' }).click();
    await page.getByTestId('request-7101').getByText('「你好，加个好友」').waitFor();
    await shoot(page, 'groups-requests');
    await page.getByTestId('request-7101').getByRole('button', { name: '同意', exact: true }).click();
    await peer.waitForAction((a) => a.action === 'set_friend_add_request' && a.params.approve === true);
    await page.getByTestId('request-7101').waitFor({ state: 'detached' });
    await page.getByRole('checkbox', { name: '7102' }).click();
    await page.getByRole('checkbox', { name: '7103' }).click();
    await page.getByRole('button', { name: '同意所选（2）' }).click();
    await page.getByText('已处理 2 条，失败 0 条').waitFor();
    await peer.waitForAction((a) => a.action === 'set_group_add_request' && a.params.approve === true);
    await page.getByText('没有待处理的请求').waitFor();
    await shoot(page, 'groups-requests-handled');

    // People: a member answering commands like a bot is proposed; confirmed, it is marked a bot.
    for (let round = 0; round < 3; round++) {
      peer.groupMessage({ groupId: G2, userId: 21 + round, text: `/jrrp${round}`, time: ++second });
      peer.groupMessage({ groupId: G2, userId: 8899, text: `今日人品：${round}\n运势：大吉`, time: ++second });
    }
    await until('proposed', async () => ((await api('/suspected-bots')) as unknown as unknown[]).length === 1);
    await page.reload();
    await page.locator('.n-tabs-tab', { hasText: '成员' }).click();
    await page.getByTestId('suspect-8899').getByText('3 次').waitFor();
    await shoot(page, 'groups-people-suspect');
    await page.getByTestId('suspect-8899').getByRole('button', { name: '确认是机器人' }).click();
    await page.getByTestId('user-8899').getByText('机器人').waitFor();
    assert.equal((await api('/user-configs/8899')).bot, true);

    // People: ban a user everywhere; the bot then ignores them.
    await page.getByPlaceholder('QQ 号').fill('8801');
    await page.getByRole('button', { name: '全局屏蔽' }).click();
    await answerConfirm(page, /全局屏蔽 8801？/, '全局屏蔽');
    await page.getByTestId('user-8801').getByText('已屏蔽').waitFor();
    const m3 = peer.groupMessage({ groupId: G2, userId: 8801, text: '有人在吗', time: ++second });
    await until('decision', () => decisions.some((d) => d.messageId === m3));
    assert.equal(decisions.find((d) => d.messageId === m3)?.reason, 'user-banned');
    await shoot(page, 'groups-people');

    // Instances: the account with its protocol, nickname, groups and today's messages and replies.
    await page.locator('.n-tabs-tab', { hasText: '实例' }).click();
    const instance = page.getByTestId(`instance-${BOT}`);
    await instance.getByText('已连接').waitFor();
    await instance.getByTestId(`protocol-${BOT}`).getByText('协议 OneBot v11').waitFor();
    await instance.getByText('群 2 个').waitFor();
    assert.match(await instance.innerText(), /今日消息 \d+ 条，回复 \d+ 条/);
    await shoot(page, 'groups-instances');

    const phone = await open(390);
    await phone.getByTestId(`group-${G1}`).getByTestId('silence').waitFor();
    await shoot(phone, 'groups');
    assert.deepEqual(problems, []);
  });

  it('chooses per group when the language model may answer, applied when chosen', async () => {
    for (const width of [1280, 390]) {
      const page = await open(width);
      const field = page.getByTestId(`group-${G2}`).getByTestId('agent-chat');
      await field.getByText('语言模型回复').waitFor();
      await field.getByText('默认（被叫到时）').waitFor();
      assert.equal((await api(`/group-configs/${G2}`)).agent_chat, null, 'never set: the default');
      await field.locator('.n-base-selection').click();
      await page.locator('.n-base-select-option', { hasText: '被叫到时，冷场时偶尔' }).click();
      await until('saved silence', async () => (await api(`/group-configs/${G2}`)).agent_chat === 'silence');
      await page.reload();
      await page.getByTestId(`group-${G2}`).getByTestId('agent-chat').getByText('被叫到时，冷场时偶尔').waitFor();
      await shoot(page, 'groups-agent-chat');
      const again = page.getByTestId(`group-${G2}`).getByTestId('agent-chat');
      await again.locator('.n-base-selection').click();
      await page.locator('.n-base-select-option', { hasText: /^关$/ }).click();
      await until('saved off', async () => (await api(`/group-configs/${G2}`)).agent_chat === 'off');
      await again.locator('.n-base-selection').click();
      await page.locator('.n-base-select-option', { hasText: '默认（被叫到时）' }).click();
      await until('saved default', async () => (await api(`/group-configs/${G2}`)).agent_chat === null);
      await page.close();
    }
  });

  it('switches proactive speech per group: on, then back to the global default', async () => {
    for (const width of [1280, 390]) {
      const page = await open(width);
      const card = page.getByTestId(`group-${G2}`);
      const field = card.getByTestId('proactive');
      await field.getByText('冷场时主动说话').waitFor();
      await field.getByText('跟随全局设置').waitFor();
      assert.equal((await api(`/group-configs/${G2}`)).proactive, null, 'never set: the global default');

      // On for this group, applied when chosen: the stored switch and the card say so after a reload.
      await field.locator('.n-base-selection').click();
      await page.locator('.n-base-select-option', { hasText: /^开$/ }).click();
      await until('saved on', async () => (await api(`/group-configs/${G2}`)).proactive === true);
      await page.reload();
      await page.getByTestId(`group-${G2}`).getByTestId('proactive').getByText('开', { exact: true }).waitFor();
      assert.match(await page.getByTestId(`group-${G2}`).innerText(), /主动说话 0 次/);
      await shoot(page, 'groups-proactive');

      // Back to the global default.
      const again = page.getByTestId(`group-${G2}`);
      await again.getByTestId('proactive').locator('.n-base-selection').click();
      await page.locator('.n-base-select-option', { hasText: '跟随全局设置' }).click();
      await until('saved default', async () => (await api(`/group-configs/${G2}`)).proactive === null);
      await page.close();
    }

    // Switched on, a quiet group hears a line of its own; the Why page shows it as its own reason.
    const put = await fetch(`${base}/api/group-configs/${G2}`, {
      method: 'PUT',
      headers: { 'x-chorus-token': WRITE, 'content-type': 'application/json' },
      body: JSON.stringify({ proactive: true }),
    });
    assert.equal(put.status, 200);
    const lines = Array.from({ length: 12 }, (_, i) => `今天第${i + 1}个话题是什么呢`);
    for (const text of lines) peer.groupMessage({ groupId: G2, userId: 30, text, time: ++second });
    await until('a proactive line', () => decisions.some((d) => d.groupId === G2 && d.reason === 'proactive'), 15_000);
    const said = decisions.find((d) => d.groupId === G2 && d.reason === 'proactive')?.texts[0] ?? '';
    // A line members said in this group (the feature draws on any recent one, an earlier test's too).
    assert.ok(
      decisions.some((d) => d.groupId === G2 && d.reason !== 'proactive' && d.rawMessage === said),
      said,
    );
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      page.setDefaultTimeout(BROWSER_WAIT_MS);
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      await logIn(page, base, WRITE);
      // The decision log is written every 2 s: reload until the row is there.
      await until(
        'the proactive row on the Why page',
        async () => {
          await page.goto(`${base}/why?group=${G2}`);
          await page.locator('h1.page-title', { hasText: '为什么' }).waitFor();
          return (await page.getByTestId('quiet').count()) > 0;
        },
        20_000,
      );
      await page.getByText('主动说话', { exact: true }).first().waitFor();
      await page.getByText(`机器人主动说了「${said}」`, { exact: false }).first().waitFor();
      await shoot(page, 'why-proactive');
      await page.close();
    }
    assert.deepEqual(problems, []);
  });

  /** The friend requests waiting, by QQ number (read at the write level, where numbers are shown). */
  const waiting = async (): Promise<number[]> => {
    const bots = (await api('/request-overview', WRITE)).bots as { pending_friend_requests: { user_id: number }[] }[];
    return bots.flatMap((bot) => bot.pending_friend_requests.map((request) => request.user_id));
  };
  /** Every member number this file shows the page, so a read session can be checked to show none. */
  const members = new Set([7101, 7102, 7103, 8801, 8899]);

  it('asks before every lasting action: cancelled, nothing changes; confirmed, it applies', async () => {
    let next = 7600;
    for (const width of [1280, 390]) {
      const page = await open(width);

      // Ignoring a group asks first; cancelled, the group is not ignored (read back over HTTP).
      const ignore = page.getByTestId(`group-${G1}`).getByRole('switch', { name: '屏蔽此群' });
      await ignore.click();
      await page.getByRole('dialog').waitFor();
      await settled(page);
      await shoot(page, 'groups-confirm-ignore');
      await answerConfirm(page, /屏蔽群 读书会？[\s\S]*完全忽略这个群的消息/, '屏蔽此群', { cancel: true });
      assert.equal((await api(`/group-configs/${G1}`)).banned, false, 'cancelled: not ignored');
      assert.equal(await ignore.getAttribute('aria-checked'), 'false');
      await ignore.click();
      await answerConfirm(page, /屏蔽群 读书会？/, '屏蔽此群');
      await until('ignored', async () => (await api(`/group-configs/${G1}`)).banned === true);
      await until('the switch shows it', async () => (await ignore.getAttribute('aria-checked')) === 'true');
      // Taking it back asks nothing: the undo toast is its safety.
      await ignore.click();
      await until('not ignored', async () => (await api(`/group-configs/${G1}`)).banned === false);
      assert.equal(await page.getByRole('dialog').count(), 0, 'no confirmation to stop ignoring');

      // Rejecting a request asks first, naming who; cancelled, it still waits.
      const [one, two, three] = [++next, ++next, ++next];
      for (const userId of [one, two, three]) {
        members.add(userId);
        peer.request({ kind: 'friend', userId });
      }
      await until('three more waiting', async () => (await waiting()).includes(three));
      await page.reload();
      await page.locator('.n-tabs-tab', { hasText: '请求' }).click();
      const row = page.getByTestId(`request-${one}`);
      await row.getByRole('button', { name: '拒绝', exact: true }).click();
      await page.getByRole('dialog').waitFor();
      await settled(page);
      await shoot(page, 'groups-confirm-reject');
      await answerConfirm(page, new RegExp(`拒绝 ${one} 的请求？[\\s\\S]*好友请求会被拒绝`), '拒绝', { cancel: true });
      assert.ok((await waiting()).includes(one), 'cancelled: the request still waits');
      await row.getByRole('button', { name: '拒绝', exact: true }).click();
      await answerConfirm(page, new RegExp(`拒绝 ${one} 的请求？`), '拒绝');
      await peer.waitForAction((a) => a.action === 'set_friend_add_request' && a.params.approve === false);
      await row.waitFor({ state: 'detached' });
      assert.ok(!(await waiting()).includes(one), 'confirmed: rejected');

      // A selection the same way.
      await page.getByRole('checkbox', { name: String(two) }).click();
      await page.getByRole('checkbox', { name: String(three) }).click();
      await page.getByRole('button', { name: '拒绝所选（2）' }).click();
      await answerConfirm(page, /拒绝所选的 2 条请求？/, '拒绝', { cancel: true });
      assert.equal((await waiting()).filter((id) => id === two || id === three).length, 2, 'cancelled: both wait');
      await page.getByRole('button', { name: '拒绝所选（2）' }).click();
      await answerConfirm(page, /拒绝所选的 2 条请求？/, '拒绝');
      await page.getByText('已处理 2 条，失败 0 条').waitFor();
      assert.equal((await waiting()).filter((id) => id === two || id === three).length, 0, 'confirmed: both rejected');

      // Banning a user everywhere asks first; cancelled, the user is not banned.
      const user = ++next;
      members.add(user);
      await page.locator('.n-tabs-tab', { hasText: '成员' }).click();
      await page.getByPlaceholder('QQ 号').fill(String(user));
      await page.getByRole('button', { name: '全局屏蔽' }).click();
      await page.getByRole('dialog').waitFor();
      await settled(page);
      await shoot(page, 'groups-confirm-ban');
      await answerConfirm(page, new RegExp(`全局屏蔽 ${user}？[\\s\\S]*所有群`), '全局屏蔽', { cancel: true });
      assert.equal((await api(`/user-configs/${user}`)).banned, false, 'cancelled: not banned');
      assert.equal(await page.getByTestId(`user-${user}`).count(), 0);
      await page.getByRole('button', { name: '全局屏蔽' }).click();
      await answerConfirm(page, new RegExp(`全局屏蔽 ${user}？`), '全局屏蔽');
      await page.getByTestId(`user-${user}`).getByText('已屏蔽').waitFor();
      assert.equal((await api(`/user-configs/${user}`)).banned, true, 'confirmed: banned');

      // Disconnecting an account asks first; cancelled, it stays connected (confirmed: the last test).
      await page.locator('.n-tabs-tab', { hasText: '实例' }).click();
      await page.getByTestId(`instance-${BOT}`).getByRole('button', { name: '断开连接' }).click();
      await page.getByRole('dialog').waitFor();
      await settled(page);
      await shoot(page, 'groups-confirm-disconnect');
      await answerConfirm(page, new RegExp(`断开账号 ${BOT}？[\\s\\S]*账号暂时离线`), '断开连接', { cancel: true });
      assert.equal(peer.isOpen, true, 'cancelled: still connected');
      assert.equal(((await api('/onebot/bots')) as unknown as unknown[]).length, 1);
      await page.close();
    }
    assert.deepEqual(problems, []);
  });

  it('a read session sees no member number and every control disabled, with the reason', async () => {
    // Something waiting in each list that names a member: a request, a banned user, a bot.
    members.add(7700);
    peer.request({ kind: 'friend', userId: 7700, comment: '只读看看' });
    await until('the request waiting', async () => (await waiting()).includes(7700));
    const shown = (text: string) => [...members].filter((number) => text.includes(String(number)));
    for (const width of [1280, 390]) {
      const page = await open(width, READ);
      await page.getByTestId('read-only-note').getByText('只读会话不能修改；请用写入令牌登录').waitFor();
      const card = page.getByTestId(`group-${G1}`);
      await card.getByText('读书会').waitFor();
      const switches = await card.getByRole('switch').count();
      assert.ok(switches >= 5, `switches: ${switches}`);
      assert.equal(await card.locator('.n-switch--disabled').count(), switches, 'every switch disabled');
      for (const input of await card.locator('input').all()) assert.equal(await input.isDisabled(), true);
      for (const button of await page.locator('button[data-write]').all())
        assert.equal(await button.isDisabled(), true);
      await shoot(page, 'groups-read');

      await page.locator('.n-tabs-tab', { hasText: '请求' }).click();
      const request = page.locator('[data-test^="request-"]').filter({ hasText: '只读看看' });
      await request.getByText('已隐藏').waitFor();
      assert.equal(await request.locator('.n-checkbox--disabled').count(), 1, 'the selection disabled');
      for (const button of await request.locator('button').all()) assert.equal(await button.isDisabled(), true);
      assert.deepEqual(shown(await page.locator('body').innerText()), [], 'no member number in the requests');
      await shoot(page, 'groups-read-requests');

      await page.locator('.n-tabs-tab', { hasText: '成员' }).click();
      await page.locator('[data-test^="user-"]').first().getByText('已隐藏').waitFor();
      assert.equal(await page.getByPlaceholder('QQ 号').isDisabled(), true);
      for (const button of await page.locator('button[data-write]').all())
        assert.equal(await button.isDisabled(), true);
      assert.deepEqual(shown(await page.locator('body').innerText()), [], 'no member number among the people');
      await shoot(page, 'groups-read-people');
      await page.close();
    }
    assert.deepEqual(problems, []);
  });

  it('disconnects an account only when confirmed', async () => {
    const page = await open(390);
    await page.locator('.n-tabs-tab', { hasText: '实例' }).click();
    const instance = page.getByTestId(`instance-${BOT}`);
    await instance.getByRole('button', { name: '断开连接' }).click();
    await answerConfirm(page, new RegExp(`断开账号 ${BOT}？`), '断开连接');
    await peer.waitClosed();
    await page.getByText('已断开', { exact: true }).waitFor();
    await page.close();
    assert.deepEqual(problems, []);
  });
});
