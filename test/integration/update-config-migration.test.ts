/**
 * Config migration through the console over a real port: a Pallas-Bot style `.env` (NoneBot keys,
 * `PALLAS_*` keys with and without a Chorus counterpart, a removed multi-line secret, a key whose
 * new name is already set) and a `chorus.toml` with origin keys. Check lists what would change
 * without values; apply rewrites both files after backups, the result loads with the values under
 * their new names; a second apply changes nothing; no secret reaches an answer or the log.
 */
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigStore } from '../../src/config/index.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN } from '../unit/console/harness.ts';

const AI_SECRET = 'secret-ai-token-123';
const CORPUS_SECRET = 'corpus-secret-456';
const MONGO_SECRET = 'mongo-pass-789';

const ENV = `# a Pallas-Bot .env
HOST=0.0.0.0
PORT=8080
CHORUS_PORT=8090
SUPERUSERS=["10001"]
PALLAS_AI_API_TOKEN=${AI_SECRET}
PALLAS_CORPUS_TOKEN="${CORPUS_SECRET}"
PALLAS_GPU=true
PALLAS_REPEATER_BUNDLE_TIMEOUT_SEC=99999
export MONGO_PASSWORD='${MONGO_SECRET}
second line'
OTHER_TOOL=1
`;

const TOML = `CHORUS_LOG_LEVEL = "info"
LOG_LEVEL = "debug"
PALLAS_REPEATER_NICKNAMES = [
  "牛牛",
  "小牛",
]
PALLAS_WEBUI_ENABLED = true
`;

interface Item {
  file: string;
  line: number;
  key: string;
  action: string;
  to: string | null;
  value_ok: boolean | null;
}

describe('config migration', () => {
  it('check lists renamed, removed and PALLAS_* keys; apply rewrites with backups; a second apply changes nothing', async (t) => {
    const h = await startHarness(t);
    await writeFile(join(h.dir, '.env'), ENV);
    await writeFile(join(h.dir, 'chorus.toml'), TOML);

    const checkReply = await h.request('GET', '/update/bot/config-migration/check', { token: READ_TOKEN });
    const check = dataOf<{ items: Item[]; files: string[]; needed: boolean }>(checkReply);
    assert.equal(check.needed, true);
    assert.deepEqual(check.files, ['.env', 'chorus.toml']);
    assert.deepEqual(
      check.items.map((item) => [item.file, item.line, item.key, item.action, item.to, item.value_ok]),
      [
        ['.env', 2, 'HOST', 'rename', 'CHORUS_HOST', true],
        ['.env', 3, 'PORT', 'remove', 'CHORUS_PORT', null],
        ['.env', 5, 'SUPERUSERS', 'remove', null, null],
        ['.env', 6, 'PALLAS_AI_API_TOKEN', 'rename', 'CHORUS_AI_API_TOKEN', true],
        ['.env', 7, 'PALLAS_CORPUS_TOKEN', 'rename', 'CHORUS_CORPUS_COMMUNITY_TOKEN', true],
        ['.env', 8, 'PALLAS_GPU', 'remove', null, null],
        ['.env', 9, 'PALLAS_REPEATER_BUNDLE_TIMEOUT_SEC', 'rename', 'CHORUS_REPEATER_BUNDLE_TIMEOUT_SEC', false],
        ['.env', 10, 'MONGO_PASSWORD', 'remove', null, null],
        ['chorus.toml', 2, 'LOG_LEVEL', 'remove', 'CHORUS_LOG_LEVEL', null],
        ['chorus.toml', 3, 'PALLAS_REPEATER_NICKNAMES', 'rename', 'CHORUS_REPEATER_NICKNAMES', true],
        ['chorus.toml', 7, 'PALLAS_WEBUI_ENABLED', 'remove', null, null],
      ],
    );
    for (const secret of [AI_SECRET, CORPUS_SECRET, MONGO_SECRET]) assert.ok(!checkReply.text.includes(secret));
    assert.equal(await readFile(join(h.dir, '.env'), 'utf8'), ENV, 'check changes nothing');

    assert.equal(
      (await h.request('POST', '/update/bot/config-migration/apply', { token: READ_TOKEN })).status,
      403,
      'apply needs the write token',
    );
    const applyReply = await h.request('POST', '/update/bot/config-migration/apply', { token: WRITE_TOKEN });
    const applied = dataOf<{ items: Item[]; backups: string[]; after: { needed: boolean } }>(applyReply);
    assert.equal(applied.items.length, 11);
    assert.equal(applied.after.needed, false);
    assert.equal(applied.backups.length, 2);
    for (const secret of [AI_SECRET, CORPUS_SECRET, MONGO_SECRET]) {
      assert.ok(!applyReply.text.includes(secret), 'no secret in the answer');
      assert.ok(!h.logs().includes(secret), 'no secret in the log');
    }
    const [envBackup, tomlBackup] = applied.backups;
    assert.match(envBackup ?? '', /^\.env\.bak-/);
    assert.equal(await readFile(join(h.dir, envBackup ?? ''), 'utf8'), ENV);
    assert.equal(await readFile(join(h.dir, tomlBackup ?? ''), 'utf8'), TOML);

    const env = await readFile(join(h.dir, '.env'), 'utf8');
    assert.match(env, /^CHORUS_HOST=0\.0\.0\.0$/m);
    assert.match(env, /^# PORT=8080$/m);
    assert.match(env, /^# export MONGO_PASSWORD='mongo-pass-789$/m);
    assert.match(env, /^# second line'$/m, 'every line of a removed multi-line value is commented');
    assert.match(env, /^OTHER_TOOL=1$/m, 'keys of other tools are left alone');
    assert.match(env, /^# chorus config migration: SUPERUSERS removed \(bot admins are set per account/m);

    // The rewritten files load, with the values under their new names.
    const config = await ConfigStore.open({ env: {}, projectDir: h.dir });
    const snapshot = config.current();
    assert.equal(snapshot.server.host, '0.0.0.0');
    assert.equal(snapshot.server.port, 8090);
    assert.equal(snapshot.ai.apiToken, AI_SECRET);
    assert.equal(snapshot.corpus.communityToken, CORPUS_SECRET);
    assert.deepEqual(snapshot.repeater.nicknames, ['牛牛', '小牛']);
    assert.equal(snapshot.server.logLevel, 'info');

    const files = async () => ({
      env: await readFile(join(h.dir, '.env'), 'utf8'),
      toml: await readFile(join(h.dir, 'chorus.toml'), 'utf8'),
    });
    const before = await files();
    const listing = (await readdir(h.dir)).sort();
    const again = dataOf<{ items: Item[]; backups: string[]; needed: boolean }>(
      await h.request('POST', '/update/bot/config-migration/apply', { token: WRITE_TOKEN }),
    );
    assert.deepEqual([again.items, again.backups, again.needed], [[], [], false]);
    assert.deepEqual(await files(), before);
    assert.deepEqual((await readdir(h.dir)).sort(), listing, 'no new backup');
  });
});
