/**
 * The group's own voice on both engines (migration 0014_s_catchphrases): mining a seeded corpus
 * proposes the group's frequent short answers and leaves out commands, pictures, banned, guarded,
 * too long or too rare ones and numbers; a rejected phrase is never proposed again; the
 * community's answers only when chosen; two processes mining at once write each phrase once;
 * `approved` (the style hints) never returns a candidate or a rejected phrase; resolve and undo
 * are activity entries.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CatchphraseMiner, type MinerOptions } from '../../src/agent/catchphrases/miner.ts';
import { isCommand } from '../../src/repeater/bot-suspects.ts';
import { CatchphraseCorpus } from '../../src/store/agent-catchphrases-corpus.ts';
import { CatchphraseStore, type Catchphrase } from '../../src/store/agent-catchphrases-store.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { forEachEngine } from '../support/engines.ts';

const GROUP = 101;
const OTHER = 202;
const CONSOLE = { kind: 'console' as const, level: 'write', address: '127.0.0.1' };
const CONTEXTS = ['早上 好', '今天 天气', '吃 什么', '下班 了'];
const LONG = '这是一句非常非常长的回答，长到绝对不可能是一句口头禅的程度了吧朋友们';

/** `message` said `times` times after each of the first `contexts` phrases in `group`. */
async function say(store: LocalStore, group: number, message: string, contexts: number, times: number) {
  for (const keywords of CONTEXTS.slice(0, contexts)) {
    for (let n = 0; n < times; n++) {
      await store.corpus.learnAnswer({
        keywords,
        groupId: group,
        answerKeywords: message,
        answerTime: 1_000 + n,
        message,
        appendOnExisting: true,
      });
    }
  }
}

async function seed(store: LocalStore): Promise<void> {
  await say(store, GROUP, '哈哈哈', 3, 2);
  await say(store, GROUP, '确实', 2, 2);
  await say(store, GROUP, '草', 3, 2); // too short
  await say(store, GROUP, '/jrrp', 2, 2); // a command to another bot
  await say(store, GROUP, '[CQ:image,file=abc.jpg]', 2, 2); // a picture
  await say(store, GROUP, LONG, 2, 2); // too long
  await say(store, GROUP, '加我 12345678', 2, 2); // a number
  await say(store, GROUP, '绝了', 2, 2); // banned below
  await say(store, GROUP, '作为AI我认为', 2, 2); // the guard rejects it
  await say(store, GROUP, '好耶', 1, 5); // said often, but after one phrase only
  await say(store, GROUP, '一次', 2, 1); // after two phrases, but once each: too rare in all
  await say(store, OTHER, '别的群的梗', 3, 2);
  await say(store, 0, '社区梗', 2, 2); // the community's, after this group's phrases
  await store.corpus.appendBan('早上 好', { keywords: '绝了', groupId: GROUP, reason: '1', time: 1 });
}

function minerFor(store: LocalStore, options: Partial<MinerOptions> = {}) {
  const book = new CatchphraseStore(store.engine);
  const miner = new CatchphraseMiner({
    corpus: new CatchphraseCorpus(store.engine),
    book,
    isCommand,
    guard: () => ({ enabled: true, phrases: ['作为AI'], exempt: [] }),
    useShared: () => false,
    nowSec: () => 5_000,
    ...options,
  });
  return { book, miner };
}

const texts = (items: readonly Catchphrase[]) => items.map((item) => item.text).sort();

