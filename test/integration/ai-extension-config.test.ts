/**
 * The AI extension's config and connection test through the console over a
 * real port, against a stand-in AI service on loopback: the config file's normalisation on load and
 * save, unknown fields, the settings synced on save, concurrent saves; the probe's healthy, 500,
 * timeout and wrong-token answers (the NCM proxy is in ai-extension-ncm.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { AiServiceStandIn, type AiServiceOptions } from '../fixtures/ai-service.ts';
import { freePort } from '../support/chorus-process.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

interface AiConfig {
  base_url: string;
  api_prefix: string;
  token: string;
  token_set: boolean;
  health_paths: string[];
  uvicorn_log_file: string;
  celery_log_file: string;
  celery_media_log_file: string;
  timeout_sec: number;
}

const DEFAULTS: AiConfig = {
  base_url: 'http://127.0.0.1:9099',
  api_prefix: '/api',
  token: '',
  token_set: false,
  health_paths: ['/health'],
  uvicorn_log_file: '',
  celery_log_file: '',
  celery_media_log_file: '',
  timeout_sec: 8,
};

const configFile = (h: Harness) => join(h.config.current().dataDir, 'ai_extension.json');
const getConfig = async (h: Harness) =>
  dataOf<AiConfig>(await h.request('GET', '/ai-extension/config', { token: READ_TOKEN }));
const put = (h: Harness, body: unknown) => h.request('PUT', '/ai-extension/config', { token: WRITE_TOKEN, body });

async function standIn(t: TestContext, options: AiServiceOptions = {}): Promise<AiServiceStandIn> {
  const service = await AiServiceStandIn.start(options);
  t.after(() => service.close());
  return service;
}

describe('AI extension config (data/ai_extension.json)', () => {
  it('a missing, unparsable or non-object file gives the defaults', async (t) => {
    const h = await startHarness(t);
    assert.deepEqual(await getConfig(h), DEFAULTS);
    await writeFile(configFile(h), '{ not json');
    assert.deepEqual(await getConfig(h), DEFAULTS);
    await writeFile(configFile(h), '["a list"]');
    assert.deepEqual(await getConfig(h), DEFAULTS);
  });

  it('normalises every field on load: blanks, slashes, lists, clamps; unknown fields dropped; the token hidden', async (t) => {
    const h = await startHarness(t);
    const cases: [Record<string, unknown>, Partial<AiConfig>][] = [
      [{ base_url: 'http://10.0.0.5:9099///' }, { base_url: 'http://10.0.0.5:9099' }],
      [{ base_url: '   ' }, { base_url: DEFAULTS.base_url }],
      [{ base_url: 'ftp://host' }, { base_url: DEFAULTS.base_url }],
      [{ base_url: '127.0.0.1:7000' }, { base_url: 'http://127.0.0.1:7000' }],
      [{ api_prefix: 'v2/api/' }, { api_prefix: '/v2/api' }],
      [{ api_prefix: '' }, { api_prefix: '/api' }],
      [{ health_paths: ['', ' healthz', '/api/health', '  '] }, { health_paths: ['/healthz', '/api/health'] }],
      [{ health_paths: [] }, { health_paths: ['/health'] }],
      [{ health_paths: '/health' }, { health_paths: ['/health'] }],
      [{ timeout_sec: 1 }, { timeout_sec: 2 }],
      [{ timeout_sec: 99 }, { timeout_sec: 30 }],
      [{ timeout_sec: 'soon' }, { timeout_sec: 8 }],
      [{ timeout_sec: '12' }, { timeout_sec: 12 }],
      [{ timeout_sec: 5.7 }, { timeout_sec: 5 }],
      [
        { uvicorn_log_file: '  logs/api.log ', celery_log_file: 42 },
        { uvicorn_log_file: 'logs/api.log', celery_log_file: '' },
      ],
      [
        { token: 's3cret-token', extra: 'dropped' },
        { token: '', token_set: true },
      ],
    ];
    for (const [stored, expected] of cases) {
      await writeFile(configFile(h), JSON.stringify(stored));
      assert.deepEqual(await getConfig(h), { ...DEFAULTS, ...expected }, JSON.stringify(stored));
    }
    const text = JSON.stringify((await h.request('GET', '/ai-extension/config', { token: READ_TOKEN })).json);
    assert.ok(!text.includes('s3cret-token'), 'the token is never returned');
  });

  it('saves normalised (mode 0600), syncs host, port and token settings and says so', async (t) => {
    const h = await startHarness(t);
    const reply = await put(h, {
      base_url: 'http://localhost:9300/',
      api_prefix: 'api',
      token: 'ai-token-1234',
      health_paths: ['health', '', '/api/health'],
      timeout_sec: 5,
    });
    assert.equal(reply.status, 200, reply.text);
    const body = reply.json as Record<string, unknown>;
    assert.equal(body.ok, true);
    assert.deepEqual(body.data, {
      ...DEFAULTS,
      base_url: 'http://localhost:9300',
      token_set: true,
      health_paths: ['/health', '/api/health'],
      timeout_sec: 5,
    });
    assert.deepEqual(body.synced_ai_server, { host: 'localhost', port: 9300, changed: true });
    assert.equal(body.synced_ai_token, true);
    assert.equal(body.sync_error, null);

    const stored = JSON.parse(await readFile(configFile(h), 'utf8')) as AiConfig;
    assert.equal(stored.token, 'ai-token-1234');
    assert.equal(stored.base_url, 'http://localhost:9300');
    assert.equal((await stat(configFile(h))).mode & 0o777, 0o600);
    const snapshot = h.config.current();
    assert.deepEqual(
      [snapshot.ai.serverHost, snapshot.ai.serverPort, snapshot.ai.apiToken],
      ['localhost', 9300, 'ai-token-1234'],
    );
    assert.equal(snapshot.sourceOf('CHORUS_AI_SERVER_HOST'), 'console');
    const settings = JSON.parse(await readFile(h.settingsFile, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(
      [settings.CHORUS_AI_SERVER_HOST, settings.CHORUS_AI_SERVER_PORT, settings.CHORUS_AI_API_TOKEN],
      ['localhost', 9300, 'ai-token-1234'],
    );

    // The same again changes nothing; leaving the token out (or "") keeps it.
    const again = (
      await put(h, {
        base_url: 'http://localhost:9300',
        api_prefix: '/api',
        health_paths: ['/health', '/api/health'],
        timeout_sec: 5,
      })
    ).json as Record<string, unknown>;
    assert.deepEqual(again.synced_ai_server, { host: 'localhost', port: 9300, changed: false });
    assert.equal(again.synced_ai_token, false);
    assert.equal((await getConfig(h)).token_set, true);
    assert.equal((JSON.parse(await readFile(configFile(h), 'utf8')) as AiConfig).token, 'ai-token-1234');

    // https without a port is 443; null clears the token and its setting.
    const cleared = (await put(h, { base_url: 'https://ai.internal', token: null })).json as Record<string, unknown>;
    assert.deepEqual(cleared.synced_ai_server, { host: 'ai.internal', port: 443, changed: true });
    assert.equal(cleared.synced_ai_token, true);
    assert.equal(cleared.ai_token_source, 'none');
    assert.equal((await getConfig(h)).token_set, false);
    assert.equal(h.config.current().ai.apiToken, '');
    // A replace: fields left out are back to their defaults.
    assert.deepEqual((await getConfig(h)).health_paths, ['/health']);
    assert.ok(!h.logs().includes('ai-token-1234'), 'the token never reaches the log');
  });

  it('a save without a token keeps CHORUS_AI_API_TOKEN from the environment or .env, says so and reads logs with it', async (t) => {
    const logDir = await mkdtemp(join(tmpdir(), 'chorus-ai-token-'));
    t.after(() => rm(logDir, { recursive: true, force: true }));
    await writeFile(join(logDir, 'celery.log'), 'celery 1\ncelery 2\n');
    const ai = await standIn(t, { token: 'env-token-1234', logDir });
    const h = await startHarness(t, { env: { CHORUS_AI_API_TOKEN: 'env-token-1234' } });
    const tokenSetting = async () => {
      const settings = JSON.parse(await readFile(h.settingsFile, 'utf8')) as Record<string, unknown>;
      return settings.CHORUS_AI_API_TOKEN;
    };
    const celeryLog = async () =>
      dataOf<{ lines: string[]; error: string | null }>(
        await h.request('GET', '/ai-extension/logs', { token: READ_TOKEN, query: { kind: 'celery' } }),
      );

    // A config file naming the AI service and no token (as an older save left it): the log read
    // carries the token from the environment.
    await writeFile(configFile(h), JSON.stringify({ base_url: ai.baseUrl }));
    assert.deepEqual((await celeryLog()).lines, ['celery 1', 'celery 2']);
    const saved = (await put(h, { base_url: ai.baseUrl })).json as Record<string, unknown>;
    assert.deepEqual([saved.synced_ai_token, saved.ai_token_source, saved.sync_error], [false, 'env', null]);
    assert.equal(await tokenSetting(), undefined, 'no empty token in the console settings');
    assert.deepEqual(
      [h.config.current().ai.apiToken, h.config.current().sourceOf('CHORUS_AI_API_TOKEN')],
      ['env-token-1234', 'env'],
    );
    const read = await celeryLog();
    assert.deepEqual([read.lines, read.error], [['celery 1', 'celery 2'], null]);
    assert.ok(
      ai.requests
        .filter((request) => request.path === '/api/ops/logs')
        .every((r) => r.authorization === 'Bearer env-token-1234'),
    );

    // The same from .env.
    ai.token = 'dotenv-token-5678';
    await writeFile(join(h.dir, '.env'), 'CHORUS_AI_API_TOKEN=dotenv-token-5678\n');
    await h.config.reload();
    const fromDotenv = (await put(h, { base_url: ai.baseUrl, token: '' })).json as Record<string, unknown>;
    assert.deepEqual([fromDotenv.synced_ai_token, fromDotenv.ai_token_source], [false, 'dotenv']);
    assert.equal(h.config.current().ai.apiToken, 'dotenv-token-5678');
    assert.deepEqual((await celeryLog()).lines, ['celery 1', 'celery 2']);

    // A token saved in the console wins; clearing it there gives the .env one back, never "".
    ai.token = 'console-token-9012';
    const own = (await put(h, { base_url: ai.baseUrl, token: 'console-token-9012' })).json as Record<string, unknown>;
    assert.deepEqual([own.synced_ai_token, own.ai_token_source], [true, 'console']);
    assert.equal(await tokenSetting(), 'console-token-9012');
    assert.deepEqual((await celeryLog()).lines, ['celery 1', 'celery 2']);
    ai.token = 'dotenv-token-5678';
    const cleared = (await put(h, { base_url: ai.baseUrl, token: null })).json as Record<string, unknown>;
    assert.deepEqual([cleared.synced_ai_token, cleared.ai_token_source], [true, 'dotenv']);
    assert.equal(await tokenSetting(), undefined);
    assert.equal(h.config.current().ai.apiToken, 'dotenv-token-5678');
    assert.deepEqual((await celeryLog()).lines, ['celery 1', 'celery 2']);
    assert.ok(!h.logs().includes('token-'), 'no token reaches the log');
  });

  it('refuses unknown fields (all named) and bad values with a 400, changing nothing', async (t) => {
    const h = await startHarness(t);
    assert.equal((await put(h, { base_url: 'http://127.0.0.1:9100' })).status, 200);
    const before = await readFile(configFile(h), 'utf8');
    const settingsBefore = await readFile(h.settingsFile, 'utf8');
    const unknown = await put(h, { base_url: 'http://127.0.0.1:9200', no_start: true, colour: 'blue' });
    assert.equal(unknown.status, 400);
    assert.match((unknown.json as { detail: string }).detail, /unknown fields no_start, colour/);
    const cases: [unknown, RegExp][] = [
      [{ base_url: 'not a url at all' }, /body\.base_url/],
      [{ base_url: 'ftp://127.0.0.1:21' }, /body\.base_url/],
      [{ api_prefix: '/api' }, /body\.base_url: required/],
      [{ base_url: 'http://127.0.0.1:9200', timeout_sec: 31 }, /body\.timeout_sec/],
      [{ base_url: 'http://127.0.0.1:9200', health_paths: Array(9).fill('/h') }, /body\.health_paths/],
      [{ base_url: 'http://127.0.0.1:9200', token: 'x'.repeat(301) }, /body\.token/],
    ];
    for (const [body, detail] of cases) {
      const reply = await put(h, body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.match((reply.json as { detail: string }).detail, detail);
    }
    assert.equal(await readFile(configFile(h), 'utf8'), before);
    assert.equal(await readFile(h.settingsFile, 'utf8'), settingsBefore);
  });

  it('concurrent saves leave a valid file holding one of them; readers meanwhile never see a broken one', async (t) => {
    const h = await startHarness(t);
    const urls = Array.from({ length: 16 }, (_, index) => `http://127.0.0.1:${9100 + index}`);
    const first = 'http://127.0.0.1:9200';
    assert.equal((await put(h, { base_url: first })).status, 200);
    // Readers of the file and of the route while the saves run: a half-written file would read
    // as the defaults (http://127.0.0.1:9099) or fail to parse.
    let saving = true;
    const seen = new Set<string>();
    const readers = Array.from({ length: 2 }, async () => {
      while (saving) {
        seen.add(JSON.parse(await readFile(configFile(h), 'utf8')).base_url as string);
        seen.add((await getConfig(h)).base_url);
      }
    });
    const replies = await Promise.all(urls.map((base_url, index) => put(h, { base_url, timeout_sec: 2 + index })));
    saving = false;
    await Promise.all(readers);
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);
    assert.ok(seen.size > 0);
    for (const url of seen) assert.ok(url === first || urls.includes(url), `a reader saw ${url}`);
    const stored = JSON.parse(await readFile(configFile(h), 'utf8')) as AiConfig;
    const index = urls.indexOf(stored.base_url);
    assert.ok(index >= 0, stored.base_url);
    assert.equal(stored.timeout_sec, 2 + index, 'one save whole, not a mix');
    // The synced port is the one of the last save that ran, which the file holds too.
    assert.equal(h.config.current().ai.serverPort, 9100 + index);
  });
});

describe('AI connection test (POST /ai-extension/test)', () => {
  it('healthy: ok with the status, the URLs tried and the health summaries; the Bearer token sent', async (t) => {
    const ai = await standIn(t);
    const h = await startHarness(t);
    await put(h, { base_url: ai.baseUrl, token: 'probe-token', health_paths: ['/healthz', '/health'] });
    ai.missingPaths.add('/healthz');
    const reply = await h.request('POST', '/ai-extension/test', { token: WRITE_TOKEN });
    const result = dataOf<Record<string, unknown>>(reply);
    assert.equal(result.ok, true);
    assert.equal(result.status_code, 200);
    assert.deepEqual(result.tried_urls, [`${ai.baseUrl}/healthz`, `${ai.baseUrl}/health`]);
    assert.equal(result.health_url, `${ai.baseUrl}/health`);
    assert.equal(result.status, 'ok');
    assert.equal((result.media_tasks as { total_tasks: number }).total_tasks, 7);
    assert.equal((result.tts_health as { health_state: string }).health_state, 'healthy');
    assert.equal(result.llm_detail, 'legacy runtime idle');
    assert.equal(ai.requests.find((request) => request.path === '/health')?.authorization, 'Bearer probe-token');
  });

  it('a 500, a timeout and a refused token all answer 200 with ok false and the reason', async (t) => {
    const ai = await standIn(t);
    const h = await startHarness(t);
    await put(h, { base_url: ai.baseUrl, token: 'right-token', timeout_sec: 2 });
    const probe = async () =>
      dataOf<Record<string, unknown>>(await h.request('POST', '/ai-extension/test', { token: WRITE_TOKEN }));

    ai.healthStatus = 500;
    const failing = await probe();
    assert.deepEqual([failing.ok, failing.status_code, failing.error], [false, 500, 'HTTP 500']);
    assert.equal(failing.health_url, `${ai.baseUrl}/health`);

    ai.healthStatus = 200;
    ai.healthToken = 'another-token';
    const refused = await probe();
    assert.equal(refused.ok, false);
    assert.equal(refused.status_code, 401);
    assert.match(String(refused.error), /refused the token/);

    ai.healthToken = '';
    ai.healthDelayMs = 3000;
    const slow = await probe();
    assert.equal(slow.ok, false);
    assert.equal(slow.status_code, null);
    assert.match(String(slow.error), /timed out after 2 s/);
    ai.healthDelayMs = 0;

    const deadUrl = `http://127.0.0.1:${await freePort()}`;
    await put(h, { base_url: deadUrl });
    const down = await probe();
    assert.equal(down.ok, false);
    assert.match(String(down.error), /ECONNREFUSED/);
    assert.deepEqual(down.tried_urls, [`${deadUrl}/health`]);
  });
});
