/**
 * The console's database page in headless Chromium against a real Chorus (`startService`, SQLite,
 * the built SPA, real HTTP) with a scripted OneBot account filling the chat log: the overview of
 * the tables, a backup whose progress the page follows to the end, the restore's confirmation
 * dialog, retention previewed and applied, a corpus exported and a corpus file uploaded and
 * imported (its phrase then answered by the bot). Screenshots go to test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { exportCorpus } from '../../src/ops/corpus-file/index.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { openStore } from '../../src/store/open-store.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { DEFAULT_REPLY } from '../support/engines.ts';
import { BROWSER_WAIT_MS, logIn } from '../support/page-problems.ts';
import { answerConfirm } from '../support/confirm-dialog.ts';

const WRITE = 'browser-db-write-token-not-secret';
const GROUP = 301;
const PHRASE = '周五晚上去唱歌吗';
const ANSWER = '必须去我来订包厢';
const SHOTS = join(OUTPUT, 'screenshots');
const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string) => describeText(text, text, KEYWORDS).keywords;

describe('database page in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let service: RunningService;
  let browser: Browser;
  let peer: OneBotPeer;
  let base: string;
  let corpusFile: string;
  let badFile: string;

  before(async () => {
    if (!HAVE_CHROMIUM) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs it`);
    dir = await mkdtemp(join(tmpdir(), 'chorus-browser-db-'));
    const webRoot = await sharedWebBuild();
    await mkdir(SHOTS, { recursive: true });
    // A corpus file to upload, written by the exporter.
    const source = await openStore({ databaseUrl: '', dataDir: join(dir, 'source'), poolMax: 1, reply: DEFAULT_REPLY });
    await source.corpus.importContexts([
      {
        keywords: keywordsOf(PHRASE),
        time: 1_700_000_000,
        triggerCount: 5,
        clearTime: 0,
        answers: [{ keywords: keywordsOf(ANSWER), groupId: GROUP, count: 6, time: 1_700_000_000, messages: [ANSWER] }],
        bans: [],
      },
      ...Array.from({ length: 120 }, (_, i) => ({
        keywords: `导入话题${i}`,
        time: 1_700_000_000,
        triggerCount: 1,
        clearTime: 0,
        answers: [
          { keywords: `导入回答${i}`, groupId: GROUP, count: 2, time: 1_700_000_000, messages: [`导入回答${i}`] },
        ],
        bans: [],
      })),
    ]);
    corpusFile = join(dir, 'corpus.jsonl.gz');
    await exportCorpus(source.corpus, corpusFile, { generator: 'browser test', nowSec: 1_700_000_000 });
    await source.close();
    // A file whose third line is not JSON: two contexts are imported before it.
    badFile = join(dir, 'bad.jsonl.gz');
    const good = (i: number) =>
      JSON.stringify({ keywords: `坏文件话题${i}`, time: 1, trigger_count: 1, clear_time: 0, answers: [], bans: [] });
    await writeFile(
      badFile,
      gzipSync(
        `${JSON.stringify({ format: 'chorus-corpus', version: 1, contexts: 3 })}\n${good(1)}\n${good(2)}\n{oops\n`,
      ),
    );

    const port = await freePort();
    service = await startService({
      projectDir: dir,
      webRoot,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: WRITE,
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
        CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
        CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
        CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
      },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
    });
    base = `http://127.0.0.1:${port}/chorus`;
    peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: 40001 });
    // Some chat in the log, for the overview and retention.
    for (let i = 0; i < 40; i++) peer.groupMessage({ groupId: GROUP, userId: 100 + (i % 5), text: `闲聊第${i}句话` });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await peer?.close().catch(() => undefined);
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const shoot = (page: Page, name: string) =>
    page.screenshot({ path: join(SHOTS, `${name}-${page.viewportSize()?.width ?? 0}.png`), fullPage: true });
  /** Waits until the job panel says the job ended; answers its text. */
  const jobEnds = async (page: Page, action: string) => {
    const panel = page.getByTestId('db-job');
    // The panel's title; the job's message may name the action too (「备份 … 已写入」). A refused
    // start shows an alert instead: fail with its words rather than wait out the timeout.
    const alert = page.locator('.error-note');
    await panel.getByText(action, { exact: true }).or(alert).first().waitFor();
    if (await alert.isVisible()) assert.fail(`${action} did not start: ${await alert.innerText()}`);
    await page.locator('[data-test="db-job"] .n-progress--success, [data-test="db-job"] .n-progress--error').waitFor({
      timeout: 30_000,
    });
    return panel.innerText();
  };

  it('overview, backup with progress, restore dialog, retention, export and import', { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    // The chat log is written in batches: wait until the peer's messages are in it.
    for (let rows = 0; rows < 40; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const overview = (await (
        await fetch(`${base}/api/db/overview`, { headers: { 'x-chorus-token': WRITE } })
      ).json()) as { data: { tables: { name: string; rows: number }[] } };
      rows = overview.data.tables.find((table) => table.name === 'message')?.rows ?? 0;
    }
    await logIn(page, base, WRITE);
    await page.getByRole('menuitem', { name: '数据库' }).click();
    await page.locator('h1.page-title', { hasText: '数据库' }).waitFor();

    // The overview: every table with its rows; the chat log holds what the peer said.
    const overview = page.getByTestId('db-overview');
    // Tables in words, their SQL names in data-table (and the tooltip).
    await overview.getByText('回答的来源消息').waitFor();
    const messageRow = overview.locator('tr').filter({ has: page.locator('[data-table="message"]') });
    assert.ok(Number((await messageRow.innerText()).split(/\s+/).pop()) >= 40);
    // The picture cache of learned pictures (src/onebot/media-cache.ts), worded in Chinese.
    const media = await page.getByTestId('db-media').innerText();
    assert.match(media, /图片缓存[\s\S]*图片数: 0[\s\S]*命中: 0[\s\S]*未命中: 0[\s\S]*淘汰: 0/);

    // A backup: the page follows its progress to the end and lists it.
    await page.locator('[data-test="db-backups"] input').fill('browser');
    await page.getByTestId('backup-start').locator('button').click();
    assert.match(await jobEnds(page, '备份'), /备份 chorus-.*-browser\.db 已写入（\d+ 字节）/);
    const row = page.locator('[data-test="db-backups"] tr', { hasText: '-browser.db' });
    await row.waitFor();
    await shoot(page, 'database');
    // Restore asks first, saying what it does; cancelled here (the restore itself: db-backup-e2e).
    await row.getByTestId('backup-restore').locator('button').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('从备份恢复？').waitFor();
    assert.match(await dialog.innerText(), /将重启/);
    await shoot(page, 'database-restore-dialog');
    await dialog.getByRole('button', { name: '取消' }).click();
    await dialog.waitFor({ state: 'hidden' });

    // Retention: keep only the 10 newest rows of the chat log.
    const retention = page.getByTestId('db-retention');
    await retention.locator('input').nth(0).fill('');
    await retention.locator('input').nth(1).fill('10');
    await page.getByTestId('retention-preview').locator('button').click();
    const result = page.getByTestId('retention-result');
    await result.waitFor();
    const toDelete = Number(/将删除 (\d+) 行/.exec(await result.innerText())?.[1]);
    assert.ok(toDelete >= 30, `preview deletes ${toDelete}`);
    await result.getByRole('button', { name: '执行清理' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '确认' }).click();
    assert.match(await jobEnds(page, '清理聊天记录'), new RegExp(`${toDelete} message log rows deleted`));

    // Import a corpus file through the page; the bot answers its phrase.
    await page.getByTestId('import-file').setInputFiles(corpusFile);
    await page.getByTestId('import-start').locator('button').click();
    await answerConfirm(page, /导入语料？[\s\S]*合并进语料库/, '上传并导入');
    await jobEnds(page, '导入语料');
    assert.match(await page.getByTestId('import-report').innerText(), /读取 121 个上下文：新增 121/);
    await shoot(page, 'database-imported');
    peer.groupMessage({ groupId: GROUP, userId: 999, text: PHRASE });
    const [reply] = await peer.nextSent(1, 10_000);
    assert.equal(reply?.message, ANSWER);

    // Export, anonymised: a link to download it appears and serves the file.
    await page.getByTestId('db-corpus-file').getByRole('switch').first().click();
    await page.getByTestId('export-start').locator('button').click();
    assert.match(await jobEnds(page, '导出语料'), /已导出 \d+ 个上下文/);
    const link = page.getByTestId('export-download');
    const href = (await link.getAttribute('href')) ?? '';
    assert.match(href, /-anon-/);
    const download = await page.request.get(new URL(href, base).toString());
    assert.equal(download.status(), 200);
    assert.ok((await download.body()).length > 100);
    await shoot(page, 'database-exported');

    // A file with a bad line: the failure names the line and says what was kept, in Chinese.
    await page.getByTestId('import-file').setInputFiles(badFile);
    await page.getByTestId('import-start').locator('button').click();
    await answerConfirm(page, /导入语料？/, '上传并导入');
    await page.locator('[data-test="db-job"] .n-progress--error').waitFor({ timeout: 30_000 });
    assert.equal(
      await page.getByTestId('db-job-message').innerText(),
      '第 4 行：不是有效的 JSON。此前的 2 个上下文已导入并保留（新增 2，合并 0）；修正文件后再次导入是安全的。',
    );
    await shoot(page, 'database-import-failed');

    // Phone width: the page still renders.
    await page.setViewportSize({ width: 390, height: 844 });
    await shoot(page, 'database');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
