/**
 * Console corpus moderation (CorpusBrowser, ModerationStore) on both engines: search by keywords
 * and answer text, prefix and substring, paged; ban, delete answer, delete context, the log, and
 * undo restoring counts, messages (in order) and bans exactly.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CorpusBrowser, DETAIL_VIEW, type ContextView } from '../../src/store/corpus-browse.ts';
import { ModerationError, ModerationStore } from '../../src/store/moderation-store.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { forEachEngine } from '../support/engines.ts';

const DAY = 86_400;

async function learn(
  store: LocalStore,
  keywords: string,
  answer: string,
  groupId: number,
  message: string,
  time: number,
) {
  await store.corpus.learnAnswer({
    keywords,
    groupId,
    answerKeywords: answer,
    answerTime: time,
    message,
    appendOnExisting: true,
  });
}

/** Everything about a context a restore must put back (ids aside). */
function shape(view: ContextView | undefined) {
  if (!view) return null;
  return {
    keywords: view.keywords,
    time: view.time,
    triggerCount: view.triggerCount,
    clearTime: view.clearTime,
    answerCountSum: view.answerCountSum,
    answers: view.answers
      .map((a) => ({ keywords: a.keywords, groupId: a.groupId, count: a.count, time: a.time, messages: a.messages }))
      .sort((x, y) => `${x.groupId}${x.keywords}`.localeCompare(`${y.groupId}${y.keywords}`)),
    bans: view.bans.map((b) => ({ keywords: b.keywords, groupId: b.groupId, reason: b.reason, time: b.time })),
  };
}

async function byKeywords(browser: CorpusBrowser, keywords: string): Promise<ContextView | undefined> {
  const page = await browser.search({ text: keywords, field: 'keywords', match: 'prefix', offset: 0, limit: 50 });
  const hit = page.items.find((item) => item.keywords === keywords);
  return hit ? (await browser.views([hit.id], DETAIL_VIEW))[0] : undefined;
}

