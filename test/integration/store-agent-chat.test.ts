/**
 * The model-call ledger and the per-group model mode on SQLite and PostgreSQL (migration
 * 0014_s_chat): rows come back newest first, by group, paged by id; the day's totals count calls
 * made (not those refused by a budget or the concurrency limit) by group and by member; a group's
 * `agent_chat` mode is stored, read back, and NULL (the default) until set.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AgentChatLedgerStore, type LedgerEntry } from '../../src/store/agent-chat-ledger.ts';
import { ChatControlsStore } from '../../src/store/chat-controls-store.ts';
import { forEachEngine } from '../support/engines.ts';

const NOW = Date.UTC(2026, 10, 27, 12);

function entry(i: number, overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    at: NOW + i,
    selfId: 1,
    groupId: i % 2 === 0 ? 10 : 20,
    userId: 100 + (i % 3),
    role: 'chat',
    model: 'm',
    promptTokens: 10,
    completionTokens: 5,
    latencyMs: 120.4,
    outcome: 'ok',
    ...overrides,
  };
}

forEachEngine((engine) => {
  it('keeps every call, pages newest first, and sums the day by group and member', async (t) => {
    const store = await engine.open(t);
    const ledger = new AgentChatLedgerStore(store.engine);
    for (let i = 0; i < 6; i++) await ledger.add(entry(i));
    await ledger.add(entry(6, { outcome: 'over_budget', promptTokens: 0, completionTokens: 0 }));
    await ledger.add(entry(7, { outcome: 'timeout', promptTokens: 0, completionTokens: 0, groupId: 20 }));
    await ledger.add(entry(8, { at: NOW - 86_400_000 })); // yesterday

    const page = await ledger.page({ limit: 3 });
    assert.deepEqual(
      page.map((r) => [r.at - NOW, r.outcome]),
      [
        [-86_400_000, 'ok'],
        [7, 'timeout'],
        [6, 'over_budget'],
      ],
    );
    assert.equal(page[1]?.latencyMs, 120);
    const next = await ledger.page({ limit: 10, beforeId: page[2]!.id, groupId: 20 });
    assert.deepEqual(
      next.map((r) => r.at - NOW),
      [5, 3, 1],
    );

    const totals = await ledger.totalsSince(NOW);
    assert.equal(totals.calls, 7, 'six answers and a timeout; the refusal and yesterday do not count');
    assert.equal(totals.tokens, 90);
    assert.deepEqual(totals.byGroup.get(10), { calls: 3, tokens: 45 });
    assert.deepEqual(totals.byGroup.get(20), { calls: 4, tokens: 45 });
    assert.deepEqual(totals.byMember.get(101), { calls: 3, tokens: 30 });
    assert.deepEqual(await ledger.outcomesSince(NOW), { ok: 6, over_budget: 1, timeout: 1 });
    assert.equal(await ledger.count(), 9);
  });

  it("stores a group's model mode beside its other switches", async (t) => {
    const store = await engine.open(t);
    const controls = new ChatControlsStore(store.engine);
    assert.equal((await controls.putGroup(5, { learn: false }, 1)).agentChat, null);
    assert.equal((await controls.getGroup(5))?.agentChat, null);
    await controls.putGroup(5, { agentChat: 'silence' }, 2);
    const stored = await controls.getGroup(5);
    assert.equal(stored?.agentChat, 'silence');
    assert.equal(stored?.learn, false, 'a partial save keeps the other fields');
    await controls.putGroup(5, { agentChat: null }, 3);
    assert.equal((await controls.getGroup(5))?.agentChat, null);
  });
});
