/**
 * A PostgreSQL deployment's backup restores on PostgreSQL, end to end: a real `chorus serve` on
 * PostgreSQL learns through a scripted OneBot peer and backs up with pg_dump while the peer keeps
 * it learning; the database is then lost (its schema emptied) and a new deployment with a fresh
 * data folder restores the backup through the console; the restored bot answers what the first
 * one had learned and has forgotten what it learned itself before the restore.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import pg from 'pg';
import { findPgTools } from '../../src/ops/backup/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort, runChorus, type ChorusProcess } from '../support/chorus-process.ts';
import { consoleApi, Conversation, EAGER_REPEATER, until } from '../support/console-conversation.ts';
import { freshSchemaName, PG_URL, requirePostgres } from '../support/engines.ts';

const TOKEN = 'backup-pg-e2e-console-token';
const BOT = 20002;
const GROUP = 7002;

interface JobView {
  phase: string;
  result: { name: string; format: string; schema?: string } | null;
  error: string | null;
}

it('a pg_dump backup of a PostgreSQL deployment restores into a new one', { timeout: 240_000 }, async (t) => {
  if (!requirePostgres(t)) return;
  if ((await findPgTools(process.env)) === null) {
    if (process.env.CI === 'true') assert.fail('pg_dump, pg_restore or psql is not installed');
    return t.skip('pg_dump, pg_restore or psql is not installed');
  }
  const schema = freshSchemaName();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  t.after(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const root = await mkdtemp(join(tmpdir(), 'chorus-backup-pg-e2e-'));
  t.after(() => rm(root, { recursive: true, force: true }));

  const serve = async (dir: string) => {
    const port = await freePort();
    const chorus: ChorusProcess = runChorus(['serve', '--project-dir', dir], {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: TOKEN,
      CHORUS_DATABASE_URL: url.toString(),
      ...EAGER_REPEATER,
    });
    t.after(async () => {
      chorus.child.kill('SIGTERM');
      await chorus.exited;
    });
    await chorus.waitFor(/console listening at/);
    return { chorus, port, base: `http://127.0.0.1:${port}/chorus`, ws: `ws://127.0.0.1:${port}/onebot/v11/ws` };
  };

  // The first deployment learns, and backs up while it keeps learning.
  const first = await serve(join(root, 'first'));
  const api1 = consoleApi(first.base, TOKEN);
  assert.equal((await api1.call<{ format: string }>('GET', '/db/backup/info')).data.format, 'pg-dump');
  const talk1 = new Conversation(await OneBotPeer.connect({ url: first.ws, selfId: BOT, firstMessageId: 1 }), GROUP);
  talk1.teach('周末去爬山怎么样', '好主意我带水', 4);
  await talk1.answers('周末去爬山怎么样', '好主意我带水');
  let learning = true;
  const background = (async () => {
    for (let i = 0; learning; i++) {
      talk1.say(5 + (i % 3), `背景消息${i}号`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = await api1.call<{ job_id: string }>('POST', '/db/backup', { label: 'pg' });
  assert.equal(started.status, 200, started.detail);
  const job = await until(
    'the backup job to end',
    async () => {
      const { data } = await api1.call<JobView>('GET', `/db/backup/jobs/${started.data.job_id}`);
      return data.phase === 'done' || data.phase === 'failed' ? data : undefined;
    },
    60_000,
  );
  learning = false;
  await background;
  assert.equal(job.phase, 'done', job.error ?? '');
  assert.deepEqual([job.result?.format, job.result?.schema], ['pg-dump', schema]);
  const name = job.result?.name ?? '';
  const download = await fetch(`${first.base}/api/db/backup/runs/download?name=${encodeURIComponent(name)}`, {
    headers: { 'x-chorus-token': TOKEN },
  });
  assert.equal(download.status, 200);
  assert.equal(
    Buffer.from(await download.arrayBuffer())
      .subarray(0, 5)
      .toString('latin1'),
    'PGDMP',
  );
  await talk1.peer.close().catch(() => undefined);
  first.chorus.child.kill('SIGTERM');
  assert.equal(await first.chorus.exited, 0);

  // The database is lost; a new deployment starts on an empty one with the backup file at hand.
  await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const secondDir = join(root, 'second');
  await mkdir(join(secondDir, 'data', 'backups'), { recursive: true, mode: 0o700 });
  for (const file of [name, `${name}.json`])
    await copyFile(join(root, 'first', 'data', 'backups', file), join(secondDir, 'data', 'backups', file));
  const second = await serve(secondDir);
  const api2 = consoleApi(second.base, TOKEN);
  let talk2 = new Conversation(await OneBotPeer.connect({ url: second.ws, selfId: BOT, firstMessageId: 1 }), GROUP);
  talk2.teach('晚上吃火锅好不好', '火锅必须安排上', 4);
  await talk2.answers('晚上吃火锅好不好', '火锅必须安排上');
  assert.ok(!(await talk2.ask('周末去爬山怎么样', 1500)).includes('好主意我带水'), 'the new database starts empty');

  const preview = await api2.call<{ stage: string; confirm_token: string; effect: string }>(
    'POST',
    '/db/backup/runs/restore',
    { name },
  );
  assert.equal(preview.status, 200, preview.detail);
  assert.match(preview.data.effect, /restarts/);
  const restoring = await api2.call<{ stage: string }>('POST', '/db/backup/runs/restore', {
    name,
    confirm_token: preview.data.confirm_token,
  });
  assert.equal(restoring.data.stage, 'restarting');
  await second.chorus.waitFor(/database restored from a backup/, 60_000);
  await until('the console after the restart', async () =>
    (await fetch(`${second.base}/api/health`).catch(() => null))?.ok ? true : undefined,
  );
  const info = await api2.call<{ last_restore: { ok: boolean; name: string } }>('GET', '/db/backup/info');
  assert.deepEqual([info.data.last_restore.ok, info.data.last_restore.name], [true, name]);
  await talk2.peer.close().catch(() => undefined);
  talk2 = new Conversation(await OneBotPeer.connect({ url: second.ws, selfId: BOT, firstMessageId: 500_000 }), GROUP);
  await talk2.answers('周末去爬山怎么样', '好主意我带水');
  assert.ok(
    !(await talk2.ask('晚上吃火锅好不好', 1500)).includes('火锅必须安排上'),
    'learned before the restore: gone',
  );
  // It keeps learning on the restored tables.
  talk2.teach('明天一起去看电影', '好呀几点见', 4);
  await talk2.answers('明天一起去看电影', '好呀几点见');
  await talk2.peer.close().catch(() => undefined);
});