forEachEngine((engine) => {
  it('searches keywords and answer text by prefix and substring, paged, with views', async (t) => {
    const store = await engine.open(t);
    const browser = new CorpusBrowser(store.engine);
    await learn(store, '今天 天气', '出去 玩', 101, '是啊适合出去玩', 1000);
    await learn(store, '今天 天气', '出去 玩', 101, '是啊适合出去玩！', 1001);
    await learn(store, '今天 天气', '下雨', 102, '好像要下雨了', 1002);
    await learn(store, '明天 天气', '晴天', 101, '明天晴天', 1003);
    for (let i = 0; i < 7; i++) await learn(store, `测试 ${i}`, '好', 103, `第${i}条`, 1010 + i);

    const kw = await browser.search({ text: '今天', field: 'keywords', match: 'prefix', offset: 0, limit: 10 });
    assert.deepEqual(
      kw.items.map((c) => c.keywords),
      ['今天 天气'],
    );
    const [today] = kw.items;
    assert.equal(today?.triggerCount, 3, 'every learn counts a trigger');
    assert.equal(today?.answerCountSum, 3);
    assert.deepEqual(
      today?.answers.map((a) => [a.keywords, a.groupId, a.count, a.messageCount, a.messages]),
      [
        ['出去 玩', 101, 2, 2, ['是啊适合出去玩！', '是啊适合出去玩']],
        ['下雨', 102, 1, 1, ['好像要下雨了']],
      ],
    );
    // Substring of keywords; answer text by prefix and by substring; field all.
    const sub = await browser.search({ text: '天气', field: 'keywords', match: 'substring', offset: 0, limit: 10 });
    assert.deepEqual(sub.items.map((c) => c.keywords).sort(), ['今天 天气', '明天 天气']);
    const ans = await browser.search({ text: '是啊适合', field: 'answer', match: 'prefix', offset: 0, limit: 10 });
    assert.deepEqual(
      ans.items.map((c) => c.keywords),
      ['今天 天气'],
    );
    const ansSub = await browser.search({ text: '晴天', field: 'answer', match: 'substring', offset: 0, limit: 10 });
    assert.deepEqual(
      ansSub.items.map((c) => c.keywords),
      ['明天 天气'],
    );
    const all = await browser.search({ text: '明天', field: 'all', match: 'prefix', offset: 0, limit: 10 });
    assert.deepEqual(
      all.items.map((c) => c.keywords),
      ['明天 天气'],
    );
    assert.deepEqual(
      (await browser.search({ text: '无此', field: 'all', match: 'substring', offset: 0, limit: 5 })).items,
      [],
    );
    // Paging: 7 matches in pages of 3.
    const seen: string[] = [];
    for (let offset = 0, more = true; more; offset += 3) {
      const page = await browser.search({ text: '测试', field: 'keywords', match: 'prefix', offset, limit: 3 });
      seen.push(...page.items.map((c) => c.keywords));
      more = page.hasMore;
      assert.ok(page.items.length <= 3);
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 7 }, (_, i) => `测试 ${i}`),
    );
  });

  it('bans in one group and everywhere; undo removes exactly that ban', async (t) => {
    const store = await engine.open(t);
    const browser = new CorpusBrowser(store.engine);
    const moderation = new ModerationStore(store.engine);
    await learn(store, '早上 好', '早', 101, '早啊', 1000);
    const before = await byKeywords(browser, '早上 好');
    const answerId = before!.answers[0]!.id;
    const here = await moderation.ban(answerId, 101, 'ban_group', 'rude', 'write session', 5000);
    const everywhere = await moderation.ban(answerId, 114514, 'ban_all', '', 'write session', 5001);
    assert.equal(here.keywords, '早上 好');
    assert.deepEqual([here.entry.action, here.entry.groupId, here.entry.answerKeywords], ['ban_group', 101, '早']);
    assert.equal(everywhere.entry.action, 'ban_all');
    const banned = await store.corpus.findByKeywords('早上 好');
    assert.deepEqual(
      banned?.bans.map((b) => [b.keywords, b.groupId, b.reason]),
      [
        ['早', 101, 'rude'],
        ['早', 114514, ''],
      ],
    );

    const other = { kind: 'console' as const, level: 'write', address: '10.0.0.9' };
    const undone = await moderation.undo(here.entry.id, other, 5002, DAY);
    assert.deepEqual([undone.entry.undoneAt, undone.entry.undoneBy], [5002, 'write from 10.0.0.9']);
    assert.deepEqual(
      (await store.corpus.findByKeywords('早上 好'))?.bans.map((b) => b.groupId),
      [114514],
    );
    await assert.rejects(
      moderation.undo(here.entry.id, 'other', 5003, DAY),
      (e: unknown) => e instanceof ModerationError && e.reason === 'conflict',
    );
    await assert.rejects(moderation.undo(everywhere.entry.id, 'x', 5001 + DAY + 1, DAY), /older than the undo window/);
    await assert.rejects(
      moderation.undo(999, 'x', 5003, DAY),
      (e: unknown) => e instanceof ModerationError && e.reason === 'not_found',
    );
    await assert.rejects(moderation.ban(999_999, 101, 'ban_group', '', 'x', 1), /answer_id: no answer/);
    const log = await moderation.list(0, 10);
    assert.deepEqual(
      log.items.map((e) => [e.action, e.undoneAt > 0]),
      [
        ['ban_all', false],
        ['ban_group', true],
      ],
    );
  });

  it('delete answer and delete context; undo restores counts, messages in order and bans exactly', async (t) => {
    const store = await engine.open(t);
    const browser = new CorpusBrowser(store.engine);
    const moderation = new ModerationStore(store.engine);
    for (let i = 0; i < 4; i++) await learn(store, '吃饭 了', '吃 了', 101, `吃了${i}`, 1000 + i);
    await learn(store, '吃饭 了', '没', 102, '还没', 1010);
    await store.corpus.appendBan('吃饭 了', { keywords: '没', groupId: 101, reason: 'r', time: 1020 });
    const original = await byKeywords(browser, '吃饭 了');
    const target = original!.answers.find((a) => a.keywords === '吃 了')!;

    const deleted = await moderation.deleteAnswer(target.id, 'w', 2000);
    const without = await byKeywords(browser, '吃饭 了');
    assert.deepEqual(
      without?.answers.map((a) => a.keywords),
      ['没'],
    );
    assert.equal(without?.answerCountSum, 1);
    await moderation.undo(deleted.entry.id, 'w', 2001, DAY);
    assert.deepEqual(shape(await byKeywords(browser, '吃饭 了')), shape(original));

    const gone = await moderation.deleteContext(original!.id, 'w', 2002);
    assert.equal(await store.corpus.findByKeywords('吃饭 了'), null);
    await moderation.undo(gone.entry.id, 'w', 2003, DAY);
    const restored = await byKeywords(browser, '吃饭 了');
    assert.deepEqual(shape(restored), shape(original));
    const full = await store.corpus.findByKeywords('吃饭 了');
    assert.deepEqual(full?.answers.find((a) => a.keywords === '吃 了')?.messages, ['吃了0', '吃了1', '吃了2', '吃了3']);
  });

  it('an undo after the answer was learned again merges: counts add up, restored messages first', async (t) => {
    const store = await engine.open(t);
    const browser = new CorpusBrowser(store.engine);
    const moderation = new ModerationStore(store.engine);
    await learn(store, '晚安', '晚安 呀', 101, '晚安呀1', 1000);
    await learn(store, '晚安', '晚安 呀', 101, '晚安呀2', 1001);
    const original = await byKeywords(browser, '晚安');
    const deleted = await moderation.deleteContext(original!.id, 'w', 2000);
    await learn(store, '晚安', '晚安 呀', 101, '晚安呀3', 2001);
    await moderation.undo(deleted.entry.id, 'w', 2002, DAY);
    const merged = await store.corpus.findByKeywords('晚安');
    assert.equal(merged?.triggerCount, 3, 'two before the delete, one since');
    assert.deepEqual(
      merged?.answers.map((a) => [a.count, a.time, a.messages]),
      [[3, 2001, ['晚安呀1', '晚安呀2', '晚安呀3']]],
    );
    assert.equal((await byKeywords(browser, '晚安'))?.answerCountSum, 3);
  });
});
