/**
 * Reminders end to end (docs/agent-tasks.md): `chorus serve` with a scripted OneBot account over a
 * real WebSocket. A reminder is created through the toolbox exactly as the model's tool call would
 * (`run('create_reminder', json, context)`; the model's chat path is wired separately), the service
 * is stopped before it is due and a new one started on the same data folder, and the new one sends
 * it into the group at its time, once, mentioning its creator. Then the creator lists and cancels
 * another reminder in chat (answered in Chinese, recorded in the activity log), and someone else
 * cannot cancel one.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it, type TestContext } from 'node:test';
import { startService } from '../../src/app/service.ts';
import { AgentTaskStore } from '../../src/store/agent-tasks-store.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const BOT = 64101;
const GROUP = 7601;
const CREATOR = 123456789;
const OTHER = 223456789;
const WRITE = 'reminders-write-token';

async function serve(t: TestContext, dir: string) {
  const port = await freePort();
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_DATA_DIR: dir,
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
      CHORUS_CONSOLE_TOKEN: 'reminders-read-token',
      CHORUS_REPEATER_NICKNAMES: '小合',
      CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
    },
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await service.stop();
  };
  t.after(stop);
  const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT });
  t.after(() => peer.close().catch(() => undefined));
  // The account is connected once the service knows it (the scheduler sends for connected accounts only).
  await waitFor('the account connected', () => service.chat.platforms.bots().some((bot) => bot.selfId === BOT));
  return { service, peer, stop, port };
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const context = () => ({ selfId: BOT, groupId: GROUP, userId: CREATOR, now: Date.now() });

it(
  'a reminder made by a tool call is sent at its time, once, after a restart; its creator cancels another in chat',
  { timeout: 120_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-reminders-'));
    t.after(() => rm(dir, { recursive: true, force: true }));

    const first = await serve(t, dir);
    const made = await first.service.agentTasks.toolbox.run(
      'create_reminder',
      JSON.stringify({ when: 5, text: '该去开会了 [周报] & 总结' }),
      context(),
    );
    const id = Number(/^ok: reminder #(\d+) /.exec(made)?.[1]);
    assert.ok(id > 0, made);
    assert.ok(!made.includes(String(CREATOR)), 'no QQ number goes back to the model');
    // The tool allows one minute ahead at least; the stored time is moved to 4 s from now so the
    // test does not wait a minute. Everything after this is the service's own doing.
    const dueAt = Date.now() + 4000;
    await first.service.store.engine.db
      .withTables<{ agent_task: { id: number; due_at: number } }>()
      .updateTable('agent_task')
      .set({ due_at: dueAt })
      .where('id', '=', id)
      .execute();
    await first.stop();
    assert.equal(first.peer.sent.length, 0, 'nothing was sent before the restart');

    const second = await serve(t, dir);
    const [sent] = await second.peer.nextSent(1);
    assert.ok(Date.now() >= dueAt, 'not before its time');
    assert.equal(sent?.groupId, GROUP);
    assert.equal(sent?.message, `[CQ:at,qq=${CREATOR}] 提醒：该去开会了 &#91;周报&#93; &amp; 总结`, 'said as typed');
    const tasks = new AgentTaskStore(second.service.store.engine);
    assert.equal((await tasks.get(id))?.status, 'done');
    await second.service.agentTasks.scheduler.tick();
    assert.equal(second.peer.sent.length, 1, 'once');

    // The creator lists and cancels another reminder in chat.
    const later = await second.service.agentTasks.toolbox.run(
      'create_reminder',
      JSON.stringify({ when: 60, text: '记得喝水' }),
      context(),
    );
    const laterId = Number(/^ok: reminder #(\d+) /.exec(later)?.[1]);
    assert.ok(laterId > id, later);

    second.peer.groupMessage({ groupId: GROUP, userId: CREATOR, text: '小合 我的提醒', nickname: '阿明' });
    const [list] = await second.peer.nextSent(1);
    assert.match(
      list?.message ?? '',
      new RegExp(`^你的提醒：\\n#${laterId} .* 记得喝水\\n发送「取消提醒 编号」可以取消。$`),
    );

    second.peer.groupMessage({ groupId: GROUP, userId: OTHER, text: `小合 取消提醒 ${laterId}` });
    const [refused] = await second.peer.nextSent(1);
    assert.equal(refused?.message, `没有找到你的提醒 #${laterId}。`);
    assert.equal((await tasks.get(laterId))?.status, 'open', 'only its creator cancels it');

    second.peer.groupMessage({ groupId: GROUP, userId: CREATOR, text: `取消提醒 ${laterId}`, nickname: '阿明' });
    const [cancelled] = await second.peer.nextSent(1);
    assert.equal(cancelled?.message, `好的，提醒 #${laterId} 已取消。`);
    const row = await tasks.get(laterId);
    assert.equal(row?.status, 'cancelled');
    assert.equal(row?.cancelledBy, 'chat');

    const activity = await fetch(`http://127.0.0.1:${second.port}/chorus/api/activity?kind=agent_task_cancel`, {
      headers: { 'x-chorus-token': WRITE },
    });
    const entries = (
      (await activity.json()) as { data: { items: { actor: Record<string, unknown>; group_id: number }[] } }
    ).data.items;
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.group_id, GROUP);
    assert.equal(entries[0]?.actor.kind, 'chat');
    assert.equal(entries[0]?.actor.user_id, CREATOR);
  },
);
