/**
 * Where an answer was used (src/store/reply-usage.ts) on both engines: sends add up per context,
 * answer and group, the last time is the latest, and a page of the corpus search carries them.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { STORE_CHUNK } from '../../src/common/limits.ts';
import { CorpusBrowser } from '../../src/store/corpus-browse.ts';
import { ReplyUsageStore, usageKey, type ReplySent } from '../../src/store/reply-usage.ts';
import { forEachEngine } from '../support/engines.ts';

forEachEngine((engine) => {
  it('two processes flushing the same pairs in opposite orders at once lose nothing (no deadlock)', async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const sends: ReplySent[] = Array.from({ length: 60 }, (_, index) => ({
      contextKeywords: `上下文 ${index % 20}`,
      answerKeywords: `回答 ${index % 3}`,
      groupId: 100 + (index % 2),
      time: 1_000 + index,
      count: 1,
    }));
    const stores = [new ReplyUsageStore(store.engine), new ReplyUsageStore(other.engine)];
    for (let round = 0; round < 5; round++)
      await Promise.all(stores.map((usage, index) => usage.record(index === 0 ? sends : [...sends].reverse())));
    const rows = await store.engine.db.selectFrom('reply_usage').select(['sent_count']).execute();
    assert.equal(
      rows.reduce((sum, row) => sum + Number(row.sent_count), 0),
      sends.length * 2 * 5,
    );
  });

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

  it('a large flush is written in chunks of STORE_CHUNK.usageRows, one unit of work each, every row counted', async (t) => {
    const store = await engine.open(t);
    let units = 0;
    // The same engine, counting its units of work.
    const counting = new Proxy(store.engine, {
      get(target, property) {
        if (property === 'run') {
          return (...args: Parameters<typeof target.run>) => {
            units++;
            return target.run(...args);
          };
        }
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const usage = new ReplyUsageStore(counting);
    const n = STORE_CHUNK.usageRows * 2 + 17;
    const sends: ReplySent[] = Array.from({ length: n }, (_, index) => ({
      contextKeywords: `上下文 ${index}`,
      answerKeywords: '好的',
      groupId: 100 + (index % 3),
      time: 1_000 + index,
      count: 1 + (index % 4),
    }));
    await usage.record(sends);
    assert.equal(units, 3);
    await usage.record(sends.slice(0, 5));
    assert.equal(units, 4);
    const found = await usage.usageOf(sends.map((send) => send));
    for (const [index, send] of sends.entries()) {
      const twice = index < 5 ? 2 : 1;
      assert.deepEqual(found.get(usageKey(send.contextKeywords, send.answerKeywords)), [
        { groupId: send.groupId, lastSent: send.time, count: send.count * twice },
      ]);
    }
  });
});
