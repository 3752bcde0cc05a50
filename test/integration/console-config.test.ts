/**
 * Plugin config, common config and bot configs through the console over a real port: the
 * corpus_federation save (its order, its report and its effect on the running corpus), and bad
 * input on every write route of the live OpenAPI document (400 naming the field, nothing saved).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import type { ConfigReaction } from '../../src/config/index.ts';
import { rows } from '../../src/sql/program.ts';
import { FakeRemote } from '../support/corpus-fakes.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

interface Row {
  key: string;
  env_key: string;
  kind: string;
  default: unknown;
  current: unknown;
  source: string;
  choices?: string[];
  secret: boolean;
  is_set?: boolean;
  read_only: boolean;
}
interface Page {
  id: string;
  plugin: string | null;
  fields: Row[];
  steps?: { step: string; ok: boolean; skipped?: boolean; detail?: string }[];
}

const CORPUS_FEDERATION_KEYS = [
  'merge_order',
  'merge_strategy',
  'community_enabled',
  'auto_enroll',
  'community_contribute',
  'community_api_base',
  'community_token',
  'remote_find_enabled',
  'backfill_enabled',
  'backfill_max_per_minute',
  'backfill_batch_size',
  'backfill_interval_sec',
  'reply_messages_cap',
  'reply_answers_cap',
  'find_cache_sec',
  'find_cache_max',
  'reply_snapshot_sec',
  'reply_snapshot_max',
  'reply_query_timeout_sec',
];

async function settingsText(h: Harness): Promise<string | null> {
  return readFile(h.settingsFile, 'utf8').catch(() => null);
}

const COMMUNITY_ENV = {
  CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
  CHORUS_CORPUS_COMMUNITY_API_BASE: 'http://127.0.0.1:9/v1/corpus',
  CHORUS_CORPUS_COMMUNITY_TOKEN: 'community-secret-token',
  CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'sync',
};

describe('corpus_federation on the core plugin page', () => {
  it('shows the spec fields (not fed_enabled or on_remote_failure), secrets as "" with is_set', async (t) => {
    const h = await startHarness(t, { env: COMMUNITY_ENV });
    const page = dataOf<Page>(await h.request('GET', '/plugins/core/config', { token: READ_TOKEN }));
    assert.equal(page.id, 'corpus_federation');
    assert.equal(page.plugin, 'core');
    assert.deepEqual(page.fields.map((row) => row.key).sort(), [...CORPUS_FEDERATION_KEYS].sort());
    const row = (key: string) => page.fields.find((field) => field.key === key) as Row;
    assert.deepEqual(row('merge_order').choices, ['local,community', 'local']);
    assert.equal(row('merge_order').current, 'local,community');
    assert.deepEqual(row('remote_find_enabled').choices, ['auto', 'false', 'prefetch', 'sync']);
    assert.deepEqual([row('remote_find_enabled').current, row('remote_find_enabled').source], ['sync', 'env']);
    assert.equal(row('reply_answers_cap').default, 128);
    assert.equal(row('reply_messages_cap').default, 16);
    assert.equal(row('find_cache_sec').env_key, 'CHORUS_CORPUS_FIND_CACHE_SEC');
    const token = row('community_token');
    assert.deepEqual([token.secret, token.current, token.default, token.is_set], [true, '', '', true]);
    assert.ok(!JSON.stringify(page).includes('community-secret-token'));
  });

  it('saves over a real port in the spec order, reports each step, and empties the find cache', async (t) => {
    const calls: string[] = [];
    const remote = new FakeRemote();
    const h = await startHarness(t, {
      env: COMMUNITY_ENV,
      sources: { community: remote },
      beforeWire: (config) =>
        config.on('config/changed', () => {
          calls.push('reload_config');
        }),
      // The bare runtime's reactions and the store's, each call recorded.
      reactions: (real) =>
        real.map((reaction): ConfigReaction => ({
          ...reaction,
          run: (change) => (calls.push(reaction.step), reaction.run(change)),
        })),
    });
    const learn = (answer: string) =>
      h.store.corpus.learnAnswer({
        keywords: '你好',
        groupId: 1,
        answerKeywords: answer,
        answerTime: 100,
        message: answer,
        appendOnExisting: true,
      });
    await learn('早');
    const answers = async () =>
      ((await h.runtime.composite.findByKeywordsForReply('你好'))?.answers ?? []).map((a) => a.keywords).sort();
    assert.deepEqual(await answers(), ['早']);
    // Written behind the composite's back: its reply cache still holds the old context.
    await learn('晚');
    h.store.corpus.invalidateSnapshots();
    assert.deepEqual(await answers(), ['早'], 'served from the reply cache');

    const before = await settingsText(h);
    const reply = await h.request('PUT', '/plugins/core/config', {
      token: WRITE_TOKEN,
      body: { values: { remote_find_enabled: true, reply_snapshot_sec: 9, backfill_enabled: true } },
    });
    const page = dataOf<Page>(reply);
    assert.equal(before, null);
    assert.deepEqual(
      page.steps?.map((step) => [step.step, step.ok, step.skipped ?? false]),
      [
        ['write_settings', true, false],
        ['reload_config', true, false],
        ['invalidate_find_cache', true, false],
        ['clear_reply_caches', true, false],
        ['apply_remote_budget', true, true],
      ],
    );
    assert.deepEqual(calls, ['reload_config', 'invalidate_find_cache', 'clear_reply_caches']);
    // `true` is stored as prefetch; the settings file holds env keys.
    assert.deepEqual(JSON.parse((await settingsText(h)) ?? '{}'), {
      CHORUS_CORPUS_BACKFILL_ENABLED: true,
      CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch',
      CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: 9,
    });
    const row = page.fields.find((field) => field.key === 'remote_find_enabled');
    assert.deepEqual([row?.current, row?.source], ['prefetch', 'console']);
    assert.equal(h.config.current().corpus.remoteFindEnabled, 'prefetch');
    // The find cache really emptied: the next lookup reloads from the store.
    assert.deepEqual(await answers(), ['早', '晚']);

    // A save that touches only backfill runs none of these reactions.
    calls.length = 0;
    const second = dataOf<Page>(
      await h.request('PUT', '/plugins/core/config', {
        token: WRITE_TOKEN,
        body: { values: { backfill_batch_size: 50 } },
      }),
    );
    assert.deepEqual(calls, ['reload_config']);
    assert.deepEqual(
      second.steps?.filter((step) => step.skipped).map((step) => step.step),
      ['invalidate_find_cache', 'clear_reply_caches', 'apply_remote_budget'],
    );
  });

  it('a saved community credential empties the find caches: a miss cached under the old one is asked again', async (t) => {
    const hub = new FakeRemote();
    const h = await startHarness(t, { env: COMMUNITY_ENV, sources: { community: hub } });
    assert.equal(await h.runtime.composite.findByKeywordsForReply('晚安'), null);
    assert.equal(await h.runtime.composite.findByKeywords('晚安'), null);
    // The hub this token opens has the answer; the old cached misses would hide it for 45 s.
    hub.seed({
      keywords: '晚安',
      time: 1,
      triggerCount: 3,
      clearTime: 0,
      answers: [{ keywords: '好梦', groupId: 0, count: 3, time: 1, messages: ['好梦'] }],
      bans: [],
    });
    for (const values of [
      { community_token: 'a-new-community-token' },
      { community_api_base: 'http://127.0.0.1:9/v2/corpus' },
    ]) {
      const calls = hub.calls.length;
      const page = dataOf<Page>(
        await h.request('PUT', '/plugins/core/config', { token: WRITE_TOKEN, body: { values } }),
      );
      assert.deepEqual(
        page.steps?.find((step) => step.step === 'invalidate_find_cache'),
        { step: 'invalidate_find_cache', ok: true, detail: 'merged and reply lookup caches cleared' },
        Object.keys(values)[0],
      );
      assert.equal((await h.runtime.composite.findByKeywordsForReply('晚安'))?.answers[0]?.keywords, '好梦');
      assert.equal((await h.runtime.composite.findByKeywords('晚安'))?.answers[0]?.keywords, '好梦');
      assert.equal(hub.calls.length, calls + 2, 'both lookups asked the hub again');
    }
  });

  it('reports a failing step and still runs the later ones', async (t) => {
    const h = await startHarness(t, {
      reactions: (real) =>
        real.map((reaction) =>
          reaction.step === 'restart_prefetch'
            ? {
                ...reaction,
                run: () => {
                  throw new Error('prefetch workers did not stop');
                },
              }
            : reaction,
        ),
    });
    const page = dataOf<Page>(
      await h.request('PUT', '/plugins/core/config', {
        token: WRITE_TOKEN,
        body: { values: { remote_find_enabled: 'sync' } },
      }),
    );
    assert.deepEqual(
      page.steps?.find((step) => step.step === 'restart_prefetch'),
      {
        step: 'restart_prefetch',
        ok: false,
        detail: 'prefetch workers did not stop',
      },
    );
    // The steps after it still ran.
    assert.deepEqual(
      page.steps
        ?.slice(page.steps.findIndex((step) => step.step === 'restart_prefetch') + 1)
        .map((step) => [step.step, step.ok, step.skipped ?? false]),
      [
        ['clear_reply_caches', true, true],
        ['reregister_backfill', true, true],
        ['rebuild_shared_repository', true, false],
        ['sync_community_jobs', true, true],
        ['apply_remote_budget', true, true],
        ['reschedule_cleanup', true, true],
      ],
    );
  });

  it('a secret sent back as "" keeps its value; null removes the console setting', async (t) => {
    const h = await startHarness(t);
    const put = (values: Record<string, unknown>) =>
      h.request('PUT', '/plugins/core/config', { token: WRITE_TOKEN, body: { values } });
    dataOf(await put({ community_token: 'hub-token-1', merge_order: 'local' }));
    const kept = dataOf<Page>(await put({ community_token: '', merge_strategy: 'merge_counts' }));
    assert.equal(kept.fields.find((row) => row.key === 'community_token')?.is_set, true);
    assert.equal(h.config.current().corpus.communityToken, 'hub-token-1');
    assert.deepEqual(h.config.current().corpus.mergeOrder, ['local']);
    const removed = dataOf<Page>(await put({ community_token: null, merge_order: null }));
    assert.equal(removed.fields.find((row) => row.key === 'community_token')?.is_set, false);
    assert.equal(removed.fields.find((row) => row.key === 'merge_order')?.source, 'default');
  });
});

describe('plugins and common config', () => {
  it('lists the plugins with their metadata', async (t) => {
    const h = await startHarness(t);
    const plugins = dataOf<{ name: string; configurable: boolean; enabled: boolean; title: string }[]>(
      await h.request('GET', '/plugins', { token: READ_TOKEN }),
    );
    assert.deepEqual(
      plugins.map((plugin) => [plugin.name, plugin.configurable, plugin.enabled]),
      [
        ['core', true, true],
        ['repeater', true, false],
        ['onebot', true, false],
        ['console', true, true],
        ['community_stats', true, false],
      ],
    );
    const onebot = dataOf<Page>(await h.request('GET', '/plugins/onebot/config', { token: READ_TOKEN }));
    const access = onebot.fields.find((row) => row.key === 'access_token');
    assert.deepEqual([access?.secret, access?.current], [true, '']);
    assert.equal((await h.request('GET', '/plugins/nope/config', { token: READ_TOKEN })).status, 404);
  });

  it('serves the common sections; data_dir is read-only; corpus_federation points at the core page', async (t) => {
    const h = await startHarness(t);
    const sections = dataOf<{ id: string }[]>(await h.request('GET', '/common-config/sections', { token: READ_TOKEN }));
    assert.deepEqual(
      sections.map((section) => section.id),
      ['server', 'logging', 'storage', 'remote_budget', 'language_model'],
    );
    const storage = dataOf<Page>(await h.request('GET', '/common-config/storage', { token: READ_TOKEN }));
    assert.deepEqual(
      storage.fields.map((row) => [row.key, row.read_only, row.secret]),
      [
        ['data_dir', true, false],
        ['database_url', false, true],
        ['database_pool_max', false, false],
        ['fleet_claims', false, false],
      ],
    );
    for (const method of ['GET', 'PUT']) {
      const reply = await h.request(method, '/common-config/corpus_federation', {
        token: WRITE_TOKEN,
        ...(method === 'PUT' ? { body: { values: { merge_order: 'local' } } } : {}),
      });
      assert.equal(reply.status, 400);
      assert.match(
        (reply.json as { detail: string }).detail,
        /core plugin page: GET\/PUT \/api\/plugins\/core\/config/,
      );
    }
    const saved = dataOf<Page>(
      await h.request('PUT', '/common-config/logging', { token: WRITE_TOKEN, body: { values: { log_level: 'warn' } } }),
    );
    assert.deepEqual(
      saved.fields.map((row) => [row.key, row.current, row.source]),
      [
        ['log_level', 'warn', 'console'],
        ['log_format', 'auto', 'default'],
        ['log_chat', 'console', 'default'],
      ],
    );
  });
});

/** Bad input per write operation; a write operation without cases fails the test. */
const BAD_INPUT: Record<string, { path: string; body?: unknown; raw?: string; status?: number; detail?: RegExp }[]> = {
  'PUT /plugins/{name}/config': [
    { path: '/plugins/core/config', raw: '{"values": ' },
    { path: '/plugins/core/config', body: [] },
    { path: '/plugins/core/config', body: {}, detail: /^body\.values: required$/ },
    { path: '/plugins/core/config', body: { values: 'x' } },
    { path: '/plugins/core/config', body: { values: {} }, detail: /empty/ },
    {
      path: '/plugins/core/config',
      body: { values: { merge_strategy: 'merge_counts' }, x: 1 },
      detail: /body\.x: unknown field/,
    },
    {
      path: '/plugins/core/config',
      body: { values: { fed_enabled: 'true' } },
      detail: /values\.fed_enabled: unknown field/,
    },
    {
      path: '/plugins/core/config',
      body: { values: { on_remote_failure: 'local_only' } },
      detail: /on_remote_failure/,
    },
    { path: '/plugins/core/config', body: { values: { nope: 1 } }, detail: /values\.nope/ },
    {
      path: '/plugins/core/config',
      body: { values: { merge_order: 'community,local' } },
      detail: /values\.merge_order/,
    },
    {
      path: '/plugins/core/config',
      body: { values: { reply_answers_cap: 5 } },
      detail: /values\.reply_answers_cap: .*32\.\.4096/,
    },
    { path: '/plugins/core/config', body: { values: { reply_answers_cap: 'lots' } }, detail: /reply_answers_cap/ },
    { path: '/plugins/core/config', body: { values: { remote_find_enabled: 'maybe' } }, detail: /remote_find_enabled/ },
    { path: '/plugins/core/config', body: { values: { community_api_base: 5 } }, detail: /community_api_base/ },
    { path: '/plugins/core/config', body: { values: { merge_strategy: { a: 1 } } }, detail: /merge_strategy/ },
    {
      path: '/plugins/core/config',
      body: { values: { merge_strategy: 'merge_counts', reply_messages_cap: 0 } },
      detail: /reply_messages_cap/,
    },
    { path: '/plugins/onebot/config', body: { values: { url: 'x' } }, detail: /values\.url/ },
    // A token nobody could present would lock every writer out (issue 10.4).
    {
      path: '/plugins/console/config',
      body: { values: { write_token: 'w'.repeat(513) } },
      detail: /values\.write_token/,
    },
    {
      path: '/plugins/console/config',
      body: { values: { token: ' '.repeat(12) } },
      detail: /values\.token: .*printable/,
    },
    { path: '/plugins/console/config', body: { values: { token: ' ' } }, detail: /values\.token/ },
    { path: '/plugins/console/config', body: { values: { token: 'short' } }, detail: /values\.token: .*8 to 512/ },
    { path: '/plugins/console/config', body: { values: { token: 'has space inside' } }, detail: /values\.token/ },
    {
      path: '/plugins/console/config',
      body: { values: { write_token: READ_TOKEN } },
      detail: /values\.write_token: must differ/,
    },
    { path: '/plugins/nope/config', body: { values: { a: 1 } }, status: 404 },
  ],
  'PUT /common-config/{section_id}': [
    { path: '/common-config/server', body: { values: { port: 0 } }, detail: /values\.port/ },
    { path: '/common-config/server', body: { values: { port: 'eighty' } }, detail: /values\.port/ },
    { path: '/common-config/server', body: { values: { base_url: 'http://elsewhere/x' } }, detail: /base_url/ },
    // A host the server cannot bind would stop the next start (issue 10.6).
    { path: '/common-config/server', body: { values: { host: 'not a host!' } }, detail: /values\.host: expected/ },
    { path: '/common-config/server', body: { values: { host: '-bad-.example' } }, detail: /values\.host/ },
    { path: '/common-config/storage', body: { values: { data_dir: '/tmp/elsewhere' } }, detail: /data_dir: read-only/ },
    { path: '/common-config/logging', body: { values: { log_level: 'loud' } }, detail: /log_level/ },
    { path: '/common-config/logging', body: { values: { host: '0.0.0.0' } }, detail: /values\.host: unknown field/ },
    { path: '/common-config/corpus_federation', body: { values: { merge_order: 'local' } }, detail: /core/ },
    { path: '/common-config/nope', body: { values: { a: 1 } }, status: 404 },
  ],
  'PUT /ai-extension/config': [
    { path: '/ai-extension/config', raw: '{"base_url": ' },
    { path: '/ai-extension/config', body: [] },
    { path: '/ai-extension/config', body: {}, detail: /^body\.base_url: required$/ },
    { path: '/ai-extension/config', body: { base_url: 'not a url' }, detail: /body\.base_url/ },
    {
      path: '/ai-extension/config',
      body: { base_url: 'http://127.0.0.1:9099', timeout_sec: 1 },
      detail: /body\.timeout_sec/,
    },
    {
      path: '/ai-extension/config',
      body: { base_url: 'http://127.0.0.1:9099', extra: 1, other: 2 },
      detail: /unknown fields extra, other/,
    },
  ],
  'POST /ai-extension/test': [{ path: '/ai-extension/test', raw: '{"probe": ' }],
  'POST /ai-extension/install': [
    { path: '/ai-extension/install', body: { action: 'reinstall' }, detail: /body\.action/ },
    { path: '/ai-extension/install', body: { force: true }, detail: /body\.force: unknown field/ },
    { path: '/ai-extension/install', body: { no_start: 'yes' }, detail: /body\.no_start/ },
  ],
  'POST /ai-extension/ncm/send-sms': [
    { path: '/ai-extension/ncm/send-sms', body: {}, detail: /body\.phone: required/ },
    { path: '/ai-extension/ncm/send-sms', body: { phone: '12ab5678' }, detail: /body\.phone/ },
    { path: '/ai-extension/ncm/send-sms', body: { phone: '13800000000', ctcode: 0 }, detail: /body\.ctcode/ },
  ],
  'POST /ai-extension/ncm/verify-sms': [
    { path: '/ai-extension/ncm/verify-sms', body: { phone: '13800000000' }, detail: /body\.captcha: required/ },
    { path: '/ai-extension/ncm/verify-sms', body: { phone: '13800000000', captcha: 'x' }, detail: /body\.captcha/ },
  ],
  'POST /ai-extension/ncm/logout': [{ path: '/ai-extension/ncm/logout', raw: '{' }],
  'POST /db/backup': [
    { path: '/db/backup', body: { label: '../up' }, detail: /body\.label/ },
    { path: '/db/backup', body: { label: 'ok', extra: 1 }, detail: /body\.extra: unknown field/ },
  ],
  'POST /db/backup/runs/restore': [
    { path: '/db/backup/runs/restore', body: {}, detail: /body\.name: required/ },
    { path: '/db/backup/runs/restore', body: { name: '../chorus.db' }, detail: /body\.name/ },
    { path: '/db/backup/runs/restore', body: { name: 'x.db', confirm_token: 5 }, detail: /body\.confirm_token/ },
  ],
  'POST /db/backup/runs/delete': [
    { path: '/db/backup/runs/delete', body: { names: [] }, detail: /body\.names/ },
    { path: '/db/backup/runs/delete', body: { names: ['/etc/passwd'] }, detail: /body\.name/ },
  ],
  'POST /db/corpus/export': [
    { path: '/db/corpus/export', body: { groups: ['x'] }, detail: /body\.groups/ },
    { path: '/db/corpus/export', body: { anonymise: true, extra: 1 }, detail: /body\.extra: unknown field/ },
  ],
  'POST /db/corpus/import': [
    { path: '/db/corpus/import', body: { corpus: [] }, detail: /body: send the corpus file/ },
    { path: '/db/corpus/import?dry_run=maybe', body: {}, detail: /query\.dry_run/ },
  ],
  'POST /db/retention/apply': [
    { path: '/db/retention/apply', body: { days: 0, confirm_token: 'x' }, detail: /body\.days/ },
    { path: '/db/retention/apply', body: { days: 3 }, detail: /body\.confirm_token: required/ },
    { path: '/db/retention/apply', body: { days: 3, confirm_token: 'forged' }, detail: /confirm_token/ },
  ],
  'POST /corpus/answers/{id}/ban': [
    { path: '/corpus/answers/abc/ban', body: { scope: 'group' }, detail: /params\.id/ },
    { path: '/corpus/answers/1/ban', body: { scope: 'nowhere' }, detail: /body\.scope/ },
    { path: '/corpus/answers/1/ban', body: { scope: 'group', group_id: 0 }, detail: /body\.group_id/ },
    { path: '/corpus/answers/1/ban', body: { scope: 'group', extra: 1 }, detail: /body\.extra: unknown field/ },
  ],
  'POST /corpus/answers/{id}/unban': [
    { path: '/corpus/answers/x/unban', body: { scope: 'everywhere' }, detail: /params\.id/ },
    { path: '/corpus/answers/1/unban', body: { scope: 'group' }, detail: /body\.group_id/ },
    { path: '/corpus/answers/1/unban', body: { scope: 'somewhere' }, detail: /body\.scope/ },
  ],
  'POST /activity/{id}/undo': [{ path: '/activity/x/undo', detail: /params\.id/ }],
  'DELETE /corpus/answers/{id}': [{ path: '/corpus/answers/0', detail: /params\.id/ }],
  'DELETE /corpus/contexts/{id}': [{ path: '/corpus/contexts/-1', detail: /params\.id/ }],
  'POST /corpus/moderation/{id}/undo': [{ path: '/corpus/moderation/x/undo', detail: /params\.id/ }],
  'POST /auth/sessions/revoke': [{ path: '/auth/sessions/revoke', raw: '{"everyone": ' }],
  'POST /service/restart': [{ path: '/service/restart', raw: '{"now": ' }],
  // Write level because they return stored messages (docs/rules.md#console-read-level).
  // The agent platform (docs/agent.md): its write routes, and the reads of member memory (write level).
  'POST /llm/agent-platform/catchphrases/resolve': [
    { path: '/llm/agent-platform/catchphrases/resolve', body: { entry_id: 1, action: 'keep' }, detail: /body\.action/ },
    { path: '/llm/agent-platform/catchphrases/resolve', body: { action: 'approve' }, detail: /entry_id/ },
  ],
  'POST /llm/agent-platform/catchphrases/undo': [
    { path: '/llm/agent-platform/catchphrases/undo', body: { entry_id: 'x' }, detail: /body\.entry_id/ },
  ],
  'POST /llm/agent-platform/catchphrases/mine': [
    { path: '/llm/agent-platform/catchphrases/mine', body: {}, detail: /group_id/ },
  ],
  'GET /llm/agent-platform/person-facts': [
    { path: '/llm/agent-platform/person-facts', detail: /bot_id/ },
    { path: '/llm/agent-platform/person-facts?bot_id=1&limit=999', detail: /query\.limit/ },
  ],
  'POST /llm/agent-platform/person-facts': [
    { path: '/llm/agent-platform/person-facts', body: { bot_id: 1, user_id: 2 }, detail: /content/ },
  ],
  'POST /llm/agent-platform/person-facts/correct': [
    { path: '/llm/agent-platform/person-facts/correct', body: { fact_id: 1 }, detail: /content/ },
  ],
  'POST /llm/agent-platform/person-facts/delete': [
    { path: '/llm/agent-platform/person-facts/delete', body: { fact_id: -1 }, detail: /body\.fact_id/ },
  ],
  'GET /llm/agent-platform/consent': [{ path: '/llm/agent-platform/consent', detail: /user_id/ }],
  'POST /llm/agent-platform/consent': [
    { path: '/llm/agent-platform/consent', body: { bot_id: 1, user_id: 2, granted: 'yes' }, detail: /body\.granted/ },
  ],
  'GET /llm/agent-platform/observations': [
    { path: '/llm/agent-platform/observations?status=maybe', detail: /query\.status/ },
  ],
  'POST /llm/agent-platform/tasks/cancel': [
    { path: '/llm/agent-platform/tasks/cancel', body: {}, detail: /task_id/ },
    { path: '/llm/agent-platform/tasks/cancel', raw: '{"task_id": ' },
  ],
  'GET /db/table-rows': [{ path: '/db/table-rows?table=sqlite_master', detail: /query\.table/ }],
  'GET /db/backup/runs/download': [{ path: '/db/backup/runs/download', detail: /name/ }],
  'GET /db/corpus/export/download': [{ path: '/db/corpus/export/download', detail: /name/ }],
  'POST /update/apply': [{ path: '/update/apply', raw: '{"tag": ' }],
  'POST /update/bot/apply': [
    { path: '/update/bot/apply?restart=maybe', detail: /query\.restart: must be boolean/ },
    { path: '/update/bot/apply', raw: '{"restart": ' },
  ],
  'POST /update/git/bot/apply': [
    { path: '/update/git/bot/apply', body: { mode: 'branch' }, detail: /body\.mode/ },
    { path: '/update/git/bot/apply', body: { ref: '--upload-pack=x' }, detail: /body\.ref/ },
    { path: '/update/git/bot/apply', body: { strategy: 'reset' }, detail: /body\.strategy/ },
    { path: '/update/git/bot/apply', body: { branch: 'dev' }, detail: /body\.branch: unknown field/ },
  ],
  'POST /update/bot/config-migration/apply': [{ path: '/update/bot/config-migration/apply', raw: '{"force": ' }],
  'POST /update/bot/rollback': [{ path: '/update/bot/rollback', raw: '[' }],
  'POST /log-errors/cleanup': [{ path: '/log-errors/cleanup', raw: '{"before": ' }],
  'PUT /group-configs/{group_id}': [
    { path: '/group-configs/0', body: { reply: false }, detail: /params\.group_id/ },
    { path: '/group-configs/9001', body: {}, detail: /empty/ },
    { path: '/group-configs/9001', raw: 'oops' },
    { path: '/group-configs/9001', body: { reply: 'no' }, detail: /body\.reply/ },
    { path: '/group-configs/9001', body: { colour: 'red' }, detail: /body\.colour: unknown field/ },
    { path: '/group-configs/9001', body: { answer_threshold: 0 }, detail: /body\.answer_threshold/ },
    { path: '/group-configs/9001', body: { reply_cooldown_sec: -1 }, detail: /body\.reply_cooldown_sec/ },
    { path: '/group-configs/9001', body: { silence_until: 9_999_999_999 }, detail: /body\.silence_until/ },
    { path: '/group-configs/9001', body: { blocked_user_ids: [0] }, detail: /body\.blocked_user_ids\.0/ },
    { path: '/group-configs/9001', body: { history_seed: 'yes' }, detail: /body\.history_seed/ },
    {
      path: '/group-configs/9001',
      body: { history_seeded_until: 5 },
      detail: /body\.history_seeded_until: unknown field/,
    },
  ],
  'POST /group-configs/{group_id}/history-seed': [
    { path: '/group-configs/0/history-seed', body: {}, detail: /params\.group_id/ },
    { path: '/group-configs/9001/history-seed', body: { depth: 0 }, detail: /body\.depth/ },
    { path: '/group-configs/9001/history-seed', body: { depth: 20_001 }, detail: /body\.depth/ },
    { path: '/group-configs/9001/history-seed', body: { depth: 'all' }, detail: /body\.depth/ },
    { path: '/group-configs/9001/history-seed', body: { deep: true }, detail: /body\.deep: unknown field/ },
    { path: '/group-configs/9001/history-seed', raw: '{"depth": ' },
  ],
  'DELETE /group-configs/{group_id}/history-seed': [
    { path: '/group-configs/abc/history-seed', detail: /params\.group_id/ },
  ],
  'PUT /user-configs/{user_id}': [
    { path: '/user-configs/x', body: { banned: true }, detail: /params\.user_id/ },
    { path: '/user-configs/9001', body: {}, detail: /empty/ },
    { path: '/user-configs/9001', body: { admin: true }, detail: /body\.admin: unknown field/ },
    { path: '/user-configs/9001', body: { bot: 1 }, detail: /body\.bot/ },
  ],
  'POST /request-actions': [
    { path: '/request-actions', body: { kind: 'friend', user_id: 5 }, detail: /body\.self_id/ },
    { path: '/request-actions', body: { self_id: 1, kind: 'enemy', user_id: 5 }, detail: /body\.kind/ },
    { path: '/request-actions', body: { self_id: 1, kind: 'friend' }, detail: /body\.user_id/ },
    { path: '/request-actions', body: { self_id: 1, kind: 'group', user_id: 5 }, detail: /body\.group_id/ },
    {
      path: '/request-actions',
      body: { self_id: 1, kind: 'friend', user_id: 5, action: 'maybe' },
      detail: /body\.action/,
    },
    {
      path: '/request-actions',
      body: { self_id: 1, kind: 'friend', user_id: 5, source: 'doubt' },
      detail: /body\.source/,
    },
    {
      path: '/request-actions',
      body: { self_id: 1, kind: 'friend', user_id: 5 },
      status: 404,
      detail: /nothing pending/,
    },
  ],
  'POST /request-actions/batch': [
    { path: '/request-actions/batch', body: {}, detail: /empty/ },
    { path: '/request-actions/batch', body: { friends: [], groups: [] }, detail: /empty/ },
    { path: '/request-actions/batch', body: { friends: [{ self_id: 1 }] }, detail: /body\.friends\.0\.user_id/ },
    {
      path: '/request-actions/batch',
      body: { friends: Array.from({ length: 501 }, () => ({ self_id: 1, user_id: 2 })) },
      detail: /body\.friends/,
    },
  ],
  'POST /onebot/forward-targets': [
    { path: '/onebot/forward-targets', body: {}, detail: /body\.url/ },
    { path: '/onebot/forward-targets', body: { url: 'http://127.0.0.1:3001' }, detail: /^url: expected a ws:/ },
    { path: '/onebot/forward-targets', body: { url: 'ws://u:secret-pw@h:1' }, detail: /^url: put the token/ },
    { path: '/onebot/forward-targets', body: { url: 'ws://h:1', extra: 1 }, detail: /body\.extra: unknown field/ },
  ],
  'DELETE /onebot/forward-targets/{id}': [
    { path: '/onebot/forward-targets/0123456789abcdef', status: 404, detail: /no forward target/ },
  ],
  'POST /bots/{self_id}/disconnect-ws': [
    { path: '/bots/abc/disconnect-ws', detail: /params\.self_id/ },
    { path: '/bots/10001/disconnect-ws', status: 404, detail: /not connected/ },
  ],
  'PUT /bot-configs/{account}': [
    { path: '/bot-configs/abc', body: { security: true }, detail: /^params\.account: / },
    { path: '/bot-configs/0', body: { security: true }, detail: /params\.account/ },
    { path: '/bot-configs/-5', body: { security: true }, detail: /params\.account/ },
    { path: '/bot-configs/1.5', body: { security: true }, detail: /params\.account/ },
    { path: '/bot-configs/99999999999999999999', body: { security: true }, detail: /params\.account/ },
    { path: '/bot-configs/10001', body: {}, detail: /empty/ },
    { path: '/bot-configs/10001', raw: 'oops' },
    { path: '/bot-configs/10001', body: { admins: ['x'] }, detail: /body\.admins\.0/ },
    { path: '/bot-configs/10001', body: { admins: [0] }, detail: /body\.admins\.0/ },
    { path: '/bot-configs/10001', body: { security: 'yes' }, detail: /body\.security/ },
    { path: '/bot-configs/10001', body: { superuser: true }, detail: /body\.superuser: unknown field/ },
    { path: '/bot-configs/10001', body: { disabled_plugins: ['nope'] }, detail: /body\.disabled_plugins\.0/ },
    { path: '/bot-configs/10001', body: { nicknames: ['  '] }, detail: /body\.nicknames\.0/ },
    {
      path: '/bot-configs/10001',
      body: { nicknames: ['ok', '\u0000'] },
      detail: /body\.nicknames\.1: must not be blank/,
    },
    { path: '/bot-configs/10001', body: { nicknames: ['a\u0007b'] }, detail: /body\.nicknames\.0: .*control/ },
    { path: '/bot-configs/10001', body: { nicknames: ['x'.repeat(33)] }, detail: /body\.nicknames\.0/ },
    { path: '/bot-configs/10001', body: { security: true, admins: 'all' }, detail: /body\.admins/ },
  ],
};

