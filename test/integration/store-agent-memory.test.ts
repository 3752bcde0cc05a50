/**
 * The agent memory's store (src/store/agent-memory-*.ts, docs/agent-memory.md) on both engines:
 * a fact is written only while consent stands, 「忘记我」 deletes facts, consent and the pending
 * observations about the member alone (and takes the member out of shared ones), corrections and
 * deletions; and two processes on one database claiming the queue never hold one observation at
 * once, an expired lease is taken over, and a failed attempt is retried then marked failed.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AgentMemoryFacts } from '../../src/store/agent-memory-facts.ts';
import { AgentObservationQueue } from '../../src/store/agent-memory-queue.ts';
import { forEachEngine } from '../support/engines.ts';

const BOT = 10001;
const ALICE = 20001;
const BOB = 20002;
const excerpt = (aliases: Record<string, string>) => ({
  aliases,
  lines: [{ speaker: 'bot', text: '你好', time: 1 }],
});

forEachEngine((engine) => {
  it('facts only with consent; forget removes facts, consent and observations about the member', async (t) => {
    const store = await engine.open(t);
    const facts = new AgentMemoryFacts(store.engine);
    const queue = new AgentObservationQueue(store.engine);
    const fact = (userId: number, content: string) =>
      facts.add({ selfId: BOT, groupId: 7, userId, content, source: 'model', confidence: 0.8, now: 100 });

    assert.equal(await fact(ALICE, '喜欢猫'), null, 'no consent: nothing written');
    assert.deepEqual(await facts.list({ selfId: BOT, limit: 10 }), []);

    assert.deepEqual(await facts.grant(BOT, ALICE, ['facts'], 100), { before: false });
    assert.deepEqual(await facts.grant(BOT, ALICE, ['facts'], 101), { before: true });
    const cat = await fact(ALICE, '喜欢猫');
    assert.ok(cat);
    assert.equal((await fact(ALICE, '喜欢猫'))?.id, cat.id, 'the same fact is not added twice');
    await fact(ALICE, '住在杭州');
    assert.equal((await facts.consent(BOT, ALICE))?.granted, true);
    assert.deepEqual(
      (await facts.forPrompt(BOT, 7, ALICE, 10)).map((f) => f.content),
      ['住在杭州', '喜欢猫'],
    );
    assert.deepEqual(await facts.forPrompt(BOT + 1, 7, ALICE, 10), [], 'another bot account keeps nothing');
    const listed = await facts.list({ selfId: BOT, groupId: 7, limit: 10 });
    assert.deepEqual(
      listed.map((row) => [row.fact.content, row.consented]),
      [
        ['住在杭州', true],
        ['喜欢猫', true],
      ],
    );

    const corrected = await facts.correct(cat.id, '喜欢狗', 200);
    assert.equal(corrected?.before.content, '喜欢猫');
    assert.equal(corrected?.after.content, '喜欢狗');
    assert.equal(corrected?.after.corrected, true);
    assert.equal(corrected?.after.source, 'manual');
    assert.equal(await facts.correct(999_999, 'x', 200), null);

    await facts.grant(BOT, BOB, ['facts'], 100);
    const aliceOnly = await queue.add({
      selfId: BOT,
      groupId: 7,
      excerpt: excerpt({ [ALICE]: 'A' }),
      userIds: [ALICE],
      now: 1,
    });
    const both = await queue.add({
      selfId: BOT,
      groupId: 7,
      excerpt: excerpt({ [ALICE]: 'A', [BOB]: 'B' }),
      userIds: [ALICE, BOB],
      now: 1,
    });
    const bobOnly = await queue.add({
      selfId: BOT,
      groupId: 7,
      excerpt: excerpt({ [BOB]: 'B' }),
      userIds: [BOB],
      now: 1,
    });

    const forgotten = await facts.forget(BOT, ALICE);
    assert.deepEqual(forgotten, { facts: 2, observations: 2, hadConsent: true });
    assert.equal(await facts.consent(BOT, ALICE), null);
    assert.deepEqual(await facts.list({ selfId: BOT, userId: ALICE, limit: 10 }), []);
    const left = await queue.list({ limit: 10 });
    assert.deepEqual(
      left.map((o) => [o.id, o.userIds, Object.keys(o.excerpt.aliases)]),
      [
        [bobOnly, [BOB], [String(BOB)]],
        [both, [BOB], [String(BOB)]],
      ],
    );
    assert.ok(!left.some((o) => o.id === aliceOnly));
    assert.equal(await fact(ALICE, '喜欢猫'), null, 'after forgetting, nothing is written again');
    assert.deepEqual(await facts.forget(BOT, ALICE), { facts: 0, observations: 0, hadConsent: false });

    const bobFact = await fact(BOB, '会弹吉他');
    assert.ok(bobFact);
    assert.equal((await facts.delete(bobFact.id))?.content, '会弹吉他');
    assert.equal(await facts.delete(bobFact.id), null);
  });

  it('two processes claiming the queue never hold one observation at once', async (t) => {
    const store = await engine.open(t);
    const other = await store.reopen();
    const queues = [new AgentObservationQueue(store.engine), new AgentObservationQueue(other.engine)];
    const total = 40;
    for (let i = 0; i < total; i++) {
      await queues[0]!.add({ selfId: BOT, groupId: 7, excerpt: excerpt({ [ALICE]: 'A' }), userIds: [ALICE], now: 1 });
    }
    const now = 1_800_000_000_000;
    const seen = new Map<number, string>();
    for (let round = 0; round < 20; round++) {
      const [a, b] = await Promise.all([
        queues[0]!.claim('process-a', 3, now, 60_000),
        queues[1]!.claim('process-b', 3, now, 60_000),
      ]);
      for (const [who, claimed] of [
        ['process-a', a],
        ['process-b', b],
      ] as const) {
        for (const observation of claimed) {
          assert.ok(!seen.has(observation.id), `observation ${observation.id} claimed twice`);
          seen.set(observation.id, who);
        }
      }
    }
    assert.equal(seen.size, total, 'every observation was claimed once');
    assert.deepEqual(await queues[0]!.claim('process-a', 5, now + 1000, 60_000), [], 'all held by live leases');

    // Only the holder finishes; an expired lease is taken over by the other process.
    const [firstId, holder] = [...seen.entries()][0]!;
    const stranger = holder === 'process-a' ? 'process-b' : 'process-a';
    assert.equal(await queues[0]!.finish(firstId, stranger, 2), false);
    assert.equal(await queues[0]!.finish(firstId, holder, 2), true);
    const retaken = await queues[1]!.claim('process-c', 100, now + 60_001, 60_000);
    assert.equal(retaken.length, total - 1, 'expired leases are claimed again, the done one is not');
    assert.ok(retaken.every((o) => o.attempts === 2));

    // A failure: pending again after the pause while attempts are left, then failed.
    const id = retaken[0]!.id;
    assert.equal(await queues[0]!.fail(id, 'process-c', 'bad answer', 3, now + 110_000, 3), 'pending');
    assert.equal((await queues[0]!.claim('process-a', 100, now + 105_000, 60_000)).length, 0, 'not before the pause');
    const third = await queues[0]!.claim('process-a', 100, now + 115_000, 60_000);
    assert.deepEqual(
      third.map((o) => [o.id, o.attempts]),
      [[id, 3]],
    );
    assert.equal(await queues[0]!.fail(id, 'process-a', 'bad answer again', 3, now + 300_000, 4), 'failed');
    assert.equal((await queues[0]!.list({ status: 'failed', limit: 10 }))[0]?.error, 'bad answer again');
    assert.equal(await queues[0]!.pendingCount(), total - 2);
    assert.equal(await queues[0]!.prune(5), 2, 'done and failed ones are pruned');
  });
});
