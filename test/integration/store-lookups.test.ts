/**
 * Contract of the local store, part 2: find_ban_reply_target, list_answers_for_group_since, NUL
 * stripping, long keys, required indexes, the group message log and blacklists (docs/rules.md#store-keys, #chat-log, #bans). Runs unchanged against SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { answer, ban, byKeywords, context, groupMessage, learn, messages } from '../support/corpus-data.ts';
import { forEachEngine } from '../support/engines.ts';

forEachEngine((engine) => {
  it('find_ban_reply_target finds the answer having exactly that message in that group', async (t) => {
    const store = await engine.open(t);
    await store.corpus.insert(
      context('pre-kw', { answers: [answer('reply-kw', { groupId: 1, messages: ['first', 'the reply'] })] }),
    );
    await store.corpus.insert(
      context('other-kw', { answers: [answer('x', { groupId: 2, messages: ['in group 2'] })] }),
    );
    assert.deepEqual(await store.corpus.findBanReplyTarget(1, 'the reply'), {
      contextKeywords: 'pre-kw',
      answerKeywords: 'reply-kw',
    });
    assert.equal(await store.corpus.findBanReplyTarget(2, 'the reply'), null);
    assert.equal(await store.corpus.findBanReplyTarget(1, 'the repl'), null);
    assert.equal(await store.corpus.findBanReplyTarget(1, 'the reply '), null);
    assert.equal(await store.corpus.findBanReplyTarget(1, 'in group 2'), null);
  });

  it('find_ban_reply_target prefers the answer with the newest time', async (t) => {
    const store = await engine.open(t);
    // The newer answer is inserted first, so id order cannot be what picks it.
    await store.corpus.insert(context('newer', { answers: [answer('n', { time: 200, messages: ['dup'] })] }));
    await store.corpus.insert(context('older', { answers: [answer('o', { time: 100, messages: ['dup'] })] }));
    assert.deepEqual(await store.corpus.findBanReplyTarget(1, 'dup'), {
      contextKeywords: 'newer',
      answerKeywords: 'n',
    });
    await store.corpus.upsertAnswer(learn('older', 'o', { answerTime: 300, message: 'again' }));
    assert.deepEqual(await store.corpus.findBanReplyTarget(1, 'dup'), {
      contextKeywords: 'older',
      answerKeywords: 'o',
    });
  });

  it('list_answers_for_group_since returns only that group, time >= cutoff, with all messages', async (t) => {
    const store = await engine.open(t);
    const recent = answer('recent', { groupId: 5, time: 300, messages: messages('r', 40) });
    const atCutoff = answer('at-cutoff', { groupId: 5, time: 200, messages: ['c'] });
    await store.corpus.insert(
      context('k1', {
        answers: [recent, answer('old', { groupId: 5, time: 199 }), answer('elsewhere', { groupId: 6, time: 300 })],
      }),
    );
    await store.corpus.insert(context('k2', { answers: [atCutoff, answer('other', { groupId: 7, time: 900 })] }));
    assert.deepEqual(byKeywords(await store.corpus.listAnswersForGroupSince(5, 200)), [atCutoff, recent]);
    assert.deepEqual(await store.corpus.listAnswersForGroupSince(5, 301), []);
    assert.deepEqual(await store.corpus.listAnswersForGroupSince(8, 0), []);
  });

  it('NUL bytes are stripped from every stored string and from lookup keys', async (t) => {
    const store = await engine.open(t);
    const corpus = store.corpus;
    await corpus.insert(
      context('n\u0000ul', {
        answers: [answer('a\u0000ns', { messages: ['m\u00001', '\u0000'] })],
        bans: [ban('b\u0000an', { reason: 'r\u0000eason' })],
      }),
    );
    const expected = context('nul', {
      answers: [answer('ans', { messages: ['m1', ''] })],
      bans: [ban('ban', { reason: 'reason' })],
    });
    assert.deepEqual(await corpus.findByKeywords('nul'), expected);
    assert.deepEqual(await corpus.findByKeywords('\u0000nul\u0000'), expected);
    assert.equal(await corpus.contextExistsByKeywords('nu\u0000l'), true);
    assert.deepEqual(await corpus.findByKeywordsForReply('n\u0000ul'), expected);

    await corpus.upsertAnswer(learn('nul\u0000', 'an\u0000s', { message: 'up\u0000sert' }));
    assert.equal(await corpus.learnAnswer(learn('le\u0000arn', 'x\u0000', { message: 'le\u0000arned' })), true);
    await corpus.appendBan('\u0000nul', ban('late\u0000ban', { reason: 'recall by \u00001' }));
    const afterWrites = await corpus.findByKeywords('nul');
    assert.deepEqual(afterWrites?.answers, [answer('ans', { count: 2, messages: ['m1', '', 'upsert'] })]);
    assert.deepEqual(afterWrites?.bans.at(-1), ban('lateban', { reason: 'recall by 1' }));
    assert.deepEqual((await corpus.findByKeywords('learn'))?.answers, [answer('x', { messages: ['learned'] })]);
    assert.deepEqual(await corpus.findBanReplyTarget(1, 'up\u0000sert'), {
      contextKeywords: 'nul',
      answerKeywords: 'ans',
    });

    await corpus.replaceAnswers('nu\u0000l', [answer('re\u0000placed', { messages: ['z\u0000'] })], 5);
    assert.deepEqual((await corpus.findByKeywords('nul'))?.answers, [answer('replaced', { messages: ['z'] })]);
    await corpus.save(context('sa\u0000ved', { answers: [answer('s\u0000', { messages: ['\u0000s'] })] }));
    assert.deepEqual((await corpus.findByKeywords('saved'))?.answers, [answer('s', { messages: ['s'] })]);

    await store.messages.append([
      groupMessage({
        rawMessage: 'r\u0000aw',
        plainText: 'p\u0000lain',
        keywords: 'k\u0000w',
        senderName: 'b\u0000ob',
      }),
    ]);
    const [logged] = await store.messages.recent(1, 10);
    assert.deepEqual(
      [logged?.rawMessage, logged?.plainText, logged?.keywords, logged?.senderName],
      ['raw', 'plain', 'kw', 'bob'],
    );
    await store.blacklists.put({ groupId: 9, answers: ['a\u0000b'], answersReserve: ['\u0000c'] });
    assert.deepEqual(await store.blacklists.get(9), { groupId: 9, answers: ['ab'], answersReserve: ['c'] });
  });

  it('5000-character keywords work as answer and context keys (through the hash)', async (t) => {
    const store = await engine.open(t);
    const longAnswer = '长'.repeat(2500) + 'x'.repeat(2500);
    const longKey = 'k'.repeat(5000);
    await store.corpus.insert(context('k'));
    await store.corpus.upsertAnswer(learn('k', longAnswer, { message: 'one' }));
    await store.corpus.upsertAnswer(learn('k', longAnswer, { message: 'two' }));
    const loaded = await store.corpus.findByKeywords('k');
    assert.equal(loaded?.answers.length, 1);
    assert.equal(loaded?.answers[0]?.count, 2);
    assert.equal(loaded?.answers[0]?.keywords, longAnswer);
    assert.deepEqual(loaded?.answers[0]?.messages, ['one', 'two']);

    assert.equal(await store.corpus.learnAnswer(learn(longKey, longAnswer)), true);
    assert.equal(await store.corpus.learnAnswer(learn(longKey, longAnswer)), false);
    assert.equal((await store.corpus.findByKeywords(longKey))?.answers[0]?.count, 2);
    assert.equal(await store.corpus.contextExistsByKeywords(longKey.slice(1)), false);
  });

  it('the reply indexes exist and no plain index on context_answer.context_id', async (t) => {
    const store = await engine.open(t);
    const query =
      engine.kind === 'sqlite'
        ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'`
        : sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()`;
    const names = new Set((await query.execute(store.engine.db)).rows.map((row) => row.name));
    for (const required of [
      'ix_message_group_user_time',
      'ix_context_answer_ctx_count_time',
      'ix_context_answer_message_answer_id_id',
    ]) {
      assert.ok(names.has(required), `index ${required} exists (found: ${[...names].join(', ')})`);
    }
    assert.equal(names.has('ix_context_answer_context_id'), false);
  });

  it('the group message log returns the newest messages of one group, oldest first', async (t) => {
    const store = await engine.open(t);
    assert.deepEqual(await store.messages.recent(1, 10), []);
    await store.messages.append([]);
    const logged = [
      groupMessage({ time: 30, rawMessage: 'c', messageId: 3, replyToMessageId: 2 }),
      groupMessage({ time: 10, rawMessage: 'a', isPlainText: false, messageId: 1 }),
      groupMessage({ groupId: 2, time: 40, rawMessage: 'other group' }),
      groupMessage({ time: 20, rawMessage: 'b', userId: 9_000_000_001, senderName: '名字' }),
      groupMessage({ time: 40, rawMessage: 'd' }),
    ];
    await store.messages.append(logged);
    const byRaw = (raw: string) => logged.find((m) => m.rawMessage === raw);
    assert.deepEqual(await store.messages.recent(1, 10), ['a', 'b', 'c', 'd'].map(byRaw));
    assert.deepEqual(await store.messages.recent(1, 2), ['c', 'd'].map(byRaw));
    assert.deepEqual(await store.messages.recent(2, 10), [byRaw('other group')]);
    assert.deepEqual(await store.messages.recent(3, 10), []);
  });

  it('blacklists round-trip through get, put (overwrite) and list', async (t) => {
    const store = await engine.open(t);
    assert.equal(await store.blacklists.get(5), null);
    assert.deepEqual(await store.blacklists.list(), []);
    await store.blacklists.put({ groupId: 5, answers: ['a', '引号"'], answersReserve: [] });
    await store.blacklists.put({ groupId: 3, answers: [], answersReserve: ['r'] });
    assert.deepEqual(await store.blacklists.get(5), { groupId: 5, answers: ['a', '引号"'], answersReserve: [] });
    await store.blacklists.put({ groupId: 5, answers: ['b'], answersReserve: ['a'] });
    assert.deepEqual(await store.blacklists.list(), [
      { groupId: 3, answers: [], answersReserve: ['r'] },
      { groupId: 5, answers: ['b'], answersReserve: ['a'] },
    ]);
  });
});
