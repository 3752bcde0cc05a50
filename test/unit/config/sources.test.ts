import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigFileError, ConfigStore } from './api.ts';
import { tempProject } from './helpers.ts';

async function openError(projectDir: string, env: Record<string, string> = {}): Promise<ConfigFileError> {
  const error: unknown = await ConfigStore.open({ projectDir, env }).then(
    () => assert.fail('expected ConfigFileError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConfigFileError, `got ${String(error)}`);
  return error;
}

describe('defaults', () => {
  it('an empty project resolves every key to its default', async (t) => {
    const dir = await tempProject(t);
    const snapshot = (await ConfigStore.open({ projectDir: dir, env: {} })).current();
    assert.deepEqual(
      { ...snapshot.server },
      {
        host: '127.0.0.1',
        port: 8088,
        trustProxy: '',
        baseUrl: '/chorus',
        dataDir: join(dir, 'data'),
        databaseUrl: '',
        databasePoolMax: 20,
        fleetClaims: 'auto',
        logLevel: 'info',
        logChat: 'console',
        logFormat: 'auto',
        shardRole: 'primary',
      },
    );
    assert.deepEqual(
      { ...snapshot.corpus },
      {
        mergeOrder: ['local', 'fed', 'community'],
        mergeStrategy: 'local_first',
        fedEnabled: 'auto',
        communityEnabled: false,
        autoEnroll: false,
        communityContribute: 'auto',
        onRemoteFailure: 'local_only',
        communityApiBase: '',
        communityToken: '',
        remoteFindEnabled: 'auto',
      },
    );
    assert.deepEqual(
      { ...snapshot.performance },
      {
        replyMessagesCap: 16,
        replyAnswersCap: 128,
        findCacheSec: 45,
        findCacheMax: 50000,
        replySnapshotSec: 5,
        replySnapshotMax: 20000,
        replyQueryTimeoutSec: 2,
      },
    );
    assert.deepEqual(
      { ...snapshot.remote },
      {
        remoteMaxConcurrent: 3,
        remoteTimeoutSec: 8,
        contributeTimeoutSec: 12,
        usageCacheSec: 120,
        withdrawnPollSec: 300,
      },
    );
    assert.deepEqual({ ...snapshot.backfill }, { enabled: false, maxPerMinute: 40, batchSize: 30, intervalSec: 1800 });
    assert.deepEqual({ ...snapshot.guard }, { enabled: true, phrases: [], exempt: [] });
    assert.equal(snapshot.dataDir, join(dir, 'data'));
    assert.deepEqual(snapshot.database, { engine: 'sqlite', file: join(dir, 'data', 'chorus.db') });
    assert.equal(snapshot.sourceOf('CHORUS_PORT'), 'default');
    assert.equal(snapshot.raw('CHORUS_CORPUS_FIND_CACHE_SEC'), 45);
    assert.deepEqual(snapshot.warnings, []);
  });
});

describe('source order', () => {
  it('default < env < chorus.toml < .env < console settings, with sourceOf', async (t) => {
    const dir = await tempProject(t, {
      'chorus.toml': [
        'CHORUS_PORT = 1002',
        'CHORUS_CORPUS_REPLY_ANSWERS_CAP = 41',
        'CHORUS_CORPUS_FIND_CACHE_SEC = 7',
        'CHORUS_CORPUS_FIND_CACHE_MAX = 3000',
      ].join('\n'),
      '.env': ['CHORUS_PORT=1003', 'CHORUS_CORPUS_FIND_CACHE_SEC=8', 'CHORUS_CORPUS_FIND_CACHE_MAX=4000'].join('\n'),
      'data/console-settings.json': JSON.stringify({ CHORUS_PORT: 1004, CHORUS_CORPUS_FIND_CACHE_MAX: 5000 }),
    });
    const env = {
      CHORUS_PORT: '1001',
      CHORUS_CORPUS_REPLY_MESSAGES_CAP: '11',
      CHORUS_CORPUS_REPLY_ANSWERS_CAP: '40',
      CHORUS_CORPUS_FIND_CACHE_SEC: '6',
      CHORUS_CORPUS_FIND_CACHE_MAX: '2000',
    };
    const snapshot = (await ConfigStore.open({ projectDir: dir, env })).current();
    const seen = {
      port: [snapshot.server.port, snapshot.sourceOf('CHORUS_PORT')],
      messagesCap: [snapshot.performance.replyMessagesCap, snapshot.sourceOf('CHORUS_CORPUS_REPLY_MESSAGES_CAP')],
      answersCap: [snapshot.performance.replyAnswersCap, snapshot.sourceOf('CHORUS_CORPUS_REPLY_ANSWERS_CAP')],
      findSec: [snapshot.performance.findCacheSec, snapshot.sourceOf('CHORUS_CORPUS_FIND_CACHE_SEC')],
      findMax: [snapshot.performance.findCacheMax, snapshot.sourceOf('CHORUS_CORPUS_FIND_CACHE_MAX')],
      snapshotSec: [snapshot.performance.replySnapshotSec, snapshot.sourceOf('CHORUS_CORPUS_REPLY_SNAPSHOT_SEC')],
    };
    assert.deepEqual(seen, {
      port: [1004, 'console'],
      messagesCap: [11, 'env'],
      answersCap: [41, 'toml'],
      findSec: [8, 'dotenv'],
      findMax: [5000, 'console'],
      snapshotSec: [5, 'default'],
    });
    assert.deepEqual(snapshot.warnings, []);
  });

  it('matches keys case-insensitively in every source', async (t) => {
    const dir = await tempProject(t, {
      'chorus.toml': 'chorus_port = 7001\n',
      '.env': 'chorus_log_level=debug\n',
      'data/console-settings.json': JSON.stringify({ chorus_shard_role: 'worker' }),
    });
    const snapshot = (await ConfigStore.open({ projectDir: dir, env: { chorus_host: '0.0.0.0' } })).current();
    assert.deepEqual(
      [snapshot.server.host, snapshot.server.port, snapshot.server.logLevel, snapshot.server.shardRole],
      ['0.0.0.0', 7001, 'debug', 'worker'],
    );
  });

  it('reads TOML strings, numbers, booleans and string arrays', async (t) => {
    const dir = await tempProject(t, {
      'chorus.toml': [
        '# project settings',
        'LLM_CORPUS_LEARN_GUARD_PHRASES = ["always at your service", " happy to help "]',
        'CHORUS_CORPUS_BACKFILL_ENABLED = true',
        'CHORUS_CORPUS_REMOTE_TIMEOUT_SEC = 2.5',
        'CHORUS_CORPUS_COMMUNITY_ENABLED = true',
        'CHORUS_CORPUS_REMOTE_FIND_ENABLED = true',
        'CHORUS_CORPUS_MERGE_ORDER = "community,local"',
        'CHORUS_BASE_URL = "/"',
      ].join('\n'),
    });
    const snapshot = (await ConfigStore.open({ projectDir: dir, env: {} })).current();
    assert.deepEqual(snapshot.guard.phrases, ['always at your service', 'happy to help']);
    assert.equal(snapshot.backfill.enabled, true);
    assert.equal(snapshot.remote.remoteTimeoutSec, 2.5);
    assert.equal(snapshot.corpus.communityEnabled, true);
    assert.equal(snapshot.corpus.remoteFindEnabled, 'prefetch');
    assert.deepEqual(snapshot.corpus.mergeOrder, ['community', 'local']);
    assert.equal(snapshot.server.baseUrl, '');
  });

  it('reads .env with export, comments, blank lines, quotes and multi-line values', async (t) => {
    const dir = await tempProject(t, {
      '.env': [
        '# Chorus',
        '',
        'export CHORUS_HOST=0.0.0.0',
        'CHORUS_CORPUS_COMMUNITY_API_BASE = "https://hub.example/v1/corpus"  # manual',
        "CHORUS_LOG_LEVEL='warn'",
        'CHORUS_CORPUS_REPLY_MESSAGES_CAP=12 # inline comment',
        'LLM_CORPUS_LEARN_GUARD_PHRASES="first phrase',
        'second phrase"',
        'LLM_CORPUS_LEARN_GUARD_EXEMPT=a|b',
        'OTHER_TOOL_SETTING=whatever',
      ].join('\n'),
    });
    const snapshot = (await ConfigStore.open({ projectDir: dir, env: {} })).current();
    assert.equal(snapshot.server.host, '0.0.0.0');
    assert.equal(snapshot.corpus.communityApiBase, 'https://hub.example/v1/corpus');
    assert.equal(snapshot.server.logLevel, 'warn');
    assert.equal(snapshot.performance.replyMessagesCap, 12);
    assert.deepEqual(snapshot.guard.phrases, ['first phrase', 'second phrase']);
    assert.deepEqual(snapshot.guard.exempt, ['a', 'b']);
    assert.deepEqual(snapshot.warnings, []);
  });
});

describe('malformed files', () => {
  it('a TOML syntax error names the file and line', async (t) => {
    const dir = await tempProject(t, { 'chorus.toml': 'CHORUS_PORT = 8080\nCHORUS_HOST = \n' });
    const error = await openError(dir);
    assert.equal(error.file, join(dir, 'chorus.toml'));
    assert.equal(error.line, 2);
    assert.ok(error.message.startsWith(`${join(dir, 'chorus.toml')}:2: `), error.message);
  });

  it('a TOML value of an unsupported shape names file, line and key', async (t) => {
    const dir = await tempProject(t, { 'chorus.toml': '# a\nCHORUS_HOST = "::"\nCHORUS_PORT = { value = 1 }\n' });
    const error = await openError(dir);
    assert.equal(error.line, 3);
    assert.equal(error.key, 'CHORUS_PORT');
    assert.match(
      error.message,
      /chorus\.toml:3: invalid value for CHORUS_PORT: expected a string, number, boolean or array of strings$/,
    );
  });

  it('a TOML syntax error does not quote a secret from the file', async (t) => {
    const dir = await tempProject(t, { 'chorus.toml': 'CHORUS_CORPUS_COMMUNITY_TOKEN = "s3cr3t-token\n' });
    const error = await openError(dir);
    assert.equal(error.line, 1);
    assert.ok(!error.message.includes('s3cr3t'), error.message);
  });

  it('a malformed .env line names the file and line', async (t) => {
    const dir = await tempProject(t, { '.env': '# ok\nCHORUS_PORT=8080\nthis is not an entry\n' });
    const error = await openError(dir);
    assert.equal(error.message, `${join(dir, '.env')}:3: expected KEY=VALUE`);
    assert.equal(error.line, 3);
  });

  it('an unclosed quote in .env names line and key but not the secret', async (t) => {
    const dir = await tempProject(t, { '.env': 'CHORUS_HOST=::\nCHORUS_CORPUS_COMMUNITY_TOKEN="hunter2\n' });
    const error = await openError(dir);
    assert.equal(error.line, 2);
    assert.equal(error.key, 'CHORUS_CORPUS_COMMUNITY_TOKEN');
    assert.match(error.message, /\.env:2: invalid value for CHORUS_CORPUS_COMMUNITY_TOKEN/);
    assert.ok(!error.message.includes('hunter2'));
  });

  it('a console settings file that is not a JSON object stops the load', async (t) => {
    const dir = await tempProject(t, { 'data/console-settings.json': '{"CHORUS_CORPUS_COMMUNITY_TOKEN": "hunter2",' });
    const error = await openError(dir);
    assert.equal(error.file, join(dir, 'data', 'console-settings.json'));
    assert.ok(!error.message.includes('hunter2'));
  });
});

describe('bad values', () => {
  it('an out-of-range .env value falls back to the default with one warning naming key and source', async (t) => {
    const dir = await tempProject(t, { '.env': 'CHORUS_HOST=::\nCHORUS_PORT=70000\n' });
    const snapshot = (await ConfigStore.open({ projectDir: dir, env: {} })).current();
    assert.equal(snapshot.server.port, 8088);
    assert.equal(snapshot.sourceOf('CHORUS_PORT'), 'default');
    assert.equal(snapshot.warnings.length, 1);
    const [warning] = snapshot.warnings;
    assert.equal(warning?.key, 'CHORUS_PORT');
    assert.equal(warning?.source, 'dotenv');
    assert.equal(
      warning?.message,
      `${join(dir, '.env')}:2: CHORUS_PORT: expected an integer in 1..65535, got "70000"; value ignored`,
    );
  });

  it('a bad value lets the next lower source apply', async (t) => {
    const dir = await tempProject(t, {
      '.env': 'CHORUS_PORT=abc\n',
      'chorus.toml': 'CHORUS_CORPUS_FED_ENABLED = "perhaps"\n',
    });
    const snapshot = (
      await ConfigStore.open({ projectDir: dir, env: { CHORUS_PORT: '9000', CHORUS_CORPUS_FED_ENABLED: 'on' } })
    ).current();
    assert.equal(snapshot.server.port, 9000);
    assert.equal(snapshot.sourceOf('CHORUS_PORT'), 'env');
    assert.equal(snapshot.corpus.fedEnabled, true);
    assert.deepEqual(
      snapshot.warnings.map((w) => [w.key, w.source]),
      [
        ['CHORUS_PORT', 'dotenv'],
        ['CHORUS_CORPUS_FED_ENABLED', 'toml'],
      ],
    );
  });

  it('bad values from the process environment and the console file warn too', async (t) => {
    const dir = await tempProject(t, {
      'data/console-settings.json': JSON.stringify({ CHORUS_CORPUS_BACKFILL_BATCH_SIZE: 999 }),
    });
    const snapshot = (await ConfigStore.open({ projectDir: dir, env: { CHORUS_LOG_LEVEL: 'loud' } })).current();
    assert.equal(snapshot.server.logLevel, 'info');
    assert.equal(snapshot.backfill.batchSize, 30);
    assert.deepEqual(
      snapshot.warnings.map((w) => [w.key, w.source]),
      [
        ['CHORUS_LOG_LEVEL', 'env'],
        ['CHORUS_CORPUS_BACKFILL_BATCH_SIZE', 'console'],
      ],
    );
  });

  it('never prints a secret value in a warning', async (t) => {
    const dir = await tempProject(t, {
      'chorus.toml': 'CHORUS_CORPUS_COMMUNITY_TOKEN = ["hunter3"]\n',
      'data/console-settings.json': JSON.stringify({ CHORUS_DATABASE_URL: 'mysql://root:hunter4@db/x' }),
    });
    const env = { CHORUS_DATABASE_URL: 'mongodb://root:hunter2@db/x' };
    const snapshot = (await ConfigStore.open({ projectDir: dir, env })).current();
    assert.equal(snapshot.server.databaseUrl, '');
    assert.equal(snapshot.corpus.communityToken, '');
    assert.deepEqual(
      snapshot.warnings.map((w) => w.key),
      ['CHORUS_DATABASE_URL', 'CHORUS_DATABASE_URL', 'CHORUS_CORPUS_COMMUNITY_TOKEN'],
    );
    const printed = JSON.stringify(snapshot.warnings);
    for (const secret of ['hunter2', 'hunter3', 'hunter4', 'mongodb', 'mysql'])
      assert.ok(!printed.includes(secret), secret);
  });
});

describe('unknown keys', () => {
  it('are ignored with one warning each in chorus.toml and for our prefixes in .env', async (t) => {
    const dir = await tempProject(t, {
      'chorus.toml': 'CHORUS_FUTURE_THING = 1\nCHORUS_PORT = 8100\n',
      '.env': 'CHORUS_CORPUS_NEW_KNOB=1\nCHORUS_CORPUS_NEW_KNOB=2\nDATABASE_PASSWORD=x\nLLM_API_KEY=y\n',
    });
    const snapshot = (
      await ConfigStore.open({ projectDir: dir, env: { CHORUS_ENV_ONLY_THING: '1', PATH: '/bin' } })
    ).current();
    assert.equal(snapshot.server.port, 8100);
    assert.deepEqual(
      snapshot.warnings.map((w) => [w.key, w.source]),
      [
        ['CHORUS_FUTURE_THING', 'toml'],
        ['CHORUS_CORPUS_NEW_KNOB', 'dotenv'],
      ],
    );
  });

  it('the console file cannot set the data folder or unknown keys', async (t) => {
    const dir = await tempProject(t, {
      'data/console-settings.json': JSON.stringify({
        CHORUS_DATA_DIR: 'elsewhere',
        CHORUS_RETIRED: 1,
        CHORUS_PORT: 8200,
      }),
    });
    const snapshot = (await ConfigStore.open({ projectDir: dir, env: {} })).current();
    assert.equal(snapshot.dataDir, join(dir, 'data'));
    assert.equal(snapshot.server.port, 8200);
    assert.deepEqual(
      snapshot.warnings.map((w) => [w.key, w.source]),
      [
        ['CHORUS_DATA_DIR', 'console'],
        ['CHORUS_RETIRED', 'console'],
      ],
    );
  });
});

describe('data folder', () => {
  it('CHORUS_DATA_DIR from .env moves where console-settings.json is read', async (t) => {
    const dir = await tempProject(t, {
      '.env': 'CHORUS_DATA_DIR=state\n',
      'data/console-settings.json': JSON.stringify({ CHORUS_PORT: 6666 }),
      'state/console-settings.json': JSON.stringify({ CHORUS_PORT: 7777 }),
    });
    const snapshot = (
      await ConfigStore.open({ projectDir: dir, env: { CHORUS_DATA_DIR: 'ignored-by-dotenv' } })
    ).current();
    assert.equal(snapshot.server.port, 7777);
    assert.equal(snapshot.dataDir, join(dir, 'state'));
    assert.equal(snapshot.server.dataDir, join(dir, 'state'));
    assert.equal(snapshot.sourceOf('CHORUS_DATA_DIR'), 'dotenv');
    assert.deepEqual(snapshot.database, { engine: 'sqlite', file: join(dir, 'state', 'chorus.db') });
  });

  it('an absolute data folder is kept and a postgres URL selects PostgreSQL', async (t) => {
    const dir = await tempProject(t);
    const other = await tempProject(t);
    const env = {
      CHORUS_DATA_DIR: other,
      CHORUS_DATABASE_URL: 'postgres://chorus@db/chorus',
      CHORUS_DATABASE_POOL_MAX: '40',
    };
    const snapshot = (await ConfigStore.open({ projectDir: dir, env })).current();
    assert.equal(snapshot.dataDir, other);
    assert.deepEqual(snapshot.database, { engine: 'postgres', url: 'postgres://chorus@db/chorus', poolMax: 40 });
    assert.equal(snapshot.databaseUrl, 'postgres://chorus@db/chorus');
  });
});
