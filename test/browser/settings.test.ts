/**
 * The settings page as an operator uses it, against a real `chorus serve` (supervised, a project
 * folder with a .env) in Chromium at desktop and phone width, in Chinese and English: labels in
 * the reader's language (no raw key such as cooldown_sec in Chinese), the search, 恢复默认
 * bringing back the value of .env, the restart button restarting the service through the
 * supervisor with the page reconnecting by itself, and a read session that cannot type into a
 * field nor download a backup (403 over real HTTP).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort, runChorus, type ChorusProcess } from '../support/chorus-process.ts';
import { logIn, watchProblems } from '../support/page-problems.ts';

const READ = 'settings-read-token-not-secret';
const WRITE = 'settings-write-token-not-secret';
const SHOTS = join(OUTPUT, 'screenshots');
const COOLDOWN = '#field-repeater-cooldown_sec';

describe('settings page in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let chorus: ChorusProcess;
  let browser: Browser;
  let base: string;

  before(async () => {
    const webRoot = await sharedWebBuild();
    dir = await mkdtemp(join(tmpdir(), 'chorus-settings-'));
    const port = await freePort();
    // The operator's .env: the value 恢复默认 must bring back.
    await writeFile(
      join(dir, '.env'),
      [
        `CHORUS_PORT=${port}`,
        `CHORUS_CONSOLE_TOKEN=${READ}`,
        `CHORUS_CONSOLE_WRITE_TOKEN=${WRITE}`,
        'CHORUS_REPEATER_COOLDOWN_SEC=7',
      ].join('\n') + '\n',
    );
    chorus = runChorus(['serve', '--project-dir', dir, '--web-root', webRoot], {});
    await chorus.waitFor(/console listening at/);
    base = `http://127.0.0.1:${port}/chorus`;
    browser = await launchChromium();
    await mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    chorus?.child.kill('SIGTERM');
    await chorus?.exited;
    await rm(dir, { recursive: true, force: true });
  });

  const open = async (token: string, width: number, locale: 'zh' | 'en'): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 900 } });
    const page = await context.newPage();
    // The login page is in Chinese (logIn presses 登录); the language is chosen afterwards.
    await logIn(page, base, token);
    await page.evaluate(`localStorage.setItem('chorus.locale', '${locale}')`);
    await page.goto(`${base}/settings`);
    // The repeater's section holds the field the tests use; the first section is open, this one is not.
    await page
      .locator('.n-collapse-item__header', { hasText: locale === 'zh' ? '复读与回复' : 'Repeating and replying' })
      .click();
    await page.locator(COOLDOWN).waitFor();
    return page;
  };

  for (const width of [1280, 390]) {
    it(`labels in Chinese and English, search (${width} px)`, async () => {
      const zh = await open(WRITE, width, 'zh');
      const problems = watchProblems(zh);
      const text = await zh.locator('main, body').first().innerText();
      assert.match(text, /回复后冷却/);
      assert.match(text, /来源: 环境变量（\.env 文件）/);
      assert.doesNotMatch(text, /cooldown_sec|answer_threshold|Source:|restart required/);
      assert.equal(await zh.title(), '设置 · Chorus');
      await zh.screenshot({ path: join(SHOTS, `settings-zh-${width}.png`), fullPage: false });
      await zh.getByTestId('settings-search').locator('input').fill('冷却');
      await zh.locator('.field').first().waitFor();
      const labels = await zh.locator('.n-form-item-label').allInnerTexts();
      assert.ok(
        labels.some((label) => label.includes('回复后冷却')),
        labels.join(','),
      );
      assert.ok(!labels.some((label) => label.includes('端口')), 'the search hides what does not match');
      await zh.screenshot({ path: join(SHOTS, `settings-search-zh-${width}.png`) });
      // The theme switch: as the system → light → dark, kept across a reload.
      await zh.getByTestId('theme').click();
      await zh.getByTestId('theme').click();
      await zh.waitForFunction("document.documentElement.style.colorScheme === 'dark'");
      await zh.reload();
      await zh.waitForFunction("document.documentElement.style.colorScheme === 'dark'");
      await zh.screenshot({ path: join(SHOTS, `settings-dark-zh-${width}.png`) });
      assert.deepEqual(problems, []);
      await zh.context().close();

      const en = await open(WRITE, width, 'en');
      const english = await en.locator('body').innerText();
      assert.match(english, /Quiet time after a reply/);
      assert.match(english, /Source: environment \(\.env file\)/);
      assert.equal(await en.title(), 'Settings · Chorus');
      await en.screenshot({ path: join(SHOTS, `settings-en-${width}.png`) });
      await en.context().close();
    });
  }

  it('恢复默认 brings back the value of .env', async () => {
    const page = await open(WRITE, 1280, 'zh');
    const field = page.locator(COOLDOWN);
    assert.equal(await field.inputValue(), '7');
    await field.fill('42');
    await field.blur();
    await page
      .locator('[data-field="cooldown_sec"]')
      .locator('xpath=ancestor::form')
      .getByRole('button', { name: '保存' })
      .click();
    const row = page.locator('[data-field="cooldown_sec"]');
    await row.getByText('来源: 控制台').waitFor();
    assert.equal(await field.inputValue(), '42');
    await row.getByTestId('reset-field').locator('button').click();
    await row.getByText('来源: 环境变量（.env 文件）').waitFor();
    assert.equal(await field.inputValue(), '7');
    // The service itself reads 7 again, not only the page.
    const api = await fetch(`${base}/api/plugins/repeater/config`, { headers: { 'x-chorus-token': READ } });
    const body = (await api.json()) as { data: { fields: { key: string; current: unknown; source: string }[] } };
    const cooldown = body.data.fields.find((f) => f.key === 'cooldown_sec');
    assert.deepEqual([cooldown?.current, cooldown?.source], [7, 'dotenv']);
    await page.context().close();
  });

  it('the restart button restarts the service and the page comes back by itself', async () => {
    const before = (await (await fetch(`${base}/api/service`, { headers: { 'x-chorus-token': READ } })).json()) as {
      data: { started_at_ms: number; restart_available: boolean };
    };
    assert.equal(before.data.restart_available, true);
    const page = await open(WRITE, 390, 'zh');
    await page.locator('.n-collapse-item__header', { hasText: '服务地址' }).click();
    // The section opens with an animation: a click that lands while it moves opens no dialog, so
    // the button is pressed until the confirmation shows (a bound of 30 s, not a timing).
    const confirm = page.locator('.n-dialog').getByRole('button', { name: '重启服务' });
    const deadline = Date.now() + 30_000;
    while (!(await confirm.isVisible())) {
      if (Date.now() > deadline) throw new Error('the restart confirmation never showed');
      await page.getByTestId('restart').first().locator('button').click();
      await confirm.waitFor({ timeout: 2_000 }).catch(() => undefined);
    }
    await confirm.click();
    await chorus.waitFor(/restart requested: starting the service again/);
    await page.getByTestId('restart-back').waitFor({ timeout: 90_000 });
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SHOTS, 'settings-restarted-zh-390.png') });
    const now = (await (await fetch(`${base}/api/service`, { headers: { 'x-chorus-token': READ } })).json()) as {
      data: { started_at_ms: number };
    };
    assert.ok(now.data.started_at_ms > before.data.started_at_ms, 'a new run of the service');
    await page.context().close();
  });

  it('a read session cannot type into a field nor download a backup', async () => {
    const page = await open(READ, 1280, 'zh');
    await page.getByTestId('read-only-reason').first().waitFor();
    const field = page.locator(COOLDOWN);
    assert.equal(await field.isDisabled(), true);
    await field.click({ force: true }).catch(() => undefined);
    await page.keyboard.type('99');
    assert.equal(await field.inputValue(), '7', 'typing changed nothing');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SHOTS, 'settings-read-zh-1280.png') });
    const download = await page.request.get(`${base}/api/db/backup/runs/download?name=chorus-x.db`);
    assert.equal(download.status(), 403);
    const rows = await fetch(`${base}/api/db/table-rows?table=message`, { headers: { 'x-chorus-token': READ } });
    assert.equal(rows.status, 403);
    const written = await fetch(`${base}/api/db/backup/runs/download?name=chorus-x.db`, {
      headers: { 'x-chorus-token': WRITE },
    });
    assert.equal(written.status, 404, 'the write level is let through (and told there is no such backup)');
    await page.context().close();
  });
});
