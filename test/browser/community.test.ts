/**
 * The community page in headless Chromium against a real Chorus (`startService`, SQLite, the built
 * SPA) that reads a real hub on loopback (src/hub/start.ts): the hub's statistics card shows the
 * deployments and bots the hub counts from their heartbeats. Screenshots in test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { startHub, type RunningHub } from '../../src/hub/start.ts';
import { silentLog } from '../../src/common/log.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { logIn, watchProblems } from '../support/page-problems.ts';

const WRITE = 'browser-community-write-token-not-secret';
const SHOTS = join(OUTPUT, 'screenshots');

describe(
  'community page in Chromium',
  { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false },
  () => {
    let dir: string;
    let hub: RunningHub;
    let service: RunningService;
    let browser: Browser;
    let base: string;

    before(async () => {
      if (!HAVE_CHROMIUM) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: .ci/run installs it`);
      dir = await mkdtemp(join(tmpdir(), 'chorus-browser-community-'));
      const webRoot = await sharedWebBuild();
      await mkdir(SHOTS, { recursive: true });
      hub = await startHub({ host: '127.0.0.1', port: 0, databaseUrl: '', dataDir: join(dir, 'hub'), log: silentLog });
      for (const bots of [2, 3, 4]) {
        const response = await fetch(`${hub.url}/v1/heartbeat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ deployment_id: randomUUID(), ts: Math.floor(Date.now() / 1000), online_bots: bots }),
        });
        assert.equal(response.status, 200);
      }
      const port = await freePort();
      service = await startService({
        projectDir: dir,
        webRoot,
        env: {
          CHORUS_PORT: String(port),
          CHORUS_CONSOLE_TOKEN: WRITE,
          CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
          CHORUS_CORPUS_COMMUNITY_API_BASE: hub.apiBase,
          CHORUS_CORPUS_COMMUNITY_TOKEN: 'a-manual-token-the-stats-do-not-need',
        },
        logDestination: new Writable({ write: (_c, _e, done) => done() }),
      });
      base = `http://127.0.0.1:${port}/chorus`;
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await service?.stop();
      await hub?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("shows the hub's deployments and bots online", { timeout: 120_000 }, async () => {
      for (const [width, height] of [
        [1280, 900],
        [390, 844],
      ] as const) {
        const context = await browser.newContext({ viewport: { width, height } });
        const page = await context.newPage();
        const problems = watchProblems(page);
        await logIn(page, base, WRITE);
        await page.goto(`${base}/community`);
        const card = page.getByTestId('community-stats');
        await card.getByText('在线部署 / 全部').waitFor();
        const text = (await card.innerText()).replace(/\s+/g, ' ');
        assert.match(text, /在线部署 \/ 全部 3 \/ 3/);
        assert.match(text, /在线机器人 9/);
        // Shared moderation: bans reported and withdrawals applied, counted (none yet here).
        const moderation = (await page.getByTestId('community-moderation').innerText()).replace(/\s+/g, ' ');
        assert.match(moderation, /已向中心举报 0 待发送的举报 0 中心撤下后已移除 0 本地学到而保留 0/);
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: join(SHOTS, `community-hub-${width}.png`), fullPage: true });
        assert.deepEqual(problems, []);
        await context.close();
      }
    });
  },
);
