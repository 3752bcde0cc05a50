/**
 * The one table of configuration reactions in a running service (`startService`, real HTTP, a
 * scripted OneBot peer over a real WebSocket): a save reports every step of the table in order and
 * the effects are real: the find caches start over once although three of their keys changed,
 * prefetch restarts, the backfill job is re-registered, the shared repository is rebuilt, the
 * OneBot token and the log level apply.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { startService } from '../../src/app/service.ts';
import { REACTION_STEPS } from '../../src/config/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const WRITE = 'reactions-write-token';
const OLD = 'old-onebot-token-123';
const NEW = 'new-onebot-token-456';

interface Step {
  step: string;
  ok: boolean;
  skipped?: boolean;
  detail?: string;
}

it('a save runs the table once, in order, reports each step and applies it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-reactions-'));
  const port = await freePort();
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: 'reactions-read-token',
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
      CHORUS_ONEBOT_ACCESS_TOKEN: OLD,
      CHORUS_LOG_LEVEL: 'info',
    },
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  const peers: OneBotPeer[] = [];
  t.after(async () => {
    for (const peer of peers) await peer.close().catch(() => undefined);
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const put = async (path: string, values: Record<string, unknown>): Promise<Step[]> => {
    const response = await fetch(`http://127.0.0.1:${port}/chorus/api${path}`, {
      method: 'PUT',
      headers: { 'x-chorus-token': WRITE, 'content-type': 'application/json' },
      body: JSON.stringify({ values }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return (JSON.parse(text) as { data: { steps: Step[] } }).data.steps;
  };
  const row = (step: Step) => [step.step, step.ok, step.skipped ?? false];

  // What the corpus side did, watched on the running objects.
  const { runtime, community } = service.corpus;
  const told: (string | undefined)[] = [];
  runtime.composite.onKeyChanged((key) => told.push(key));
  const caches = runtime.shared.caches;
  const { merged, reply } = caches;
  let cleared = 0;
  for (const cache of [merged, reply]) {
    const invalidate = cache.invalidate.bind(cache);
    cache.invalidate = (key?: string) => {
      cleared++;
      invalidate(key);
    };
  }
  const rebuilds = community.parts.repository.counters.rebuilds;
  const restarts = community.parts.prefetchWorkers.restarts;

  const core = await put('/plugins/core/config', {
    remote_find_enabled: 'prefetch',
    find_cache_sec: 30,
    find_cache_max: 5000,
    reply_snapshot_sec: 9,
    backfill_enabled: true,
  });
  assert.deepEqual(
    core.map((step) => step.step),
    ['write_settings', 'reload_config', ...REACTION_STEPS],
    'every step of the table, in order',
  );
  assert.deepEqual(core.map(row), [
    ['write_settings', true, false],
    ['reload_config', true, false],
    ['invalidate_find_cache', true, false],
    ['restart_prefetch', true, false],
    ['clear_reply_caches', true, false],
    ['reregister_backfill', true, false],
    ['rebuild_shared_repository', true, false],
    ['sync_community_jobs', true, true],
    ['apply_remote_budget', true, true],
    ['reschedule_cleanup', true, true],
    ['apply_repeater_settings', true, true],
    ['restart_maintenance', true, true],
    ['apply_onebot', true, true],
    ['apply_logging', true, true],
  ]);
  const detail = (steps: Step[], name: string) => steps.find((step) => step.step === name)?.detail ?? '';
  assert.match(detail(core, 'restart_prefetch'), /prefetch workers restarted/);
  assert.match(detail(core, 'reregister_backfill'), /backfill job/);
  assert.match(detail(core, 'clear_reply_caches'), /snapshot cache cleared/);
  // The find caches started over once with the new size: new and empty, the key listeners told once.
  assert.notEqual(runtime.shared.caches.merged, merged);
  assert.notEqual(runtime.shared.caches.reply, reply);
  assert.equal(cleared, 0, 'the replaced caches were not also cleared');
  assert.deepEqual(told, [undefined]);
  assert.equal(community.parts.prefetchWorkers.restarts, restarts + 1);
  assert.equal(community.parts.prefetchWorkers.running, true, 'prefetch mode: the workers run');
  assert.equal(community.parts.repository.counters.rebuilds, rebuilds + 1, 'rebuilt once');

  // The OneBot token: the connection let in under the old one closes, the old token is refused.
  const url = `ws://127.0.0.1:${port}/onebot/v11/ws`;
  const old = await OneBotPeer.connect({ url, selfId: 50002, accessToken: OLD });
  peers.push(old);
  told.length = 0;
  const onebot = await put('/plugins/onebot/config', { access_token: NEW });
  assert.deepEqual(onebot.filter((step) => !step.skipped).map(row), [
    ['write_settings', true, false],
    ['reload_config', true, false],
    ['apply_onebot', true, false],
  ]);
  assert.match(detail(onebot, 'apply_onebot'), /access token changed: 1 connection\(s\) closed/);
  await old.waitClosed(3_000);
  assert.equal(await OneBotPeer.refusal({ url, selfId: 50002, accessToken: OLD }), 401);
  const fresh = await OneBotPeer.connect({ url, selfId: 50002, accessToken: NEW });
  peers.push(fresh);
  assert.ok(fresh.isOpen);
  assert.deepEqual(told, [], 'a OneBot save leaves the find caches alone');

  // The log level.
  const logging = await put('/common-config/logging', { log_level: 'warn' });
  assert.deepEqual(logging.filter((step) => !step.skipped).map(row), [
    ['write_settings', true, false],
    ['reload_config', true, false],
    ['apply_logging', true, false],
  ]);
  assert.equal(detail(logging, 'apply_logging'), 'level warn');
  assert.equal(service.logger.level, 'warn');
});
