/**
 * The ban manager (docs/rules.md#bans): target resolution,
 * strikes, the global list, the ban set, persistence.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BanManager } from '../../../src/repeater/bans.ts';
import { GLOBAL_BAN_GROUP } from '../../../src/repeater/limits.ts';
import { ReplyRecords, type ReplyRecord } from '../../../src/repeater/reply-records.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import { FakeLocal, NOW_SEC } from '../../support/corpus-fakes.ts';
import { contextWith, MemoryBlacklists } from './support.ts';

const G = 42;

function setup() {
  const clock = new FakeClock(NOW_SEC * 1000);
  const corpus = new FakeLocal();
  const records = new ReplyRecords(() => clock.monotonicMs());
  const repository = new MemoryBlacklists();
  const bans = new BanManager({
    corpus,
    records,
    repository,
    crossGroupThreshold: () => 2,
    clock,
    log: silentLog,
  });
  const reply = (botId: number, pre: string, reply: string, replyKeywords: string, messageId: number | null = null) =>
    records.add(G, { botId, time: 1, preRawMessage: pre, preKeywords: pre, reply, replyKeywords, messageId });
  return { clock, corpus, records, repository, bans, reply };
}

function banOf(corpus: FakeLocal) {
  return corpus.calls.filter((call) => call.method === 'appendBan').map((call) => call.args);
}

describe('BanManager.ban', () => {
  it('bans with the matched record: context = its pre keywords, answer = its reply keywords', async () => {
    const { bans, corpus, reply } = setup();
    reply(7, '你好', '早上好呀', '早上');
    reply(7, '晚安', '睡了', '睡');
    const result = await bans.ban({ groupId: G, botId: 7, raw: '早上好', reason: '123' });
    assert.deepEqual(result, { contextKeywords: '你好', answerKeywords: '早上', strike: 'reserve' });
    assert.deepEqual(banOf(corpus), [['你好', { keywords: '早上', groupId: G, reason: '123', time: NOW_SEC }]]);
  });

  it('an empty raw bans the newest record of that bot; other bots are searched after it', async () => {
    const { bans, reply } = setup();
    reply(7, 'a', 'A', 'ka');
    reply(8, 'b', 'B', 'kb');
    assert.equal((await bans.ban({ groupId: G, botId: 7, raw: '', reason: '1' }))?.answerKeywords, 'ka');
    assert.equal((await bans.ban({ groupId: G, botId: 7, raw: 'B', reason: '1' }))?.answerKeywords, 'kb');
  });

  it('an exact message id wins over text search; a CQ type matches a record of that type', async () => {
    const { bans, reply } = setup();
    reply(7, 'a', '同一句', 'k1', 100);
    reply(7, 'b', '同一句', 'k2', 101);
    assert.equal(
      (await bans.ban({ groupId: G, botId: 7, raw: '同一句', reason: '1', messageId: 100 }))?.answerKeywords,
      'k1',
    );
    reply(7, 'c', '[CQ:image,file=x.image]', 'kimg');
    const byType = await bans.ban({ groupId: G, botId: 7, raw: '[CQ:image,file=other.image]', reason: '1' });
    assert.equal(byType?.answerKeywords, 'kimg');
  });

  it('falls back to the corpus when no record matches; no match anywhere is false', async () => {
    const { bans, corpus } = setup();
    corpus.seed(contextWith('你好', [['早', G, 3, ['早早早']]]));
    const found = await bans.ban({ groupId: G, botId: 7, raw: '早早早', reason: '1' });
    assert.deepEqual(found, { contextKeywords: '你好', answerKeywords: '早', strike: 'reserve' });
    assert.equal(corpus.count('findBanReplyTarget'), 1);
    assert.equal(await bans.ban({ groupId: G, botId: 7, raw: '没有', reason: '1' }), null);
    assert.equal(await bans.ban({ groupId: 999, botId: 7, raw: '', reason: '1' }), null, 'unknown group');
    assert.equal(banOf(corpus).length, 1);
  });

  it('a failing corpus lookup counts as no match', async () => {
    const { bans, corpus } = setup();
    corpus.override.findBanReplyTarget = async () => {
      throw new Error('db down');
    };
    assert.equal(await bans.ban({ groupId: G, botId: 7, raw: 'x', reason: '1' }), null);
  });

  it('first strike reserves, second activates; two groups active make it global; saved at once', async () => {
    const { bans, reply, records, repository } = setup();
    reply(7, 'a', 'A', 'k');
    assert.equal((await bans.ban({ groupId: G, botId: 7, raw: 'A', reason: '1' }))?.strike, 'reserve');
    assert.deepEqual(bans.lists(G), { active: [], reserve: ['k'] });
    assert.deepEqual(repository.rows.get(G), { groupId: G, answers: [], answersReserve: ['k'] });
    assert.equal((await bans.ban({ groupId: G, botId: 7, raw: 'A', reason: '2' }))?.strike, 'active');
    assert.deepEqual(bans.lists(G).active, ['k']);
    assert.deepEqual(repository.rows.get(G), { groupId: G, answers: ['k'], answersReserve: [] });
    assert.deepEqual(bans.lists(GLOBAL_BAN_GROUP), { active: [], reserve: ['k'] });
    records.add(43, {
      botId: 7,
      time: 1,
      preRawMessage: 'a',
      preKeywords: 'a',
      reply: 'A',
      replyKeywords: 'k',
      messageId: null,
    } as ReplyRecord);
    await bans.ban({ groupId: 43, botId: 7, raw: 'A', reason: '3' });
    await bans.ban({ groupId: 43, botId: 7, raw: 'A', reason: '3' });
    assert.deepEqual(bans.lists(GLOBAL_BAN_GROUP).active, ['k']);
    assert.deepEqual(repository.rows.get(GLOBAL_BAN_GROUP)?.answers, ['k']);
  });

  it('every ban changes the version (cached bundles are keyed by it)', async () => {
    const { bans, reply } = setup();
    reply(7, 'a', 'A', 'k');
    const before = bans.version;
    await bans.ban({ groupId: G, botId: 7, raw: '', reason: '1' });
    assert.equal(bans.version, before + 1);
  });
});

describe('BanManager ban set and persistence', () => {
  it('ban set: global and group active lists, context bans of this group or global, and 2+ other-group bans', async () => {
    const { bans, repository } = setup();
    repository.rows.set(GLOBAL_BAN_GROUP, { groupId: GLOBAL_BAN_GROUP, answers: ['g'], answersReserve: [] });
    repository.rows.set(G, { groupId: G, answers: ['own'], answersReserve: ['reserved'] });
    await bans.load();
    const context = contextWith(
      '你好',
      [],
      [
        { keywords: 'here', groupId: G, reason: '1', time: 1 },
        { keywords: 'everywhere', groupId: GLOBAL_BAN_GROUP, reason: '1', time: 1 },
        { keywords: 'once', groupId: 7, reason: '1', time: 1 },
        { keywords: 'twice', groupId: 7, reason: '1', time: 1 },
        { keywords: 'twice', groupId: 7, reason: '2', time: 1 },
      ],
    );
    assert.deepEqual([...bans.bannedFor(context, G)].sort(), ['everywhere', 'g', 'here', 'own', 'twice']);
    assert.deepEqual([...bans.bannedFor(context, 7)].sort(), ['everywhere', 'g', 'once', 'twice']);
  });

  it('load promotes only keywords active in two groups to the global list', async () => {
    const { bans, repository } = setup();
    repository.rows.set(1, { groupId: 1, answers: ['shared', 'one'], answersReserve: [] });
    repository.rows.set(2, { groupId: 2, answers: ['shared'], answersReserve: ['x'] });
    await bans.load();
    assert.deepEqual(bans.lists(GLOBAL_BAN_GROUP).active, ['shared']);
    assert.deepEqual(bans.lists(2), { active: ['shared'], reserve: ['x'] });
  });

  it('save merges what another process stored, and writes reserve minus active', async () => {
    const { bans, repository, reply } = setup();
    await bans.load();
    reply(7, 'a', 'A', 'k');
    await bans.ban({ groupId: G, botId: 7, raw: 'A', reason: '1' });
    // Another process adds a ban to the same group meanwhile.
    repository.rows.set(G, { groupId: G, answers: ['theirs'], answersReserve: ['k'] });
    await bans.save();
    assert.deepEqual(repository.rows.get(G), { groupId: G, answers: ['theirs'], answersReserve: ['k'] });
    assert.deepEqual(bans.lists(G).active, ['theirs']);
  });
});

describe('bans across processes (docs/rules.md#fleet-feed)', () => {
  it('a ban tells onBanned; reload merges what another process stored and changes the version', async () => {
    const told: [number, string][] = [];
    const clock = new FakeClock(NOW_SEC * 1000);
    const records = new ReplyRecords(() => clock.monotonicMs());
    const repository = new MemoryBlacklists();
    const here = new BanManager({
      corpus: new FakeLocal(),
      records,
      repository,
      crossGroupThreshold: () => 2,
      clock,
      log: silentLog,
      onBanned: (groupId, keywords) => told.push([groupId, keywords]),
    });
    records.add(G, {
      botId: 7,
      time: 1,
      preRawMessage: '你好',
      preKeywords: '你好',
      reply: '早',
      replyKeywords: '早',
      messageId: null,
    });
    await here.ban({ groupId: G, botId: 7, raw: '', reason: '1' });
    assert.deepEqual(told, [[G, '你好']]);

    const there = new BanManager({
      corpus: new FakeLocal(),
      records: new ReplyRecords(() => clock.monotonicMs()),
      repository,
      crossGroupThreshold: () => 2,
      clock,
      log: silentLog,
    });
    const before = there.version;
    assert.deepEqual(there.lists(G).reserve, []);
    await there.reload(G);
    assert.deepEqual(there.lists(G).reserve, ['早']);
    assert.ok(there.version > before, 'cached reply bundles are no longer used');
  });
});
