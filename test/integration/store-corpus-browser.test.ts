/**
 * The corpus browser's store side on both engines (CorpusBrowser.search with a sentence's keywords,
 * CorpusBrowser.browse): a sentence a member said finds the context learned from it through the
 * repeater's own keyword extraction, listed first; browsing newest, most sent and most banned,
 * everywhere and in one group, paged without gaps or repeats; the most-sent ranking kept for its
 * time to live.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { CorpusBrowser, type BrowseQuery } from '../../src/store/corpus-browse.ts';
import { RANKING_TTL_MS } from '../../src/store/corpus-listing.ts';
import { ModerationStore } from '../../src/store/moderation-store.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { ReplyUsageStore } from '../../src/store/reply-usage.ts';
import { forEachEngine } from '../support/engines.ts';

const EVERYWHERE = 114514;
const SENTENCE = '下周去旅游';
const extractor = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string) => describeText(text, text, extractor).keywords;

async function learn(store: LocalStore, keywords: string, answer: string, groupId: number, message: string) {
  await store.corpus.learnAnswer({
    keywords,
    groupId,
    answerKeywords: answer,
    answerTime: 1000,
    message,
    appendOnExisting: true,
  });
}

const search = (browser: CorpusBrowser, text: string, offset = 0, limit = 10) =>
  browser.search({ text, field: 'all', match: 'substring', offset, limit }, keywordsOf(text));

forEachEngine((engine) => {
  it('finds the context a typed sentence keys to, first, and contexts and answers containing it', async (t) => {
    const store = await engine.open(t);
    const browser = new CorpusBrowser(store.engine);
    const key = keywordsOf(SENTENCE);
    // The key is jieba's tags, not the sentence: a plain substring search of the sentence misses it.
    assert.ok(!key.includes(SENTENCE), key);
    await learn(store, key, '好 羡慕', 101, '好羡慕啊');
    await learn(store, '旅游 攻略', '小红书', 102, '去小红书看看');
    await learn(store, '吃 什么', '火锅', 101, '今天去旅游吃火锅');
    await learn(store, '无关 话题', '嗯', 101, '嗯嗯');

    const whole = await search(browser, SENTENCE);
    assert.equal(whole.keywordsMatch, whole.items[0]?.id);
    assert.deepEqual(
      whole.items.map((item) => item.keywords),
      [key],
      'the sentence: its own context, nothing that merely shares a word',
    );

    const word = await search(browser, '旅游');
    assert.deepEqual(word.items.map((item) => item.keywords).sort(), [key, '旅游 攻略', '吃 什么'].sort());
    assert.ok(
      word.items.find((item) => item.keywords === '吃 什么'),
      'an answer text containing the word',
    );

    const onlyAnswers = await browser.search(
      { text: SENTENCE, field: 'answer', match: 'substring', offset: 0, limit: 10 },
      key,
    );
    assert.equal(onlyAnswers.keywordsMatch, null, 'in=answer: answer text only');
    assert.deepEqual(onlyAnswers.items, []);

    // Paging: the sentence's context is first on the first page and never repeated later.
    const first = await search(browser, '旅游', 0, 1);
    const rest = await search(browser, '旅游', 1, 10);
    const ids = [...first.items, ...rest.items].map((item) => item.id);
    assert.equal(new Set(ids).size, ids.length, 'no context on two pages');
  });

  it('browses newest, most sent and most banned, everywhere and per group, paged', async (t) => {
    const store = await engine.open(t);
    let clock = 0;
    const browser = new CorpusBrowser(store.engine, () => clock);
    const moderation = new ModerationStore(store.engine);
    for (let i = 1; i <= 5; i++) await learn(store, `话题 ${i}`, `回答 ${i}`, i % 2 === 0 ? 202 : 201, `回答${i}`);
    await learn(store, '话题 1', '回答 二', 202, '回答二');
    const browse = (query: Partial<BrowseQuery>) =>
      browser.browse({ order: 'newest', groupId: null, everywhereGroup: EVERYWHERE, offset: 0, limit: 10, ...query });
    const names = (page: { items: { keywords: string }[] }) => page.items.map((item) => item.keywords);

    assert.deepEqual(names(await browse({})), ['话题 5', '话题 4', '话题 3', '话题 2', '话题 1']);
    const one = await browse({ limit: 2 });
    const two = await browse({ limit: 2, offset: 2 });
    assert.deepEqual([...names(one), ...names(two)], ['话题 5', '话题 4', '话题 3', '话题 2']);
    assert.equal(one.hasMore, true);
    assert.equal((await browse({ offset: 4 })).hasMore, false);
    // In group 202: its answers newest first; 话题 1 holds one too.
    assert.deepEqual(names(await browse({ groupId: 202 })).sort(), ['话题 1', '话题 2', '话题 4'].sort());
    assert.deepEqual(names(await browse({ groupId: 999 })), []);

    const usage = new ReplyUsageStore(store.engine);
    await usage.record([
      { contextKeywords: '话题 3', answerKeywords: '回答 3', groupId: 201, time: 2000, count: 5 },
      { contextKeywords: '话题 1', answerKeywords: '回答 1', groupId: 201, time: 2001, count: 2 },
      { contextKeywords: '话题 1', answerKeywords: '回答 二', groupId: 202, time: 2002, count: 1 },
    ]);
    assert.deepEqual(names(await browse({ order: 'most_sent' })), ['话题 3', '话题 1']);
    assert.deepEqual(names(await browse({ order: 'most_sent', groupId: 202 })), ['话题 1']);
    // The ranking is kept for RANKING_TTL_MS: later sends show once it is read again.
    await usage.record([{ contextKeywords: '话题 4', answerKeywords: '回答 4', groupId: 202, time: 2003, count: 9 }]);
    assert.deepEqual(names(await browse({ order: 'most_sent' })), ['话题 3', '话题 1'], 'within the TTL');
    clock += RANKING_TTL_MS;
    assert.deepEqual(names(await browse({ order: 'most_sent' })), ['话题 4', '话题 3', '话题 1']);

    const views = await browse({ limit: 10 });
    const answerOf = (keywords: string) => views.items.find((item) => item.keywords === keywords)?.answers[0]?.id ?? 0;
    await moderation.ban(answerOf('话题 4'), 202, 'ban_group', '', 'test', 3000);
    await moderation.ban(answerOf('话题 2'), 202, 'ban_group', '', 'test', 3001);
    await moderation.ban(answerOf('话题 2'), EVERYWHERE, 'ban_all', '', 'test', 3002);
    await moderation.ban(answerOf('话题 5'), EVERYWHERE, 'ban_all', '', 'test', 3003);
    assert.deepEqual(names(await browse({ order: 'most_banned' })), ['话题 2', '话题 5', '话题 4']);
    assert.deepEqual(
      names(await browse({ order: 'most_banned', groupId: 201 })),
      ['话题 5', '话题 2'],
      'everywhere holds in 201',
    );
  });
});
