import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { configFromValues } from '../../src/config/index.ts';
import { silentLog } from '../../src/common/log.ts';
import { openStore } from '../../src/store/open-store.ts';
import { cleanupWanted, createCleanupJob } from '../../src/workers/cleanup-job.ts';
import { DEFAULT_REPLY } from '../support/engines.ts';

test('the cleanup job removes polluted messages with the configured phrases and reports it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-cleanup-'));
  const store = await openStore({ databaseUrl: '', dataDir: dir, poolMax: 1, reply: DEFAULT_REPLY });
  try {
    const learn = (answerKeywords: string, message: string) =>
      store.corpus.learnAnswer({
        keywords: '晚上',
        groupId: 1,
        answerKeywords,
        answerTime: 100,
        message,
        appendOnExisting: true,
      });
    await learn('晚安', '晚安！希望每个庆典都能顺利举行');
    await learn('好的', '好的');
    const config = configFromValues({ LLM_CORPUS_LEARN_GUARD_PHRASES: '希望每个庆典' });
    let deletedCalls = 0;
    const job = createCleanupJob({
      store: store.corpus,
      config: () => config,
      onDeleted: () => deletedCalls++,
      log: silentLog,
    });
    await job.runNow();
    const context = await store.corpus.findByKeywords('晚上');
    assert.deepEqual(
      context?.answers.map((answer) => answer.keywords),
      ['好的'],
      'the polluted answer lost its only message and went',
    );
    assert.equal(deletedCalls, 1);
    assert.equal(job.counters.runs, 1);
    await job.runNow();
    assert.equal(deletedCalls, 1, 'a round with nothing to delete does not clear caches');
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('the cleanup runs only on the primary process and only when scheduled', () => {
  assert.equal(cleanupWanted(configFromValues({})), true);
  assert.equal(cleanupWanted(configFromValues({ CHORUS_SHARD_ROLE: 'worker' })), false);
  assert.equal(cleanupWanted(configFromValues({ LLM_CORPUS_CLEANUP_SCHEDULED: 'false' })), false);
});
