/**
 * Where an answer was used (src/store/reply-usage.ts) on both engines: sends add up per context,
 * answer and group, the last time is the latest, and a page of the corpus search carries them.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CorpusBrowser } from '../../src/store/corpus-browse.ts';
import { ReplyUsageStore, usageKey } from '../../src/store/reply-usage.ts';
import { forEachEngine } from '../support/engines.ts';

forEachEngine((engine) => {
  it('sends add up per group with the latest time; the search page shows them per answer', async (t) => {
    const store = await engine.open(t);
    const usage = new ReplyUsageStore(store.engine);
    await store.corpus.learnAnswer({
      keywords: '晚饭 吃 什么',
      groupId: 101,
      answerKeywords: '火锅',
      answerTime: 10,
      message: '火锅！',
      appendOnExisting: true,
    });
    await usage.record([
      { contextKeywords: '晚饭 吃 什么', answerKeywords: '火锅', groupId: 101, time: 1_000, count: 2 },
      { contextKeywords: '晚饭 吃 什么', answerKeywords: '火锅', groupId: 202, time: 1_500, count: 1 },
    ]);
    await usage.record([
      { contextKeywords: '晚饭 吃 什么', answerKeywords: '火锅', groupId: 101, time: 900, count: 1 },
      { contextKeywords: '别的', answerKeywords: '火锅', groupId: 101, time: 5_000, count: 1 },
    ]);
    const found = await usage.usageOf([{ contextKeywords: '晚饭 吃 什么', answerKeywords: '火锅' }]);
    assert.deepEqual(found.get(usageKey('晚饭 吃 什么', '火锅')), [
      { groupId: 202, lastSent: 1_500, count: 1 },
      { groupId: 101, lastSent: 1_000, count: 3 },
    ]);
    const page = await new CorpusBrowser(store.engine).search({
      text: '晚饭',
      field: 'keywords',
      match: 'prefix',
      offset: 0,
      limit: 5,
    });
    assert.deepEqual(
      page.items[0]?.answers[0]?.usage.map((u) => u.groupId),
      [202, 101],
    );
  });
});