describe('bad input on every write route', () => {
  it('answers 400 (404 for an unknown name) naming the field, and saves nothing', async (t) => {
    const h = await startHarness(t);
    // Something stored first, so "unchanged" is checked against real content.
    dataOf(
      await h.request('PUT', '/plugins/core/config', {
        token: WRITE_TOKEN,
        body: { values: { merge_order: 'local' } },
      }),
    );
    dataOf(await h.request('PUT', '/bot-configs/10001', { token: WRITE_TOKEN, body: { nicknames: ['Chorus'] } }));
    const settingsBefore = await settingsText(h);
    const botsBefore = JSON.stringify(
      await h.store.engine.run(function* () {
        return yield* rows<unknown>({ sql: 'SELECT * FROM bot_config ORDER BY account', parameters: [] });
      }),
    );

    const document = (await h.request('GET', '/openapi.json')).json as {
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
    };
    const writeOps = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) =>
          (op.security ?? []).some((requirement) => Object.values(requirement).flat().includes('write')),
        )
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(writeOps.sort(), Object.keys(BAD_INPUT).sort(), 'every write route has bad-input cases');

    for (const [op, cases] of Object.entries(BAD_INPUT)) {
      const method = op.split(' ')[0] as string;
      for (const bad of cases) {
        const reply = await h.request(method, bad.path, {
          token: WRITE_TOKEN,
          ...(bad.raw !== undefined ? { raw: bad.raw } : { body: bad.body }),
        });
        const label = `${method} ${bad.path} ${bad.raw ?? JSON.stringify(bad.body)}`;
        assert.equal(reply.status, bad.status ?? 400, `${label}: ${reply.text}`);
        const body = reply.json as { ok: boolean; detail: string; code?: string; params?: Record<string, unknown> };
        assert.equal(body.ok, false, label);
        if (bad.detail) assert.match(body.detail, bad.detail, label);
        // Every refusal is coded (issue 28.2); a refused field is named by its path.
        assert.match(body.code ?? '', /^[a-z_]+$/, `${label}: code`);
        if (body.code === 'invalid_field') assert.match(String(body.params?.field), /^(body|query|params)\b/, label);
      }
    }
    assert.equal(await settingsText(h), settingsBefore, 'console-settings.json unchanged');
    const botsAfter = JSON.stringify(
      await h.store.engine.run(function* () {
        return yield* rows<unknown>({ sql: 'SELECT * FROM bot_config ORDER BY account', parameters: [] });
      }),
    );
    assert.equal(botsAfter, botsBefore, 'bot_config rows unchanged');
    assert.equal((await h.request('GET', '/bot-configs/0', { token: READ_TOKEN })).status, 400);
  });
});
