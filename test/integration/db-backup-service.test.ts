/**
 * BackupService on both engines: SQLite backups are database files restored at a restart;
 * PostgreSQL backups are the portable corpus file, restored by merging it back.
 */
import assert from 'node:assert/strict';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { BackupService } from '../../src/ops/backup/index.ts';
import { JobRegistry, type Job } from '../../src/ops/jobs/index.ts';
import { forEachEngine } from '../support/engines.ts';
import { context } from '../support/corpus-data.ts';

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
    const outcome = await backups.restore(run?.name ?? '', preview.confirm_token);
    if (engine.kind === 'sqlite') {
      assert.deepEqual([outcome.restarting, restarts], [true, 1]);
      await access(join(dataDir, 'restore-pending.json'));
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
