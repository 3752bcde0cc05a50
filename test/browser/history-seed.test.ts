/**
 * Learning from history on the 群组 page in headless Chromium, against a real Chorus with two
 * scripted OneBot accounts over real WebSockets: one whose implementation answers
 * get_group_msg_history from a scripted history (start with a depth, the progress, stop, start
 * again, the result), one without the action (said plainly). Screenshots at 1280 and 390 px go to
 * test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { BROWSER_WAIT_MS, logIn } from '../support/page-problems.ts';

const READ = 'history-browser-read-token';
const WRITE = 'history-browser-write-token';
const [BOT, OLD_BOT] = [67001, 67002];
const [G1, G2] = [9311, 9312];
const SHOTS = join(OUTPUT, 'screenshots');

describe(
  '群组 page: learning from history',
  { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false },
  () => {
    let dir: string;
    let service: RunningService;
    let browser: Browser;
    let peer: OneBotPeer;
    let old: OneBotPeer;
    let base: string;
    const problems: string[] = [];

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
      dir = await mkdtemp(join(tmpdir(), 'chorus-history-browser-'));
      const webRoot = await sharedWebBuild();
      await mkdir(SHOTS, { recursive: true });
      const port = await freePort();
      service = await startService({
        projectDir: dir,
        webRoot,
        env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: READ, CHORUS_CONSOLE_WRITE_TOKEN: WRITE },
        logDestination: new Writable({ write: (_c, _e, done) => done() }),
      });
      base = `http://127.0.0.1:${port}/chorus`;
      peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT });
      peer.groups = [{ group_id: G1, group_name: '读书会', member_count: 42 }];
      // Ten messages a page, one page every half second: 300 messages take long enough to watch and stop.
      peer.historyPageMax = 10;
      const topics = ['今天读到第几章了', '这本书的结尾好意外', '下次聚会定在周六', '有人带零食吗', '推荐一本科幻小说'];
      peer.scriptHistory(
        G1,
        Array.from({ length: 300 }, (_, index) => ({
          userId: 100 + (index % 7),
          text: `${topics[index % 5]}${index}`,
        })),
      );
      old = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: OLD_BOT });
      old.groups = [{ group_id: G2, group_name: '老协议端的群', member_count: 8 }];
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await peer?.close().catch(() => undefined);
      await old?.close().catch(() => undefined);
      await service?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('starts with a depth, shows progress, stops, learns, and says when the action is missing', async () => {
      const page = await open(1280);
      const seed = page.getByTestId(`history-${G1}`);
      await seed.getByText('尚未从历史学习').waitFor();

      // A deep seed: its progress shows with a stop button; stopping keeps what was learned.
      await seed.getByTestId('history-depth').locator('input').fill('300');
      await seed.getByRole('button', { name: '从历史学习' }).click();
      await seed.getByText(/正在读取历史消息：\d+\/300/).waitFor();
      await shoot(page, 'groups-history-running');
      await seed.getByRole('button', { name: '停止' }).click();
      await seed.getByText(/已停止：已学习 \d+ 条，跳过 \d+ 条/).waitFor();

      // A shallow one runs to the end and says how many messages were learned and skipped.
      await seed.getByTestId('history-depth').locator('input').fill('40');
      await seed.getByRole('button', { name: '从历史学习' }).click();
      await seed.getByText(/完成：已学习 \d+ 条，跳过 \d+ 条（共读取 40 条）/).waitFor();
      const calls = peer.actions.filter((a) => a.action === 'get_group_msg_history');
      assert.ok(
        calls.some((a) => a.params.message_seq !== 0),
        'paged back by message_seq',
      );
      assert.deepEqual(peer.sent, [], 'nothing said while learning');

      // The account whose implementation lacks get_group_msg_history: said plainly.
      const unsupported = page.getByTestId(`history-${G2}`);
      await unsupported.getByRole('button', { name: '从历史学习' }).click();
      await unsupported.getByTestId('history-unsupported').getByText('不支持读取群历史消息').waitFor();
      await shoot(page, 'groups-history');

      const activity = await fetch(`${base}/api/activity?kind=history_seed`, { headers: { 'x-chorus-token': READ } });
      const entries = (
        (await activity.json()) as { data: { items: { group_id: number; params: { depth: number } }[] } }
      ).data.items;
      assert.deepEqual(
        entries.map((entry) => [entry.group_id, entry.params.depth]).sort(),
        [
          [G1, 300],
          [G1, 40],
          [G2, 2000],
        ].sort(),
      );

      // Auto-seed switched on (applied when flipped): the group is seeded again by itself, and
      // reads nothing the last seed learned.
      await seed.getByRole('switch', { name: '开启学习或账号连接时自动从历史学习' }).click();
      await seed.getByText('完成：已学习 0 条，跳过 0 条（共读取 0 条）').waitFor();
      await shoot(page, 'groups-history-auto');

      // The phone width.
      const phone = await open(390);
      await phone
        .getByTestId(`history-${G1}`)
        .getByText(/完成：已学习/)
        .waitFor();
      await phone.getByTestId(`history-${G2}`).getByTestId('history-unsupported').waitFor();
      await shoot(phone, 'groups-history');

      // A read-only session sees the state but cannot start a seed.
      const reader = await open(1280, READ);
      await reader
        .getByTestId(`history-${G1}`)
        .getByText(/完成：已学习/)
        .waitFor();
      assert.equal(
        await reader.getByTestId(`history-${G1}`).getByRole('button', { name: '从历史学习' }).isDisabled(),
        true,
      );
      assert.deepEqual(problems, []);
    });
  },
);