forEachEngine((engine) => {
  it('mining proposes frequent short answers of the group and nothing else', async (t) => {
    const store = await engine.open(t);
    await seed(store);
    const { book, miner } = minerFor(store);
    const report = await miner.mine(GROUP);
    const page = await book.list({ offset: 0, limit: 50 });
    assert.deepEqual(texts(page.items), ['哈哈哈', '确实']);
    assert.deepEqual(
      page.items.map((item) => [item.text, item.status, item.source, item.groupId, item.selfId]).sort(),
      [
        ['哈哈哈', 'candidate', 'local', GROUP, 0],
        ['确实', 'candidate', 'local', GROUP, 0],
      ],
    );
    const haha = page.items.find((item) => item.text === '哈哈哈');
    assert.deepEqual([haha?.count, haha?.contexts], [6, 3]);
    assert.equal(report.added, 2);
    assert.equal(report.shared, false);
    assert.deepEqual(report.skipped, { picture: 1, command: 1, length: 2, number: 1, banned: 1, guard: 1, rare: 1 });
    // '一次' (twice in all) is under the count bound: not even read as frequent.
    assert.equal(report.examined, 2 + 8);
    // The other group's phrase is its own: mining it there proposes it there only.
    await miner.mine(OTHER);
    assert.deepEqual(texts((await book.list({ groupId: OTHER, offset: 0, limit: 50 })).items), ['别的群的梗']);
    assert.deepEqual(texts((await book.list({ groupId: GROUP, offset: 0, limit: 50 })).items), ['哈哈哈', '确实']);
  });

  it('a rejected phrase is never proposed again; mining again refreshes figures, never a status', async (t) => {
    const store = await engine.open(t);
    await seed(store);
    const { book, miner } = minerFor(store);
    await miner.mine(GROUP);
    const haha = (await book.list({ offset: 0, limit: 50 })).items.find((item) => item.text === '哈哈哈')!;
    const rejected = await book.resolve(haha.id, 'reject', CONSOLE, 6_000);
    assert.equal(rejected.entry.status, 'rejected');
    await say(store, GROUP, '哈哈哈', 4, 3); // said even more since
    const again = await miner.mine(GROUP);
    assert.equal(again.added, 0);
    assert.equal(again.refreshed, 2);
    const after = await book.get(haha.id);
    assert.equal(after?.status, 'rejected');
    assert.ok((after?.count ?? 0) > haha.count, 'figures refreshed');
    const candidates = await book.list({ groupId: GROUP, status: 'candidate', offset: 0, limit: 50 });
    assert.deepEqual(texts(candidates.items), ['确实']);
    assert.deepEqual(candidates.counts, { candidate: 1, active: 0, rejected: 1, all: 2 });
  });

  it("the community's answers are mined only when the operator chose so", async (t) => {
    const store = await engine.open(t);
    await seed(store);
    const off = minerFor(store);
    assert.equal((await off.miner.mine(GROUP)).shared, false);
    assert.ok(!texts((await off.book.list({ offset: 0, limit: 50 })).items).includes('社区梗'));
    const on = minerFor(store, { useShared: () => true });
    const report = await on.miner.mine(GROUP);
    assert.equal(report.shared, true);
    const shared = (await on.book.list({ offset: 0, limit: 50 })).items.filter((item) => item.source === 'shared');
    assert.deepEqual(texts(shared), ['社区梗']);
    assert.equal(shared[0]?.groupId, GROUP);
  });

  it('two processes mining the same group at once write each phrase once', async (t) => {
    const store = await engine.open(t);
    await seed(store);
    const other = await store.reopen();
    const a = minerFor(store);
    const b = minerFor(other);
    const reports = await Promise.all([a.miner.mine(GROUP), b.miner.mine(GROUP), a.miner.mine(GROUP)]);
    assert.ok(reports.every((report) => report.eligible === 2));
    const page = await a.book.list({ offset: 0, limit: 50 });
    assert.deepEqual(texts(page.items), ['哈哈哈', '确实']);
    assert.equal(page.total, 2);
  });

  it('mining is bounded: new candidates per run and waiting per group', async (t) => {
    const store = await engine.open(t);
    await seed(store);
    const { book, miner } = minerFor(store, { rules: { perRun: 1 } });
    assert.equal((await miner.mine(GROUP)).added, 1);
    assert.equal((await miner.mine(GROUP)).added, 1);
    const full = minerFor(store, { rules: { maxPending: 2 } });
    await say(store, GROUP, '笑死', 3, 2);
    assert.equal((await full.miner.mine(GROUP)).added, 0, 'two wait already');
    assert.equal((await book.list({ offset: 0, limit: 50 })).total, 2);
  });

  it('approved phrases are the active ones only, of the group and account, bounded', async (t) => {
    const store = await engine.open(t);
    await seed(store);
    await say(store, GROUP, '笑死', 3, 3);
    const { book, miner } = minerFor(store);
    await miner.mine(GROUP);
    await miner.mine(OTHER);
    const items = (await book.list({ offset: 0, limit: 50 })).items;
    const id = (text: string) => items.find((item) => item.text === text)!.id;
    assert.deepEqual(await book.approved(GROUP, 9, 12), [], 'nothing approved: nothing given');
    await book.resolve(id('笑死'), 'approve', CONSOLE, 6_000);
    await book.resolve(id('哈哈哈'), 'approve', CONSOLE, 6_001);
    await book.resolve(id('确实'), 'reject', CONSOLE, 6_002);
    await book.resolve(id('别的群的梗'), 'approve', CONSOLE, 6_003);
    assert.deepEqual(await book.approved(GROUP, 9, 12), ['笑死', '哈哈哈'], 'most said first');
    assert.deepEqual(await book.approved(GROUP, 9, 1), ['笑死']);
    assert.deepEqual(await book.approved(OTHER, 9, 12), ['别的群的梗']);
    // Undone: a candidate again, so no longer given.
    await book.undo(id('笑死'), CONSOLE, 6_010);
    assert.deepEqual(await book.approved(GROUP, 9, 12), ['哈哈哈']);
  });

  it('the list pages with the total after the filter and counts per status', async (t) => {
    const store = await engine.open(t);
    const book = new CatchphraseStore(store.engine);
    await book.offer(
      GROUP,
      ['一', '二', '三', '四'].map((text, n) => ({ text: `候选${text}`, count: 10 - n, contexts: 2, source: 'local' })),
      10,
      100,
    );
    const all = (await book.list({ offset: 0, limit: 10 })).items;
    await book.resolve(all[0]!.id, 'approve', CONSOLE, 200);
    const page = await book.list({ status: 'candidate', offset: 1, limit: 1 });
    assert.equal(page.items.length, 1);
    assert.equal(page.total, 3);
    assert.deepEqual(page.counts, { candidate: 3, active: 1, rejected: 0, all: 4 });
    assert.equal(page.items[0]?.status, 'candidate');
    assert.equal((await book.list({ groupId: OTHER, offset: 0, limit: 10 })).total, 0);
    assert.equal((await book.list({ selfId: 5, offset: 0, limit: 10 })).total, 0);
  });

  it('resolve and undo are activity entries; the same status again records nothing', async (t) => {
    const store = await engine.open(t);
    const book = new CatchphraseStore(store.engine);
    await book.offer(GROUP, [{ text: '好活', count: 5, contexts: 3, source: 'local' }], 10, 100);
    const [entry] = (await book.list({ offset: 0, limit: 10 })).items;
    const approved = await book.resolve(entry!.id, 'approve', CONSOLE, 200);
    assert.ok(approved.activity);
    assert.equal(approved.entry.activityId, approved.activity.id);
    assert.equal((await book.resolve(entry!.id, 'approve', CONSOLE, 201)).activity, null);
    const logged = await store.activity.get(approved.activity.id);
    assert.deepEqual(
      [logged?.kind, logged?.groupId, logged?.actor.address, logged?.params.text, logged?.params.entry_id],
      ['catchphrase_approve', GROUP, '127.0.0.1', '好活', entry!.id],
    );
    const undone = await book.undo(entry!.id, CONSOLE, 300);
    assert.equal(undone.entry.status, 'candidate');
    assert.equal((await store.activity.get(approved.activity.id))?.undoneAt, 300);
    assert.deepEqual([undone.activity?.kind, undone.activity?.params.entry_id], ['undo', approved.activity.id]);
    await assert.rejects(book.undo(entry!.id, CONSOLE, 301), /nothing to undo/);
    await assert.rejects(book.resolve(999_999, 'reject', CONSOLE, 302), /no catchphrase/);
  });
});
