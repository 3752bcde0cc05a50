/**
 * The 智能体 page in headless Chromium against a real Chorus (`startService`: real HTTP, the built
 * SPA, SQLite in a temporary project) with a language model configured (the stand-in's address;
 * the ledger rows are written through the store, the calls themselves are tested end to end in
 * test/integration/agent-chat-e2e.test.ts): the overview cards and the ledger in Chinese, at 1280
 * and 390 px; the API key never on the page; then the model switched off in the settings (HTTP)
 * and the page's empty state saying how to configure it. Also the routes' 400 naming the field
 * and the settings section's masked key. Screenshots: test-output/screenshots/agent-*.png.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/app/service.ts';
import { AgentChatLedgerStore } from '../../src/store/agent-chat-ledger.ts';
import { CHROMIUM, HAVE_CHROMIUM, IN_CI, launchChromium, OUTPUT, sharedWebBuild } from '../support/browser.ts';
import { freePort } from '../support/chorus-process.ts';
import { logIn, watchProblems } from '../support/page-problems.ts';
import { startModelStandIn, type ModelStandIn } from '../support/model-stand-in.ts';

const READ = 'agent-browser-read-token';
const WRITE = 'agent-browser-write-token';
const KEY = 'sk-agent-browser-secret-77';
const SHOTS = join(OUTPUT, 'screenshots');

describe('智能体 page in Chromium', { skip: !HAVE_CHROMIUM && !IN_CI ? `no Chromium at ${CHROMIUM}` : false }, () => {
  let dir: string;
  let service: RunningService;
  let browser: Browser;
  let model: ModelStandIn;
  let base: string;

  const shoot = async (page: Page, name: string) => {
    await page.waitForTimeout(300);
    await page.screenshot({
      path: join(SHOTS, `agent-${name}-${page.viewportSize()?.width ?? 0}.png`),
      fullPage: true,
    });
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const reply = await fetch(`${base}/api${path}`, {
      method,
      headers: { 'x-chorus-token': WRITE, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: reply.status, json: await reply.json() };
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-agent-browser-'));
    const webRoot = await sharedWebBuild();
    await mkdir(SHOTS, { recursive: true });
    model = await startModelStandIn();
    const port = await freePort();
    service = await startService({
      projectDir: dir,
      webRoot,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_DATA_DIR: dir,
        CHORUS_CONSOLE_TOKEN: READ,
        CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
        CHORUS_LLM_BASE_URL: model.baseUrl,
        CHORUS_LLM_API_KEY: KEY,
        CHORUS_LLM_MODEL: 'qwen2.5:7b',
        CHORUS_LLM_GROUP_DAILY_CALLS: '300',
      },
      logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
    });
    base = `http://127.0.0.1:${port}/chorus`;
    const ledger = new AgentChatLedgerStore(service.store.engine);
    const outcomes = ['ok', 'ok', 'timeout', 'over_budget', 'ok', 'http_error'];
    for (const [i, outcome] of outcomes.entries()) {
      const called = outcome !== 'over_budget';
      await ledger.add({
        at: Date.now() - (outcomes.length - i) * 60_000,
        selfId: 10_001,
        groupId: 123_456 + (i % 2),
        userId: 42 + i,
        role: i === 4 ? 'background' : 'chat',
        model: called ? 'qwen2.5:7b' : '',
        promptTokens: outcome === 'ok' ? 300 + i : 0,
        completionTokens: outcome === 'ok' ? 20 : 0,
        latencyMs: called ? 400 + i * 10 : 0,
        outcome,
      });
    }
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('routes: the ledger pages, a bad limit is a 400 naming the field, the key is masked', async () => {
    const page = await api('GET', '/llm/agent-platform/ledger?limit=4');
    assert.equal(page.status, 200);
    assert.equal(page.json.data.items.length, 4);
    const rest = await api('GET', `/llm/agent-platform/ledger?limit=4&before=${page.json.data.next_before}`);
    assert.equal(rest.json.data.items.length, 2);
    assert.equal(rest.json.data.next_before, null);
    const bad = await api('GET', '/llm/agent-platform/ledger?limit=0');
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.json), /limit/);
    const overview = await api('GET', '/llm/agent-platform/overview');
    assert.equal(overview.json.data.today.calls, 5, 'the refusal is no call');
    assert.equal(overview.json.data.today.tokens, 3 * 20 + 300 + 301 + 304);
    const section = await api('GET', '/common-config/language_model');
    assert.equal(section.status, 200);
    const keyRow = (section.json.data.fields as { env_key: string; current: unknown; is_set?: boolean }[]).find(
      (f) => f.env_key === 'CHORUS_LLM_API_KEY',
    );
    assert.deepEqual([keyRow?.current, keyRow?.is_set], ['', true]);
    assert.ok(!JSON.stringify(section.json).includes(KEY));
  });

  it('shows the overview and the ledger in Chinese at 1280 and 390 px, then how to configure once off', async () => {
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      const problems = watchProblems(page);
      await logIn(page, base, READ);
      await page.goto(`${base}/agent`);
      await page.getByTestId('agent-cards').waitFor();
      const cards = await page.getByTestId('agent-cards').innerText();
      assert.match(cards, /qwen2\.5:7b/);
      assert.match(cards, /今日调用/);
      assert.match(cards, /每群：300 次/);
      const ledger = page.getByTestId('agent-ledger');
      await ledger.getByText('超时').waitFor();
      assert.equal(await ledger.locator('tbody tr').count(), 6);
      assert.match(await ledger.innerText(), /超出额度/);
      assert.ok(!(await page.content()).includes(KEY), 'the key is never on the page');
      await shoot(page, 'on');
      assert.deepEqual(problems, []);
      await page.close();
    }

    const off = await api('PUT', '/common-config/language_model', { values: { base_url: '' } });
    assert.equal(off.status, 200, JSON.stringify(off.json));
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      const problems = watchProblems(page);
      await logIn(page, base, READ);
      await page.goto(`${base}/agent`);
      const empty = page.getByTestId('agent-off');
      await empty.waitFor();
      const text = await empty.innerText();
      assert.match(text, /还没有配置语言模型/);
      assert.match(text, /CHORUS_LLM_BASE_URL=http:\/\/127\.0\.0\.1:11434\/v1/);
      assert.equal(await page.getByTestId('agent-ledger').count(), 0);
      await shoot(page, 'off');
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
});
