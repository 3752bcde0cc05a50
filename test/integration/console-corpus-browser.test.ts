/**
 * The corpus browser's console API over real HTTP against `startService` on SQLite and on a fresh
 * PostgreSQL schema: a sentence a member said finds its phrase (`GET /corpus/search`, contains by
 * default), browsing without text (`GET /corpus/browse`), each answer's state per group (ready,
 * counting against the group's own threshold, banned here, banned everywhere, said recently), the
 * read level for reading, and a 400 naming the field for bad input.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { requirePostgres } from '../support/engines.ts';
import {
  FAST_REPLIES,
  keywordsOf,
  pgSchema,
  save,
  startControlsService,
  type ControlsService,
} from '../support/controls-service.ts';

const G1 = 301;
const G2 = 302;

async function start(t: TestContext, engine: 'sqlite' | 'postgres'): Promise<ControlsService | null> {
  if (engine === 'sqlite') return startControlsService(t, FAST_REPLIES);
  if (!requirePostgres(t)) return null;
  const schema = await pgSchema();
  const s = await startControlsService(t, FAST_REPLIES, schema.url, true);
  t.after(async () => {
    await s.stop();
    await schema.drop();
  });
  return s;
}

const get = async (s: ControlsService, path: string, token: string | null) => {
  const response = await fetch(`http://127.0.0.1:${s.port}/chorus/api${path}`, {
    headers: token ? { 'x-chorus-token': token } : {},
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
  const body = (await response.json()) as { data?: any; detail?: string };
  return { status: response.status, data: body.data, detail: body.detail ?? '' };
};

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`corpus browser API (${engine})`, () => {
    it('finds a phrase by the sentence said, browses, and says each answer’s state per group', async (t) => {
      const s = await start(t, engine);
      if (!s) return;
      const read = `controls-read-${s.port}`;
      await s.teach('下周去旅游', '好羡慕你们啊', G1, 3);
      await s.teach('下周去旅游', '带上我一起', G2, 2);
      await s.teach('晚上吃什么呢', '去吃火锅吧', G1, 3);

      assert.equal((await get(s, '/corpus/browse', null)).status, 401);
      const sentence = await get(s, `/corpus/search?q=${encodeURIComponent('下周去旅游')}`, read);
      assert.equal(sentence.status, 200, sentence.detail);
      assert.equal(sentence.data.sentence_keywords, keywordsOf('下周去旅游'));
      const [phrase] = sentence.data.items;
      assert.equal(phrase.keywords, keywordsOf('下周去旅游'));
      assert.equal(sentence.data.keywords_match, phrase.id);
      const state = (keywords: string) =>
        phrase.answers.find((a: { keywords: string }) => a.keywords === keywordsOf(keywords)).status;
      assert.deepEqual(state('好羡慕你们啊'), { state: 'ready', threshold: 3, said_recently_at: 0 });
      assert.deepEqual(state('带上我一起'), { state: 'counting', threshold: 3, said_recently_at: 0 });

      const word = await get(s, `/corpus/search?q=${encodeURIComponent('旅游')}`, read);
      assert.deepEqual(
        word.data.items.map((item: { keywords: string }) => item.keywords),
        [keywordsOf('下周去旅游')],
      );

      // A group's own threshold: seen 2 of 2 is ready there.
      await save(s, `/group-configs/${G2}`, { answer_threshold: 2 });
      const again = (await get(s, `/corpus/contexts/${phrase.id}`, read)).data;
      const inG2 = again.answers.find((a: { group_id: number }) => a.group_id === G2);
      assert.deepEqual(inG2.status, { state: 'ready', threshold: 2, said_recently_at: 0 });

      const inG1 = again.answers.find((a: { group_id: number }) => a.group_id === G1);
      assert.equal((await s.api('POST', `/corpus/answers/${inG1.id}/ban`, { scope: 'group' })).status, 200);
      assert.equal((await s.api('POST', `/corpus/answers/${inG2.id}/ban`, { scope: 'everywhere' })).status, 200);
      const banned = (await get(s, `/corpus/contexts/${phrase.id}`, read)).data;
      const stateOf = (group: number) => banned.answers.find((a: { group_id: number }) => a.group_id === group).status;
      assert.equal(stateOf(G1).state, 'banned_here');
      assert.equal(stateOf(G2).state, 'banned_everywhere');

      const newest = await get(s, '/corpus/browse?order=newest&limit=1', read);
      assert.deepEqual(
        newest.data.items.map((item: { keywords: string }) => item.keywords),
        [keywordsOf('晚上吃什么呢')],
      );
      assert.equal(newest.data.has_more, true);
      const mostBanned = await get(s, `/corpus/browse?order=most_banned&group_id=${G1}`, read);
      assert.deepEqual(
        mostBanned.data.items.map((item: { id: number }) => item.id),
        [phrase.id],
      );
      const inGroup = await get(s, `/corpus/browse?group_id=${G2}`, read);
      assert.deepEqual(
        inGroup.data.items.map((item: { id: number }) => item.id),
        [phrase.id],
      );
    });

    it('bad browse and search input is a 400 naming the field', async (t) => {
      const s = await start(t, engine);
      if (!s) return;
      const read = `controls-read-${s.port}`;
      for (const [path, field] of [
        ['/corpus/browse?order=fuzzy', /order/],
        ['/corpus/browse?group_id=-1', /group_id/],
        ['/corpus/browse?limit=0', /limit/],
        ['/corpus/search?q=a&in=everything', /in/],
      ] as const) {
        const reply = await get(s, path, read);
        assert.equal(reply.status, 400, path);
        assert.match(reply.detail, field, path);
      }
    });
  });
}
