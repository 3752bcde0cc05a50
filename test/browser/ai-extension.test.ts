/**
 * The AI extension page (AI 扩展) in headless Chromium against a real Chorus (`startService`: real
 * HTTP, the built SPA, SQLite in a temporary project). Outside the project there are stand-ins on
 * this machine only: the AI service on 127.0.0.1 (its /health, /api/ops/logs behind its
 * CHORUS_AI_API_TOKEN, and the music-service login) and a local bare git repository as the
 * runtime's upstream, whose bootstrap prints progress and fails when told to.
 * Covered: install with its live progress and every output line (equal to the job's own), a
 * failing update with its exit code, a working update, a page reloaded mid-job and a job stream
 * cut mid-job (replayed once, nothing doubled); the form's 400 naming the field, the save and its
 * sync note, the defaults an install wrote back, the probe (healthy, then a 500); the log viewer's
 * local tail, live tail resuming after a cut connection, kind switch to the AI service and the hint; the music-service login; no
 * phone number or token in Chorus's log; a read-only session; the page in English; an AI service
 * on another host (install and update refused, the page says why).
 * Screenshots at 1280 and 390 px go to test-output/screenshots/ai-*.png.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { AiServiceStandIn } from '../fixtures/ai-service.ts';
import { createAiRepo, type AiRepo } from '../fixtures/ai-repo.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { waitUntil, watchProblems as watch, logIn } from '../support/page-problems.ts';
import { answerConfirm } from '../support/confirm-dialog.ts';

const READ = 'ai-browser-read-token';
const WRITE = 'ai-browser-write-token';
const AI_TOKEN = 'ai-side-token-2468';
const PHONE = '13987654321';
const SHOTS = join(OUTPUT, 'screenshots');
const BOOTSTRAP_LINES = [
  'bootstrap: version 1',
  ...[1, 2, 3, 4, 5].map((i) => `step ${i}/5: preparing`),
  'bootstrap: token in env: none',
  'bootstrap done',
];

describe(
  'AI extension page in Chromium',
  { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false },
  () => {
    let dir: string;
    let service: RunningService;
    let browser: Browser;
    let ai: AiServiceStandIn;
    let repo: AiRepo;
    let base: string;
    let managedRoot: string;
    let aiLogs: string;
    const logText: string[] = [];
    /** Streams the test cuts on purpose (their failed request is expected). */
    const droppedStreams: string[] = [];
    /** Error answers a step provokes on purpose. */
    const expectedProblems: string[] = [];

    /** After the transitions of what just loaded (spinners fade out). */
    const shoot = async (page: Page, name: string) => {
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(SHOTS, `ai-${name}-${page.viewportSize()?.width ?? 0}.png`), fullPage: true });
    };
    /** Write buttons by their label (the NCM card's are looked for inside it: the header has a logout too). */
    const button = (page: Page, name: string, inNcm = false) =>
      (inNcm ? page.getByTestId('ai-ncm') : page.locator('main')).getByRole('button', { name, exact: true });
    const text = (page: Page, id: string) => page.getByTestId(id).innerText();
    const api = async <T>(path: string): Promise<T> => {
      const reply = await fetch(`${base}/api${path}`, { headers: { 'x-chorus-token': READ } });
      return ((await reply.json()) as { data: T }).data;
    };

    /** The id of the next install job the page starts. */
    const jobIdOf = async (page: Page): Promise<string> => {
      const reply = await page.waitForResponse(
        (r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/api/ai-extension/install'),
      );
      return ((await reply.json()) as { data: { job_id: string } }).data.job_id;
    };
    const jobLines = async (id: string) =>
      (await api<{ log_lines: string[] }>(`/ai-extension/install/jobs/${id}`)).log_lines;

    before(async () => {
      if (!HAVE_CHROMIUM) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs it`);
      dir = await mkdtemp(join(tmpdir(), 'chorus-ai-browser-'));
      const webRoot = await sharedWebBuild();
      await mkdir(SHOTS, { recursive: true });
      repo = await createAiRepo(dir);
      aiLogs = join(dir, 'ai-service-logs');
      await mkdir(aiLogs);
      ai = await AiServiceStandIn.start({ token: AI_TOKEN, logDir: aiLogs });
      const port = await freePort();
      const projectDir = join(dir, 'project');
      await mkdir(projectDir);
      service = await startService({
        projectDir,
        webRoot,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          CHORUS_PORT: String(port),
          CHORUS_CONSOLE_TOKEN: READ,
          CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
          CHORUS_DEPLOYMENT: 'source',
          CHORUS_AI_REPO_URL: repo.url,
          // Nothing listens here until the config points at the stand-in (a runtime already
          // answering would be one Chorus did not install, and installs would be refused).
          CHORUS_AI_SERVER_PORT: String(await freePort()),
        },
        ai: {
          siblingRoot: null,
          sharedLogDir: null,
          timing: { updateCheckTtlMs: 0, localPollMs: 100, remotePollMs: 200, retryMs: 200 },
        },
        logDestination: new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            logText.push(chunk.toString('utf8'));
            done();
          },
        }),
      });
      base = `http://127.0.0.1:${port}/chorus`;
      managedRoot = join(projectDir, 'data', 'runtimes', 'ai');
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await service?.stop();
      await ai?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('installs, updates, configures, probes, reads logs and logs in to the music service', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems = watch(page);
      try {
        await walkThrough(page);
      } catch (error) {
        await shoot(page, 'failure');
        throw error;
      }
      // The stream cut on purpose is the one failed request allowed.
      assert.deepEqual(
        problems
          .filter((problem) => !expectedProblems.includes(problem))
          .filter(
            (problem) => !(problem.startsWith('failed:') && droppedStreams.some((path) => problem.includes(path))),
          ),
        [],
      );
      await page.close();
    });

    async function walkThrough(page: Page): Promise<void> {
      const streamRequests: string[] = [];
      page.on('request', (request) => streamRequests.push(request.url()));
      await logIn(page, base, WRITE);
      await page.getByRole('menuitem', { name: 'AI 扩展' }).click();
      await page.locator('h1.page-title', { hasText: 'AI 扩展' }).waitFor();
      assert.match(await page.locator('.ai-intro').innerText(), /普通聊天不需要它/);

      // Install: nothing here yet; clone and bootstrap with a live bar and every output line.
      assert.equal(await text(page, 'ai-layout'), '未安装');
      const installId = jobIdOf(page);
      await button(page, '克隆并安装').click();
      await answerConfirm(page, /AI 扩展：克隆并安装？[\s\S]*安装脚本/, '克隆并安装');
      await page.getByTestId('ai-job-done').waitFor();
      const shown = (await text(page, 'ai-job-lines')).split('\n');
      for (const line of BOOTSTRAP_LINES) assert.ok(shown.includes(line), `${line} shown: ${shown.join(' | ')}`);
      assert.deepEqual(shown, await jobLines(await installId), 'every output line of the job, in order');
      const finished = await api<{ job_id: string }[] | null>('/ai-extension/install/jobs/active');
      assert.equal(finished, null, 'no job runs any more');
      assert.equal(await page.getByTestId('ai-job-progress').getAttribute('aria-valuenow'), '100');
      await page.getByTestId('ai-layout').filter({ hasText: '托管目录' }).waitFor();
      // The defaults the install wrote back show in the form: the runtime's own log files.
      await page
        .getByTestId('ai-config')
        .locator(`input[value="${join(managedRoot, 'logs', 'uvicorn.log')}"]`)
        .waitFor();
      await shoot(page, 'installed');

      // An update that fails: the bar turns red and the exit code is shown; then one that works.
      await repo.commit('2', { FAIL: '3\n' });
      await page.getByTestId('ai-install-refresh').click();
      await page.getByTestId('ai-has-update').waitFor();
      await button(page, '更新').click();
      await answerConfirm(page, /AI 扩展：更新？/, '更新');
      await page.getByTestId('ai-job-failed').waitFor();
      assert.match(await text(page, 'ai-job-failed'), /exited with code 3/);
      assert.ok((await text(page, 'ai-job-lines')).includes('error: failing on purpose'));
      await shoot(page, 'update-failed');
      await repo.commit('3', { FAIL: null });
      await page.getByTestId('ai-install-refresh').click();
      await button(page, '更新').click();
      await answerConfirm(page, /AI 扩展：更新？/, '更新');
      await page.getByTestId('ai-job-done').waitFor();
      assert.ok((await text(page, 'ai-job-lines')).includes('bootstrap: version 3'));

      // A page opened (here: reloaded) while a job runs follows it, replayed from its first line.
      await repo.commit('4', { WAIT: '' });
      await page.getByTestId('ai-install-refresh').click();
      const waitingIdPromise = jobIdOf(page);
      await button(page, '更新').click();
      await answerConfirm(page, /AI 扩展：更新？/, '更新');
      const waitingId = await waitingIdPromise;
      await page.getByTestId('ai-job-lines').filter({ hasText: 'waiting for GO' }).waitFor();
      await page.reload();
      await page.getByTestId('ai-job-lines').filter({ hasText: 'waiting for GO' }).waitFor();
      assert.equal(await page.getByTestId('ai-job-done').count(), 0, 'still running');
      // The connection drops (Chorus closes every socket): EventSource reconnects by
      // itself, the job is replayed again, and the page shows it once, not twice.
      const streamOpens = () =>
        streamRequests.filter((url) => url.includes(`/install/jobs/${waitingId}/stream`)).length;
      const opened = streamOpens();
      service.server.server.closeAllConnections();
      droppedStreams.push(`/install/jobs/${waitingId}/stream`);
      await waitUntil('the job stream reconnected', () => streamOpens() > opened);
      await page.getByTestId('ai-job-lines').filter({ hasText: 'waiting for GO' }).waitFor();
      await writeFile(join(managedRoot, 'GO'), '');
      await page.getByTestId('ai-job-done').waitFor();
      const replayed = (await text(page, 'ai-job-lines')).split('\n');
      assert.ok(replayed.includes('bootstrap: version 4') && replayed.includes('got GO'), replayed.join(' | '));
      assert.deepEqual(replayed, await jobLines(waitingId), 'the replay lost or doubled nothing');

      // Bad input: the API's 400 names the field, shown in the card; nothing was saved.
      await page.getByTestId('ai-base-url').locator('input').fill('http:/');
      await button(page, '保存').click();
      await page.getByTestId('ai-config').getByRole('alert').filter({ hasText: 'base_url' }).waitFor();
      assert.match(
        await readFile(join(managedRoot, '..', '..', 'ai_extension.json'), 'utf8'),
        /"base_url": "http:\/\/127/,
      );
      expectedProblems.push('HTTP 400: PUT /chorus/api/ai-extension/config');

      // Config: point at the stand-in with its token; the answer says what was synced.
      await page.getByTestId('ai-base-url').locator('input').fill(ai.baseUrl);
      await page.getByTestId('ai-token').locator('input').fill(AI_TOKEN);
      await button(page, '保存').click();
      assert.match(await text(page, 'ai-saved'), new RegExp(`127\\.0\\.0\\.1:${ai.port}.*CHORUS_AI_API_TOKEN`));
      assert.match(await text(page, 'ai-saved'), /发给 AI 服务的令牌：控制台保存的令牌/, 'where the token comes from');
      assert.equal(service.config.current().ai.apiToken, AI_TOKEN);
      await page.getByTestId('ai-token').locator('input').waitFor();
      assert.equal(await page.getByTestId('ai-token').locator('input').inputValue(), '', 'the token is never shown');

      // Probe: healthy (with the summaries), then a 500.
      await button(page, '测试连接').click();
      await page.getByTestId('ai-probe').filter({ hasText: '连接正常' }).waitFor();
      assert.match(await text(page, 'ai-probe'), /legacy runtime idle/);
      assert.equal(ai.requests.find((r) => r.path === '/health')?.authorization, `Bearer ${AI_TOKEN}`);
      ai.healthStatus = 500;
      await button(page, '测试连接').click();
      await page.getByTestId('ai-probe').filter({ hasText: '连接失败' }).waitFor();
      assert.match(await text(page, 'ai-probe'), /HTTP 500/);
      ai.healthStatus = 200;

      // Logs: the installed runtime's own file first, then live lines as they are written.
      const logs = page.getByTestId('ai-logs');
      await logs.getByTestId('ai-log-source').filter({ hasText: '本机文件' }).waitFor();
      assert.match(await text(page, 'ai-log-lines'), /runtime started/);
      await page.getByTestId('ai-log-live').click();
      await page.waitForTimeout(300);
      await appendFile(join(managedRoot, 'logs', 'uvicorn.log'), 'live line one\nlive line two\n');
      await logs.getByText('live line two').waitFor();
      await shoot(page, 'logs-live');
      // The connection drops: EventSource reconnects with the last line's id (a byte offset) as
      // Last-Event-ID and the stream goes on from there, nothing lost or repeated.
      const uvicornLog = join(managedRoot, 'logs', 'uvicorn.log');
      const logOpens = () => streamRequests.filter((url) => url.includes('/ai-extension/logs/stream')).length;
      const logOpened = logOpens();
      droppedStreams.push('/ai-extension/logs/stream');
      service.server.server.closeAllConnections();
      await appendFile(uvicornLog, 'written while cut\n');
      await waitUntil('the log stream reconnected', () => logOpens() > logOpened);
      await appendFile(uvicornLog, 'after the cut\n');
      await logs.getByText('after the cut').waitFor();
      const fileLines = (await readFile(uvicornLog, 'utf8')).trimEnd().split('\n');
      assert.deepEqual((await text(page, 'ai-log-lines')).split('\n'), fileLines);
      // Kind switch: no celery file here, so the AI service is asked with the token, and followed.
      await writeFile(join(aiLogs, 'celery.log'), 'celery one\ncelery two\n');
      await page.getByTestId('ai-log-kind').getByText('celery', { exact: true }).click();
      await logs.getByTestId('ai-log-source').filter({ hasText: 'AI 服务' }).waitFor();
      await logs.getByText('celery two').waitFor();
      await appendFile(join(aiLogs, 'celery.log'), 'celery three\n');
      await logs.getByText('celery three').waitFor();
      const opsLogs = ai.requests.filter((r) => r.path === '/api/ops/logs');
      assert.ok(opsLogs.length > 0 && opsLogs.every((r) => r.authorization === `Bearer ${AI_TOKEN}`));
      // Nothing anywhere for celery-media: the hint names what was tried.
      await page.getByTestId('ai-log-live').click();
      await page.getByTestId('ai-log-kind').getByText('celery-media', { exact: true }).click();
      await page.getByTestId('ai-log-hint').waitFor();
      assert.match(await text(page, 'ai-log-hint'), /celery-media/);

      // Music-service login: code sent, a wrong code refused, the right one logs in, then logout.
      const ncm = page.getByTestId('ai-ncm');
      await ncm.getByTestId('ai-ncm-state').filter({ hasText: '未登录' }).waitFor();
      await page.getByTestId('ai-ncm-phone').locator('input').fill(PHONE);
      await button(page, '发送验证码').click();
      await page.getByTestId('ai-ncm-result').filter({ hasText: '验证码已发送' }).waitFor();
      await page.getByTestId('ai-ncm-captcha').locator('input').fill('9999');
      await button(page, '登录', true).click();
      await page.getByTestId('ai-ncm-result').filter({ hasText: 'wrong code' }).waitFor();
      await page.getByTestId('ai-ncm-captcha').locator('input').fill('1234');
      await button(page, '登录', true).click();
      await ncm.getByTestId('ai-ncm-state').filter({ hasText: '已登录 · listener' }).waitFor();
      await shoot(page, 'page');
      await button(page, '退出登录', true).click();
      await answerConfirm(page, /退出网易云音乐登录？/, '退出登录');
      await ncm.getByTestId('ai-ncm-state').filter({ hasText: '未登录' }).waitFor();
      const sent = ai.requests.find((r) => r.path === '/api/ncm/login/cellphone/send-sms');
      assert.deepEqual(sent?.body, { phone: PHONE, ctcode: 86 });
      assert.ok(logText.length > 0, 'Chorus logged');
      assert.ok(!logText.join('').includes(PHONE), 'no phone number in any log line');
      assert.ok(!logText.join('').includes(AI_TOKEN), 'no token in any log line');

      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await page.locator('h1.page-title', { hasText: 'AI 扩展' }).waitFor();
      await page.getByTestId('ai-log-source').waitFor();
      await page.getByTestId('ai-layout').waitFor();
      await shoot(page, 'page');
    }

    it('a read-only session sees the page, its status and logs, with every write control disabled', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems = watch(page);
      await logIn(page, base, READ);
      await page.goto(`${base}/ai-extension`);
      await page.locator('h1.page-title', { hasText: 'AI 扩展' }).waitFor();
      await page.getByTestId('ai-layout').filter({ hasText: '托管目录' }).waitFor();
      await page.getByTestId('ai-log-source').filter({ hasText: '本机文件' }).waitFor();
      for (const name of ['保存', '测试连接', '运行安装脚本'])
        assert.equal(await button(page, name).isDisabled(), true, `${name} disabled`);
      assert.equal(await button(page, '发送验证码', true).isDisabled(), true);
      await page.getByTestId('ai-log-live').click();
      await page.getByTestId('ai-log-source').filter({ hasText: '本机文件' }).waitFor();
      await appendFile(join(managedRoot, 'logs', 'uvicorn.log'), 'read session line\n');
      await page.getByTestId('ai-log-lines').filter({ hasText: 'read session line' }).waitFor();
      await shoot(page, 'readonly');
      // English: every text of the page has its English (vue-i18n warns about a missing key).
      const missing: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'warning' && m.text().includes('Not found')) missing.push(m.text());
      });
      await page.evaluate("localStorage.setItem('chorus.locale', 'en')");
      await page.reload();
      await page.locator('h1.page-title', { hasText: 'AI extension' }).waitFor();
      await page.getByTestId('ai-layout').filter({ hasText: 'Managed folder' }).waitFor();
      await page.getByText('Install and update').waitFor();
      await page.getByTestId('ai-log-source').filter({ hasText: 'Local file' }).waitFor();
      await page.getByTestId('ai-ncm-state').waitFor();
      await shoot(page, 'readonly-en');
      assert.deepEqual(missing, []);
      assert.equal(
        await page
          .locator('main')
          .getByText(/[\u4e00-\u9fff]/)
          .count(),
        0,
        'no Chinese left on the English page',
      );
      assert.deepEqual(problems, []);
      await page.close();
    });

    it('an AI service on another host: the page says why nothing can be installed or updated', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems = watch(page);
      await logIn(page, base, WRITE);
      await page.goto(`${base}/ai-extension`);
      await page.getByTestId('ai-layout').filter({ hasText: '托管目录' }).waitFor();
      await repo.commit('5');
      // 192.0.2.1 is a documentation address: nothing answers there.
      await page.getByTestId('ai-base-url').locator('input').fill('http://192.0.2.1:9099');
      await button(page, '保存').click();
      await page.getByTestId('ai-saved').waitFor();
      await page.getByTestId('ai-forbidden').filter({ hasText: '另一台主机（192.0.2.1）' }).waitFor();
      await page.getByTestId('ai-has-update').waitFor();
      for (const name of ['更新', '运行安装脚本', '克隆并安装'])
        assert.equal(await button(page, name).count(), 0, name);
      await shoot(page, 'forbidden');
      assert.deepEqual(problems, []);
      await page.close();
    });
  },
);
