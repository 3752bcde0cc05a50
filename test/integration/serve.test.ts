import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/store/open-store.ts';
import { freePort, runChorus } from '../support/chorus-process.ts';
import { PG_URL, withoutPassword } from '../support/engines.ts';

const reply = {
  replyMessagesCap: 16,
  replyAnswersCap: 128,
  replySnapshotSec: 5,
  replySnapshotMax: 20000,
  replyQueryTimeoutSec: 2,
};

async function projectDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'chorus-serve-'));
}

describe('chorus serve (a real process)', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  test('starts on SQLite, answers health, stops on SIGTERM with exit 0, and a second start reuses the data', async () => {
    const dir = await projectDir();
    dirs.push(dir);
    const port = await freePort();
    const env = { CHORUS_PORT: String(port) };

    const first = runChorus(['serve', '--project-dir', dir], env);
    const line = await first.waitFor(/console listening at/);
    assert.match(line, new RegExp(`http://127\\.0\\.0\\.1:${port}/chorus/`));
    const response = await fetch(`http://127.0.0.1:${port}/chorus/api/health`);
    assert.equal(response.status, 200);
    const health = (await response.json()) as { version: string; storage: { engine: string }; uptime_sec: number };
    assert.equal(health.storage.engine, 'sqlite');
    assert.match(health.version, /^\d+\.\d+\.\d+/);
    assert.equal(typeof health.uptime_sec, 'number');
    assert.equal(first.output().match(/console listening at/g)?.length, 1, 'one line says where the console listens');

    const stopStarted = Date.now();
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    assert.ok(Date.now() - stopStarted < 5000, 'stops within 5 s');

    // Learn something while stopped, then start again: the data and schema are reused.
    const store = await openStore({ databaseUrl: '', dataDir: join(dir, 'data'), poolMax: 1, reply });
    await store.corpus.learnAnswer({
      keywords: '你好',
      groupId: 1,
      answerKeywords: '早',
      answerTime: 100,
      message: '早上好',
      appendOnExisting: true,
    });
    await store.close();

    const second = runChorus(['serve', '--project-dir', dir], env);
    await second.waitFor(/console listening at/);
    second.child.kill('SIGINT');
    assert.equal(await second.exited, 0);

    const reopened = await openStore({ databaseUrl: '', dataDir: join(dir, 'data'), poolMax: 1, reply });
    const context = await reopened.corpus.findByKeywords('你好');
    await reopened.close();
    assert.equal(context?.answers[0]?.messages[0], '早上好');
  });

  test('unknown API routes answer 404 in the error shape', async () => {
    const dir = await projectDir();
    dirs.push(dir);
    const port = await freePort();
    const chorus = runChorus(['serve', '--project-dir', dir], { CHORUS_PORT: String(port), CHORUS_BASE_URL: '/x/' });
    await chorus.waitFor(/console listening at/);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/x/api/nothing-here`);
      assert.equal(response.status, 404);
      const body = (await response.json()) as { ok: boolean; detail: string };
      assert.equal(body.ok, false);
      assert.match(body.detail, /nothing-here/);
      assert.equal((await fetch(`http://127.0.0.1:${port}/x/api/health`)).status, 200);
    } finally {
      chorus.child.kill('SIGTERM');
      await chorus.exited;
    }
  });

  test('a malformed chorus.toml stops startup with exit 2 naming the file and line', async () => {
    const dir = await projectDir();
    dirs.push(dir);
    await writeFile(join(dir, 'chorus.toml'), 'CHORUS_HOST = "127.0.0.1"\nCHORUS_PORT = = 3\n');
    const chorus = runChorus(['serve', '--project-dir', dir], {});
    assert.equal(await chorus.exited, 2);
    assert.match(chorus.output(), /chorus\.toml:2/);
  });

  test('an out-of-range value falls back to its default with one warning naming the key', async () => {
    const dir = await projectDir();
    dirs.push(dir);
    const port = await freePort();
    await writeFile(join(dir, '.env'), `CHORUS_PORT=${port}\nCHORUS_CORPUS_REPLY_MESSAGES_CAP=100000\n`);
    const chorus = runChorus(['serve', '--project-dir', dir], {});
    await chorus.waitFor(/console listening at/);
    chorus.child.kill('SIGTERM');
    assert.equal(await chorus.exited, 0);
    const warnings = chorus
      .output()
      .split('\n')
      .filter((line) => line.includes('CHORUS_CORPUS_REPLY_MESSAGES_CAP'));
    assert.equal(warnings.length, 1, chorus.output());
    assert.match(warnings[0] ?? '', /"level":40/);
  });

  test('chorus config prints every key with its source and masks secrets; chorus migrate applies migrations', async () => {
    const dir = await projectDir();
    dirs.push(dir);
    await writeFile(join(dir, 'chorus.toml'), 'CHORUS_PORT = 9123\n');
    const config = runChorus(['config', '--project-dir', dir], {
      CHORUS_CORPUS_COMMUNITY_TOKEN: 'very-secret-token-value',
    });
    assert.equal(await config.exited, 0);
    const output = config.output();
    assert.match(output, /CHORUS_PORT = 9123 {2}\(toml\)/);
    assert.match(output, /CHORUS_HOST = 127\.0\.0\.1 {2}\(default\)/);
    assert.match(output, /CHORUS_CORPUS_COMMUNITY_TOKEN = \*{8} {2}\(env\)/);
    assert.doesNotMatch(output, /very-secret-token-value/);

    const migrate = runChorus(['migrate', '--project-dir', dir], {});
    assert.equal(await migrate.exited, 0);
    assert.match(migrate.output(), /migrations applied \(sqlite\)/);
    const store = await openStore({ databaseUrl: '', dataDir: join(dir, 'data'), poolMax: 1, reply });
    try {
      assert.equal(await store.corpus.contextExistsByKeywords('anything'), false, 'the schema is in place');
    } finally {
      await store.close();
    }
  });

  test('usage errors exit 2 with one line; --help lists the commands', async () => {
    const unknown = runChorus(['serve', '--no-such-flag'], {});
    assert.equal(await unknown.exited, 2);
    assert.equal(unknown.output().trim().split('\n').length, 1);
    assert.match(unknown.output(), /unknown option '--no-such-flag'/);

    const badValue = runChorus(['serve', '--log-level', 'loud'], {});
    assert.equal(await badValue.exited, 2);
    assert.match(badValue.output(), /loud/);

    const help = runChorus(['--help'], {});
    assert.equal(await help.exited, 0);
    for (const command of ['serve', 'migrate', 'config']) assert.match(help.output(), new RegExp(`\\b${command}\\b`));
  });
});

describe('chorus serve on PostgreSQL (a real process)', () => {
  const schema = `chorus_serve_${process.pid}`;
  let available = false;
  before(async () => {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
    available = await client.connect().then(
      () => true,
      () => false,
    );
    await client.end().catch(() => undefined);
  });
  after(async () => {
    if (!available) return;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  test('CHORUS_DATABASE_URL with postgres:// switches the engine', async (t) => {
    const unreachable = `PostgreSQL unreachable at ${withoutPassword(PG_URL)}`;
    // Under CI a missing PostgreSQL is a failure, never a skip.
    if (!available && process.env.CI === 'true') assert.fail(unreachable);
    if (!available) return t.skip(unreachable);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.end();
    const dir = await projectDir();
    const port = await freePort();
    const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const chorus = runChorus(['serve', '--project-dir', dir], { CHORUS_PORT: String(port), CHORUS_DATABASE_URL: url });
    try {
      await chorus.waitFor(/console listening at/);
      const health = (await (await fetch(`http://127.0.0.1:${port}/chorus/api/health`)).json()) as {
        storage: { engine: string };
      };
      assert.equal(health.storage.engine, 'postgres');
    } finally {
      chorus.child.kill('SIGTERM');
      assert.equal(await chorus.exited, 0);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
