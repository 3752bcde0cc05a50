/**
 * Learning from history over real sockets (docs/guide/groups.md#learning-from-history): the
 * service in this process, a scripted OneBot peer over a real WebSocket answering
 * get_group_msg_history page by page from a scripted history, and the console over real HTTP.
 * A seed learns a taught pair so that the first live message is answered; the history is
 * learned in the order it was said, sends nothing, and stops at the depth; an implementation
 * without the action ends the seed as plainly unsupported; the routes check their level and
 * their input, and a seed is cancellable and recorded in the activity log.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/app/service.ts';
import { describeText } from '../../src/repeater/keywords.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const READ = 'history-read-token-not-secret';
const WRITE = 'history-write-token-not-secret';
const BOT = 40001;
const [TAUGHT, CHAIN, DEEP, SLOW, ELSEWHERE, AUTO] = [7201, 7202, 7203, 7204, 7205, 7206];
const Q = '周末一起去爬山吗';
const A = '好呀带上零食';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, find: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface JobView {
  phase: string;
  text: { code: string; params: Record<string, string | number> } | null;
  result: Record<string, unknown> | null;
  progress_percent: number;
}

describe('learning from history', () => {
  let service: RunningService;
  let dir: string;
  let api: string;
  let peer: OneBotPeer;
  let learned = 0;
  let port = 0;
  const decided: number[] = [];

  const call = async (method: string, path: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (token) headers['x-chorus-token'] = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${api}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
    return { status: response.status, body: (await response.json()) as { ok: boolean; data: any; detail?: string } };
  };
  const seedOf = async (groupId: number): Promise<JobView | undefined> => {
    const list = await call('GET', '/history-seeds', READ);
    assert.equal(list.status, 200);
    return list.body.data.items.find((item: { group_id: number }) => item.group_id === groupId)?.job;
  };
  const seed = async (groupId: number, depth?: number) => {
    const started = await call('POST', `/group-configs/${groupId}/history-seed`, WRITE, depth ? { depth } : {});
    assert.equal(started.status, 200, started.body.detail);
    return started.body.data.job_id as string;
  };
  const finished = (groupId: number) =>
    waitFor(`the seed of ${groupId} to end`, async () => {
      const job = await seedOf(groupId);
      return job && (job.phase === 'done' || job.phase === 'failed') ? job : undefined;
    });
  const contextOf = (text: string) =>
    service.store.corpus.findByKeywords(describeText(text, text, service.chat.keywords).keywords);
  const follows = async (first: string, next: string) =>
    (await contextOf(first))?.answers.some((answer) => answer.messages.includes(next)) ?? false;
  /** Waits until every pair the seeds queued is written. */
  const written = async () => {
    const queued = service.corpus.runtime.learning.counters.queued;
    await waitFor(`${queued} lessons written`, () => (learned >= queued ? true : undefined));
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-history-'));
    port = await freePort();
    service = await startService({
      projectDir: dir,
      env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: READ, CHORUS_CONSOLE_WRITE_TOKEN: WRITE },
      logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
      onLearned: () => learned++,
      onDecision: (decision) => decided.push(decision.messageId),
    });
    api = `${service.consoleUrl}api`;
    peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT });
    peer.historyPageMax = 10;
    await waitFor('the account online', () => (service.chat.onebot.bots().length > 0 ? true : undefined));
  });
  after(async () => {
    await peer?.close().catch(() => undefined);
    await service?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('learns a taught pair from history, sending nothing, and answers it on the first live message', async () => {
    const taught = Array.from({ length: 5 }, () => [
      { userId: 11, text: Q },
      { userId: 12, text: A },
    ]).flat();
    peer.scriptHistory(TAUGHT, [
      { userId: 13, text: '大家早上好' },
      // A repeat three members long and a command: live, the bot would join the one and obey the other.
      { userId: 14, text: '冲冲冲' },
      { userId: 15, text: '冲冲冲' },
      { userId: 16, text: '冲冲冲' },
      { userId: 17, text: 'chorus闭嘴' },
      { userId: BOT, text: '我是机器人说过的话' },
      ...taught,
    ]);
    await seed(TAUGHT);
    const job = await finished(TAUGHT);
    assert.equal(job.phase, 'done', JSON.stringify(job));
    assert.equal(job.text?.code, 'history_seed.done');
    const result = job.result as {
      fetched: number;
      learned: number;
      skipped: number;
      skipped_by: Record<string, number>;
    };
    assert.equal(result.fetched, 16);
    assert.equal(result.skipped_by.self, 1, 'the bot’s own message is not learned');
    assert.equal(result.skipped_by.command, 1, 'a command is not learned');
    assert.equal(result.learned + result.skipped, 16);
    await written();
    // Nothing was decided or said during the seed: not the repeat, not an acknowledgement of the
    // command (every send follows a decision; a second shows none is on its way).
    await sleep(1_000);
    assert.deepEqual(decided, []);
    assert.deepEqual(peer.sent, []);
    assert.equal(await follows('我是机器人说过的话', Q), false, 'the bot’s own message is no predecessor');

    const before = peer.sent.length;
    peer.groupMessage({ groupId: TAUGHT, userId: 21, text: Q });
    const [reply] = await peer.nextSent(1);
    assert.equal(peer.sent.length, before + 1);
    assert.deepEqual(reply && { groupId: reply.groupId, message: reply.message }, { groupId: TAUGHT, message: A });
  });

  it('learns the history in the order it was said, across pages', async () => {
    // Sentences with no keyword in common, so each is its own context.
    const chain = [
      '今天天气真不错',
      '晚饭吃火锅怎么样',
      '明天考试复习了吗',
      '周末去看电影吧',
      '这首歌太好听了',
      '猫咪又把杯子打翻',
      '地铁今天特别挤',
      '新买的键盘手感好',
      '图书馆几点关门',
      '篮球比赛谁赢了',
      '快递终于到了',
      '咖啡喝多睡不着',
      '老板说要加班',
      '下雨记得带伞',
    ];
    peer.scriptHistory(
      CHAIN,
      chain.map((text, index) => ({ userId: 30 + (index % 3), text })),
    );
    await seed(CHAIN, 100);
    const job = await finished(CHAIN);
    assert.equal(job.phase, 'done', JSON.stringify(job));
    assert.equal((job.result as { fetched: number }).fetched, 14);
    await written();
    for (let index = 0; index + 1 < chain.length; index++) {
      const [first, next] = [chain[index] as string, chain[index + 1] as string];
      assert.equal(await follows(first, next), true, `${first} → ${next} learned`);
      assert.equal(await follows(next, first), false, `${next} → ${first} not learned`);
    }
    const calls = peer.actions.filter((a) => a.action === 'get_group_msg_history' && a.params.group_id === CHAIN);
    assert.ok(calls.length >= 2, `paged (${calls.length} calls)`);
    assert.equal(calls[0]?.params.message_seq, 0, 'the first page is the newest');
  });

  it('stops at the depth', async () => {
    // 30 sentences, each its own context (two keywords no other sentence has together).
    const who = ['小明', '老王', '阿花', '大壮', '小李', '阿强'];
    const what = ['买苹果', '修电脑', '学游泳', '画风景', '写代码'];
    const lines = who.flatMap((name) => what.map((thing) => `${name}今天去${thing}`));
    peer.scriptHistory(
      DEEP,
      lines.map((text, index) => ({ userId: 40 + (index % 2), text })),
    );
    await seed(DEEP, 12);
    const job = await finished(DEEP);
    assert.equal(job.phase, 'done', JSON.stringify(job));
    assert.equal((job.result as { fetched: number }).fetched, 12);
    await written();
    // The newest 12 (lines 19..30): 19 → 20 is learned, 17 → 18 is not.
    assert.equal(await follows(lines[18] as string, lines[19] as string), true);
    assert.equal(await follows(lines[16] as string, lines[17] as string), false);
    assert.equal(await follows(lines[17] as string, lines[18] as string), false, 'the oldest read has no predecessor');
  });

  it('checks level and input, cancels, and records the start in the activity log', async () => {
    const read = await call('POST', `/group-configs/${SLOW}/history-seed`, READ, { depth: 10 });
    assert.equal(read.status, 403);
    for (const depth of [0, 20_001, 'many', 1.5]) {
      const bad = await call('POST', `/group-configs/${SLOW}/history-seed`, WRITE, { depth });
      assert.equal(bad.status, 400, `depth ${String(depth)}`);
      assert.match(bad.body.detail ?? '', /depth/);
    }
    assert.equal(await seedOf(SLOW), undefined, 'nothing started by a refused request');

    peer.scriptHistory(
      SLOW,
      Array.from({ length: 300 }, (_, index) => ({ userId: 50, text: `慢慢读第${index}条` })),
    );
    await seed(SLOW, 300);
    const busy = await call('POST', `/group-configs/${SLOW}/history-seed`, WRITE, {});
    assert.equal(busy.status, 409);
    const cancelByRead = await call('DELETE', `/group-configs/${SLOW}/history-seed`, READ);
    assert.equal(cancelByRead.status, 403);
    const cancelled = await call('DELETE', `/group-configs/${SLOW}/history-seed`, WRITE);
    assert.deepEqual(cancelled.body.data, { cancelled: true });
    const job = await finished(SLOW);
    assert.equal(job.phase, 'failed');
    assert.equal(job.text?.code, 'history_seed.cancelled');
    const again = await call('DELETE', `/group-configs/${SLOW}/history-seed`, WRITE);
    assert.deepEqual(again.body.data, { cancelled: false });

    const log = await call('GET', `/activity?kind=history_seed&group_id=${SLOW}`, READ);
    assert.equal(log.status, 200);
    const [entry] = log.body.data.items;
    assert.equal(entry.kind, 'history_seed');
    assert.equal(entry.group_id, SLOW);
    assert.equal(entry.params.depth, 300);
    assert.equal(entry.actor.kind, 'console');
  });

  it('seeds a group switched on with auto-seed; a later seed learns only what is newer', async () => {
    peer.scriptHistory(
      AUTO,
      ['春游去哪里好', '植物园的花开了', '那就周日出发', '记得带水壶', '我负责买面包', '天气预报说晴'].map(
        (text, i) => ({
          userId: 60 + (i % 2),
          text,
        }),
      ),
    );
    const saved = await call('PUT', `/group-configs/${AUTO}`, WRITE, { history_seed: true });
    assert.equal(saved.status, 200);
    assert.equal(saved.body.data.history_seed, true);
    const job = await finished(AUTO);
    assert.equal(job.phase, 'done', JSON.stringify(job));
    assert.equal((job.result as { fetched: number }).fetched, 6);
    const log = await call('GET', `/activity?kind=history_seed&group_id=${AUTO}`, READ);
    const { kind, name } = log.body.data.items[0].actor;
    assert.deepEqual({ kind, name }, { kind: 'system', name: 'history_seed.switched_on' });
    const until = await waitFor('the seeded mark stored', async () => {
      const config = await call('GET', `/group-configs/${AUTO}`, READ);
      return config.body.data.history_seeded_until > 0 ? (config.body.data.history_seeded_until as number) : undefined;
    });
    assert.ok(until >= Math.floor(Date.now() / 1000) - 120, `seeded until ${until}`);

    // Seeding again reads nothing older than the mark: no message is learned twice.
    await seed(AUTO, 100);
    const again = await waitFor('the second seed', async () => {
      const view = await seedOf(AUTO);
      return view && view !== job && view.phase === 'done' && view.result !== job.result ? view : undefined;
    });
    assert.deepEqual(
      [(again.result as { fetched: number }).fetched, (again.result as { learned: number }).learned],
      [0, 0],
    );
  });

  it('says plainly when the implementation has no get_group_msg_history', async () => {
    await peer.close();
    // An implementation without the action: it answers retcode 1404, as OneBot v11 specifies.
    peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT + 1 });
    await waitFor('the second account online', () =>
      service.chat.onebot.bots().some((bot) => bot.selfId === BOT + 1) ? true : undefined,
    );
    await seed(ELSEWHERE, 50);
    const job = await finished(ELSEWHERE);
    assert.equal(job.phase, 'failed');
    assert.equal(job.text?.code, 'history_seed.unsupported');
    assert.equal(job.text?.params.account, BOT + 1);
    assert.equal((job.result as { supported: boolean }).supported, false);
  });
});
