/**
 * BackupService on both engines: SQLite backups are database files restored at a restart;
 * PostgreSQL backups are pg_dump files with the client tools (replaced at a restart, in one
 * transaction), else the portable corpus file, restored by merging it back.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import {
  applyPendingRestore,
  BackupBusyError,
  BackupChangedError,
  BackupService,
  findPgTools,
  replacePostgresTables,
  type PgTools,
} from '../../src/ops/backup/index.ts';
import { inspectPgDump } from '../../src/ops/backup/pg-tools.ts';
import { requestRestore } from '../../src/ops/backup/restore.ts';
import { JobRegistry, type Job } from '../../src/ops/jobs/index.ts';
import { currentSchema } from '../../src/store/database-overview.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { forEachEngine, PG_URL, postgresEngine, requirePostgres } from '../support/engines.ts';
import { context } from '../support/corpus-data.ts';

const silent = pino({ level: 'silent' });

async function finished(job: Job): Promise<ReturnType<Job['snapshot']>> {
  for (;;) {
    const snapshot = job.snapshot();
    if (snapshot.phase === 'done' || snapshot.phase === 'failed') return snapshot;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

forEachEngine((engine) => {
  it('backs up the corpus and restores it', async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'chorus-backup-service-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const store = await engine.open(t);
    for (let i = 0; i < 50; i++)
      await store.corpus.insert(
        context(`话题${i}`, {
          answers: [{ keywords: `回答${i}`, groupId: 1001, count: 3, time: 100, messages: [`回答${i}`] }],
        }),
      );
    const jobs = new JobRegistry({ now: Date.now });
    t.after(() => jobs.stop(1000));
    let restarts = 0;
    const backups = new BackupService({
      folder: join(dataDir, 'backups'),
      dataDir,
      engine: store.engine.kind,
      ...(store.engine.backupTo ? { sqliteBackup: store.engine.backupTo.bind(store.engine) } : {}),
      corpus: store.corpus,
      jobs,
      now: Date.now,
      version: 'test',
      restart: () => restarts++,
    });
    const done = await finished(backups.start('svc'));
    assert.equal(done.phase, 'done', done.error ?? '');
    const [run] = await backups.runs();
    assert.equal(run?.contexts, 50);
    assert.equal(run?.format, engine.kind === 'sqlite' ? 'sqlite' : 'corpus-jsonl-gz');

    const preview = await backups.preview(run?.name ?? '');
    assert.ok(preview);
    await assert.rejects(backups.restore(run?.name ?? '', `${preview.expires_at}.00`), /confirm_token/);

    // One changed byte (same size): refused, nothing recorded, no restart.
    const file = join(dataDir, 'backups', run?.name ?? '');
    const whole = await readFile(file);
    const changed = Buffer.from(whole);
    const middle = Math.floor(changed.length / 2);
    changed[middle] = (changed[middle] ?? 0) ^ 0xff;
    await writeFile(file, changed);
    await assert.rejects(backups.restore(run?.name ?? '', preview.confirm_token), (error: unknown) => {
      assert.ok(error instanceof BackupChangedError);
      assert.match(error.message, /sha256 is not the recorded one/);
      return true;
    });
    await assert.rejects(access(join(dataDir, 'restore-pending.json')), /ENOENT/);
    assert.equal(restarts, 0);
    await writeFile(file, whole);

    // Two restores at once: one goes ahead, the other is refused (a 409), not both "restarting".
    const both = await Promise.allSettled([
      backups.restore(run?.name ?? '', preview.confirm_token),
      backups.restore(run?.name ?? '', preview.confirm_token),
    ]);
    const answered = both.filter((settled) => settled.status === 'fulfilled');
    const refused = both.filter((settled) => settled.status === 'rejected');
    assert.equal(answered.length, 1);
    assert.ok(refused[0]?.reason instanceof BackupBusyError, String(refused[0]?.reason));
    const outcome = answered[0]?.value ?? assert.fail('no restore went ahead');
    if (engine.kind === 'sqlite') {
      assert.deepEqual([outcome.restarting, restarts], [true, 1]);
      await access(join(dataDir, 'restore-pending.json'));
      // Until the restart, no further restore and no backup.
      await assert.rejects(backups.restore(run?.name ?? '', preview.confirm_token), BackupBusyError);
      assert.throws(() => backups.start('late'), BackupBusyError);
      assert.equal(restarts, 1);
    } else {
      // PostgreSQL: the portable file is merged back as a job (idempotent: nothing new here).
      assert.equal(outcome.restarting, false);
      assert.ok(outcome.job);
      const merged = await finished(outcome.job);
      assert.equal(merged.phase, 'done', merged.error ?? '');
      assert.equal((merged.result as { contexts_read: number }).contexts_read, 50);
    }
    assert.deepEqual(await backups.delete([run?.name ?? '']), { deleted: [run?.name], missing: [] });
    assert.deepEqual(await backups.runs(), []);
  });
});

/** The store's PostgreSQL URL with its schema as the search_path, as a deployment would give it. */
function urlOf(schema: string): string {
  return `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** Under CI the client tools are part of the environment: their absence fails, elsewhere it skips. */
async function requirePgTools(t: TestContext): Promise<PgTools | null> {
  const tools = await findPgTools(process.env);
  if (tools !== null) return tools;
  if (process.env.CI === 'true') throw new Error('pg_dump, pg_restore or psql is not installed');
  t.skip('pg_dump, pg_restore or psql is not installed');
  return null;
}

describe('PostgreSQL backups with the client tools', () => {
  it('pg_dump of every Chorus table; a restore replaces them; a dump cut short is rolled back', async (t) => {
    if (!requirePostgres(t)) return;
    const tools = await requirePgTools(t);
    if (tools === null) return;
    const dataDir = await mkdtemp(join(tmpdir(), 'chorus-backup-pg-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const store = await postgresEngine().open(t);
    let live: LocalStore = store;
    const schema = store.location.schema ?? '';
    const url = urlOf(schema);
    for (let i = 0; i < 40; i++)
      await store.corpus.insert(
        context(`话题${i}`, {
          answers: [{ keywords: `回答${i}`, groupId: 1001, count: 3, time: 100, messages: [`回答${i}[CQ:face,id=1]`] }],
          bans: i % 10 === 0 ? [{ keywords: `回答${i}`, groupId: 1001, reason: 'test', time: 100 }] : [],
        }),
      );
    const jobs = new JobRegistry({ now: Date.now });
    t.after(() => jobs.stop(1000));
    let restarts = 0;
    // A new service after each restart, as the restarted process has.
    const service = () =>
      new BackupService({
        folder: join(dataDir, 'backups'),
        dataDir,
        engine: 'postgres',
        corpus: store.corpus,
        jobs,
        now: Date.now,
        version: 'test',
        restart: () => restarts++,
        postgres: { tools: async () => tools, url, env: process.env, schema: () => currentSchema(live.engine) },
      });
    let backups = service();
    assert.equal((await backups.info()).format, 'pg-dump');
    const done = await finished(backups.start('pg'));
    assert.equal(done.phase, 'done', done.error ?? '');
    const [run] = await backups.runs();
    assert.ok(run);
    assert.deepEqual([run.format, run.schema, run.contexts], ['pg-dump', schema, 40]);
    assert.match(run.name, /-pg\.pgdump$/);
    // Every table the migrations made is in the dump (CHORUS_TABLES must follow new migrations).
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    t.after(() => client.end());
    const made = await client.query<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    );
    const contents = await inspectPgDump(tools, join(dataDir, 'backups', run.name), process.env);
    assert.deepEqual(contents.schemas, [schema]);
    assert.deepEqual([...contents.tables].sort(), made.rows.map((row) => row.name).sort());

    // Learned after the backup, and a context deleted: the restore undoes both.
    await store.corpus.insert(context('备份之后', { answers: [answerOf('之后学的')] }));
    await client.query(`DELETE FROM "${schema}".context WHERE keywords = '话题7'`);
    const preview = await backups.preview(run.name);
    assert.ok(preview);
    assert.match(preview.effect, /restarts/);
    assert.deepEqual(await backups.restore(run.name, preview.confirm_token), { restarting: true, job: null });
    assert.equal(restarts, 1);
    const before = await corpusRows(client, schema);
    await store.close();
    const restored = await applyPendingRestore(
      dataDir,
      join(dataDir, 'backups'),
      replacePostgresTables(url, process.env),
      silent,
      1,
    );
    assert.equal(restored?.ok, true, restored?.detail);
    const after = await corpusRows(client, schema);
    assert.equal(after.contexts.length, 40);
    assert.ok(after.contexts.includes('话题7') && !after.contexts.includes('备份之后'));
    assert.notDeepEqual(after, before);
    assert.equal(after.bans, 4);
    // Migrations and learning go on from the restored tables (the identity sequences came back too).
    live = await store.reopen();
    await live.corpus.insert(context('恢复之后', { answers: [answerOf('恢复之后学的')] }));
    assert.equal((await live.corpus.findByKeywords('话题3'))?.answers[0]?.messages[0], '回答3[CQ:face,id=1]');

    // A dump cut short passes the table of contents but fails in its data: nothing changes.
    const whole = await readFile(join(dataDir, 'backups', run.name));
    const cut = 'chorus-cut.pgdump';
    await writeFile(join(dataDir, 'backups', cut), whole.subarray(0, whole.length - 10));
    // Described as written (its own size and hash), so it passes the file check and fails in pg_restore.
    const cutBytes = whole.subarray(0, whole.length - 10);
    await writeFile(
      join(dataDir, 'backups', `${cut}.json`),
      JSON.stringify({
        ...run,
        name: cut,
        bytes: cutBytes.length,
        sha256: createHash('sha256').update(cutBytes).digest('hex'),
      }),
    );
    assert.deepEqual((await inspectPgDump(tools, join(dataDir, 'backups', cut), process.env)).schemas, [schema]);
    const unchanged = await corpusRows(client, schema);
    backups = service();
    const cutPreview = await backups.preview(cut);
    await backups.restore(cut, cutPreview?.confirm_token ?? '');
    const failed = await applyPendingRestore(
      dataDir,
      join(dataDir, 'backups'),
      replacePostgresTables(url, process.env),
      silent,
      2,
    );
    assert.equal(failed?.ok, false);
    assert.match(failed?.detail ?? '', /previous database is in use: restore rolled back/);
    assert.deepEqual(await corpusRows(client, schema), unchanged);
    assert.ok(unchanged.contexts.includes('恢复之后'));
  });

  it('without the client tools a PostgreSQL backup is the portable corpus file', async (t) => {
    if (!requirePostgres(t)) return;
    const dataDir = await mkdtemp(join(tmpdir(), 'chorus-backup-pg-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const store = await postgresEngine().open(t);
    await store.corpus.insert(context('一句', { answers: [answerOf('一答')] }));
    const jobs = new JobRegistry({ now: Date.now });
    t.after(() => jobs.stop(1000));
    const tools = await findPgTools(process.env, { pgDump: 'no-such-pg_dump', pgRestore: 'pg_restore', psql: 'psql' });
    assert.equal(tools, null);
    const backups = new BackupService({
      folder: join(dataDir, 'backups'),
      dataDir,
      engine: 'postgres',
      corpus: store.corpus,
      jobs,
      now: Date.now,
      version: 'test',
      restart: () => assert.fail('a portable backup is merged, not restored at a restart'),
      postgres: {
        tools: async () => tools,
        url: urlOf(store.location.schema ?? ''),
        env: process.env,
        schema: async () => 'x',
      },
    });
    assert.equal((await backups.info()).format, 'corpus-jsonl-gz');
    const done = await finished(backups.start(''));
    assert.equal(done.phase, 'done', done.error ?? '');
    assert.equal((await backups.runs())[0]?.format, 'corpus-jsonl-gz');
  });
});

function answerOf(keywords: string) {
  return { keywords, groupId: 1001, count: 3, time: 100, messages: [keywords] };
}

async function corpusRows(client: pg.Client, schema: string) {
  const contexts = await client.query<{ keywords: string }>(`SELECT keywords FROM "${schema}".context ORDER BY id`);
  const answers = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".context_answer`);
  const bans = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".context_ban`);
  return {
    contexts: contexts.rows.map((row) => row.keywords),
    answers: Number(answers.rows[0]?.n),
    bans: Number(bans.rows[0]?.n),
  };
}

