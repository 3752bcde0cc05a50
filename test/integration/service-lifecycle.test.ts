/**
 * `startService` starts its parts in order and stops them in reverse under one deadline
 * (src/app/service.ts): a port already taken fails the start with everything already running
 * stopped, and the singleton jobs' group follows the shard role.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { startService } from '../../src/app/service.ts';
import { freePort } from '../support/chorus-process.ts';

const quiet = () =>
  new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });

describe('service lifecycle', () => {
  it('a taken port fails the start and stops what was running; the other service stops cleanly', async (t) => {
    const first = await mkdtemp(join(tmpdir(), 'chorus-lifecycle-a-'));
    const second = await mkdtemp(join(tmpdir(), 'chorus-lifecycle-b-'));
    t.after(() => Promise.all([first, second].map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5 }))));
    const port = String(await freePort());
    const running = await startService({ env: { CHORUS_PORT: port }, projectDir: first, logDestination: quiet() });
    await assert.rejects(
      startService({ env: { CHORUS_PORT: port }, projectDir: second, logDestination: quiet() }),
      /EADDRINUSE/,
    );
    assert.equal(running.chat.maintenance.scheduled, true, 'the primary runs the daily maintenance');
    await running.stop(3000);
    assert.equal(running.chat.maintenance.scheduled, false);
    assert.equal(running.corpus.learnWorker.running, false);
  });

  it('a part that fails to stop makes stop reject naming it, after the others stopped', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-lifecycle-fail-'));
    t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
    const service = await startService({
      env: { CHORUS_PORT: String(await freePort()) },
      projectDir: dir,
      logDestination: quiet(),
    });
    const close = service.store.close.bind(service.store);
    service.store.close = async () => {
      await close();
      throw new Error('disk gone');
    };
    await assert.rejects(service.stop(3000), /failed \[store: disk gone\]/);
    assert.equal(service.chat.maintenance.scheduled, false);
    assert.equal(service.server.server.listening, false);
  });

  it('the singleton jobs stop when the process becomes a shard worker and start again as primary', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-lifecycle-role-'));
    t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
    const service = await startService({
      env: { CHORUS_PORT: String(await freePort()), CHORUS_CORPUS_BACKFILL_ENABLED: 'true' },
      projectDir: dir,
      logDestination: quiet(),
    });
    t.after(() => service.stop());
    const backfill = service.corpus.community.parts.backfillJob.job;
    assert.equal(service.chat.maintenance.scheduled, true);
    assert.equal(backfill.started, true);
    await service.config.saveConsoleSettings({ CHORUS_SHARD_ROLE: 'worker' });
    await waitFor(() => !service.chat.maintenance.scheduled && !backfill.started);
    await service.config.saveConsoleSettings({ CHORUS_SHARD_ROLE: 'primary' });
    await waitFor(() => service.chat.maintenance.scheduled && backfill.started);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 100) assert.fail('condition not met within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
