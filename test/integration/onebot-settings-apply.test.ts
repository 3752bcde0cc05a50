/**
 * OneBot settings saved from the console apply at once (a running service, real HTTP, a scripted
 * OneBot peer over a real WebSocket): a new access token closes the connections let in under the
 * old one, refuses the old token from then on and accepts the new one; a new action timeout
 * applies to the next action; new liveness intervals apply to the open connections; the save
 * report says what was done.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { startService } from '../../src/app/service.ts';
import { ONEBOT_CLOSE_CODE } from '../../src/onebot/limits.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const OLD = 'old-onebot-token-123';
const NEW = 'new-onebot-token-456';
const WRITE = 'onebot-apply-write-token';

it('a rotated OneBot access token takes effect on save: old connections closed, old token refused', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-onebot-apply-'));
  const port = await freePort();
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: 'onebot-apply-read-token',
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
      CHORUS_ONEBOT_ACCESS_TOKEN: OLD,
    },
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  const url = `ws://127.0.0.1:${port}/onebot/v11/ws`;
  const peers: OneBotPeer[] = [];
  t.after(async () => {
    for (const peer of peers) await peer.close().catch(() => undefined);
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const old = await OneBotPeer.connect({ url, selfId: 50001, accessToken: OLD });
  peers.push(old);

  const save = async (values: Record<string, unknown>) => {
    const response = await fetch(`http://127.0.0.1:${port}/chorus/api/plugins/onebot/config`, {
      method: 'PUT',
      headers: { 'x-chorus-token': WRITE, 'content-type': 'application/json' },
      body: JSON.stringify({ values }),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { data: { steps: { step: string; ok: boolean; detail?: string }[] } };
    return body.data.steps.find((step) => step.step === 'apply_onebot');
  };

  const applied = await save({ access_token: NEW });
  assert.equal(applied?.ok, true);
  assert.match(applied?.detail ?? '', /access token changed: 1 connection\(s\) closed/);
  assert.equal((await old.waitClosed(3_000)).code, ONEBOT_CLOSE_CODE.tokenChanged);
  assert.equal(await OneBotPeer.refusal({ url, selfId: 50001, accessToken: OLD }), 401, 'the old token is refused');
  const fresh = await OneBotPeer.connect({ url, selfId: 50001, accessToken: NEW });
  peers.push(fresh);
  assert.ok(fresh.isOpen, 'the new token is accepted');

  const timeout = await save({ action_timeout_sec: 3 });
  assert.match(timeout?.detail ?? '', /action timeout now 3 s/);
  assert.equal(fresh.isOpen, true, 'a timeout change closes nothing');

  // Shorter liveness applies to the open connection: once it hangs, it is closed within seconds.
  const liveness = await save({ ping_interval_sec: 1, pong_timeout_sec: 1 });
  assert.match(liveness?.detail ?? '', /liveness: ping every 1 s, answer within 1 s/);
  assert.equal(fresh.isOpen, true, 'a liveness change closes nothing by itself');
  fresh.freeze();
  const deadline = Date.now() + 10_000;
  while (service.chat.onebot.bots().some((bot) => bot.selfId === 50001)) {
    assert.ok(Date.now() < deadline, 'the hung connection is closed');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // A hung peer reads no close frame: cut it rather than wait for its close.
  fresh.terminate();
});