it('a restore is applied only if the file is still the one recorded when it was asked for', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'chorus-restore-check-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const folder = join(dataDir, 'backups');
  await mkdir(folder);
  const content = Buffer.from('a backup');
  await writeFile(join(folder, 'chorus-x.db'), content);
  const sha256 = createHash('sha256').update(content).digest('hex');
  const replaced: string[] = [];
  const replace = async (source: string) => {
    replaced.push(source);
  };
  await requestRestore(dataDir, 'chorus-x.db', 1, sha256);
  await writeFile(join(folder, 'chorus-x.db'), 'a backuP');
  const refused = await applyPendingRestore(dataDir, folder, replace, silent, 2);
  assert.deepEqual([refused?.ok, refused?.code], [false, 'file_changed']);
  assert.match(refused?.detail ?? '', /previous database is in use: the backup file is not the one recorded/);
  assert.deepEqual(replaced, []);

  await writeFile(join(folder, 'chorus-x.db'), content);
  await requestRestore(dataDir, 'chorus-x.db', 3, sha256);
  const applied = await applyPendingRestore(dataDir, folder, replace, silent, 4);
  assert.equal(applied?.ok, true, applied?.detail);
  assert.equal(applied?.code, 'restored');
  assert.deepEqual(replaced, [join(folder, 'chorus-x.db')]);
});
