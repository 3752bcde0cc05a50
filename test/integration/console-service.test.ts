/**
 * The console inside `startService` (the composition root of `chorus serve`): a save through the
 * console clears the reply snapshot cache exactly once, as the ordered step, and logging settings
 * apply at once.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { startService } from '../../src/app/service.ts';
import { freePort } from '../support/chorus-process.ts';
import { dataOf, send } from '../unit/console/harness.ts';

const TOKEN = 'service-test-token-0123456789';

describe('console in the running service', () => {
  it('a performance save clears the snapshot cache once, in its step; log level applies at once', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-console-service-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    let logs = '';
    const service = await startService({
      env: { CHORUS_PORT: String(await freePort()), CHORUS_CONSOLE_TOKEN: TOKEN },
      projectDir: dir,
      logDestination: new Writable({
        write(chunk: Buffer, _encoding, callback) {
          logs += chunk.toString('utf8');
          callback();
        },
      }),
    });
    t.after(() => service.stop());
    const api = `${service.consoleUrl}api`;

    await service.store.corpus.learnAnswer({
      keywords: '你好',
      groupId: 1,
      answerKeywords: '早',
      answerTime: 100,
      message: '早上好',
      appendOnExisting: true,
    });
    await service.corpus.runtime.composite.findByKeywordsForReply('你好');
    assert.ok(service.store.corpus.stats().snapshotSize >= 1);

    let configured = 0;
    const configure = service.store.corpus.configure.bind(service.store.corpus);
    service.store.corpus.configure = (settings) => {
      configured++;
      configure(settings);
    };
    const saved = dataOf<{ steps: { step: string; ok: boolean; skipped?: boolean }[] }>(
      await send(api, 'PUT', '/plugins/core/config', { token: TOKEN, body: { values: { reply_snapshot_sec: 11 } } }),
    );
    assert.deepEqual(
      saved.steps.filter((step) => !step.skipped).map((step) => step.step),
      ['write_settings', 'reload_config', 'invalidate_find_cache', 'clear_reply_caches', 'rebuild_shared_repository'],
    );
    assert.equal(configured, 1, 'the reply settings are applied once, by the ordered step');
    const rebuilt = saved.steps.find((step) => step.step === 'rebuild_shared_repository') as { detail?: string };
    assert.match(rebuilt.detail ?? '', /community repository rebuilt/, 'the community side is wired');
    assert.equal(service.store.corpus.stats().snapshotSize, 0);
    assert.equal(service.config.current().performance.replySnapshotSec, 11);

    assert.equal(service.logger.level, 'info');
    dataOf(await send(api, 'PUT', '/common-config/logging', { token: TOKEN, body: { values: { log_level: 'warn' } } }));
    assert.equal(service.logger.level, 'warn');
    assert.ok(!logs.includes(TOKEN), 'the token never reaches the log');
  });
});
