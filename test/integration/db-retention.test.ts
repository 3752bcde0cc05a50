/**
 * Message-log retention: on both engines the preview counts what a policy deletes and applying it
 * deletes exactly that, in short steps; through the console the token binds the previewed policy.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GroupMessage } from '../../src/domain/corpus.ts';
import { MessageRetention } from '../../src/store/message-retention.ts';
import { rows } from '../../src/sql/program.ts';
import { forEachEngine } from '../support/engines.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN } from '../unit/console/harness.ts';

const NOW = 1_800_000_000;
const DAY = 86_400;

/** 300 messages, one per hour going back 300 hours (12.5 days), oldest first. */
function messages(): GroupMessage[] {
  return Array.from({ length: 300 }, (_, i) => ({
    groupId: 1 + (i % 3),
    userId: 10 + i,
    botId: 99,
    rawMessage: `消息${i}`,
    isPlainText: true,
    plainText: `消息${i}`,
    keywords: `消息${i}`,
    time: NOW - (300 - i) * 3600,
    senderName: 'n',
    messageId: i,
    replyToMessageId: null,
  }));
}

forEachEngine((engine) => {
  it('preview counts what a policy deletes and apply deletes exactly that', async (t) => {
    const store = await engine.open(t);
    await store.messages.append(messages());
    const retention = new MessageRetention(store.engine);
    const weekOr200 = { days: 7, maxRows: 200 };
    const preview = await retention.preview(weekOr200, NOW);
    // Older than 7 days: hours 169..300 back = 132 rows; beyond the newest 200: 100 rows.
    assert.deepEqual(preview, { total_rows: 300, by_age: 132, by_rows: 100, to_delete: 132 });
    let progressCalls = 0;
    const deleted = await retention.apply(weekOr200, NOW, () => progressCalls++);
    assert.equal(deleted, 132);
    assert.ok(progressCalls >= 1);
    const left = await store.engine.run(() =>
      rows<{ n: number | string; oldest: number | string }>({
        sql: 'SELECT count(*) AS n, min(time) AS oldest FROM message',
        parameters: [],
      }),
    );
    assert.equal(Number(left[0]?.n), 168);
    assert.ok(Number(left[0]?.oldest) >= NOW - 7 * DAY);
    assert.equal(await retention.apply({ days: null, maxRows: 100 }, NOW), 68);
    assert.deepEqual(await retention.preview({ days: 1, maxRows: null }, NOW), {
      total_rows: 100,
      by_age: 76,
      by_rows: 0,
      to_delete: 76,
    });
  });
});

describe('retention through the console', () => {
  it('previews with a token bound to the policy, then applies it as a job', async (t) => {
    const h = await startHarness(t);
    await h.store.messages.append(
      messages().map((message) => ({ ...message, time: message.time - NOW + Math.floor(Date.now() / 1000) })),
    );
    const preview = dataOf<{ to_delete: number; confirm_token: string }>(
      await h.request('POST', '/db/retention/preview', { token: READ_TOKEN, body: { max_rows: 250 } }),
    );
    assert.equal(preview.to_delete, 50);
    const otherPolicy = await h.request('POST', '/db/retention/apply', {
      token: WRITE_TOKEN,
      body: { max_rows: 10, confirm_token: preview.confirm_token },
    });
    assert.equal(otherPolicy.status, 400, 'the token is for max_rows 250, not 10');
    const readOnly = await h.request('POST', '/db/retention/apply', {
      token: READ_TOKEN,
      body: { max_rows: 250, confirm_token: preview.confirm_token },
    });
    assert.equal(readOnly.status, 403);
    const started = dataOf<{ job_id: string }>(
      await h.request('POST', '/db/retention/apply', {
        token: WRITE_TOKEN,
        body: { max_rows: 250, confirm_token: preview.confirm_token },
      }),
    );
    for (;;) {
      const job = dataOf<{ phase: string; result: { deleted: number } | null }>(
        await h.request('GET', `/db/backup/jobs/${started.job_id}`, { token: READ_TOKEN }),
      );
      if (job.phase === 'done') {
        assert.equal(job.result?.deleted, 50);
        break;
      }
      assert.notEqual(job.phase, 'failed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Raw rows are stored messages: the read level is refused them (docs/rules.md#console-read-level).
    const refused = await h.request('GET', '/db/table-rows', { token: READ_TOKEN, query: { table: 'message' } });
    assert.equal(refused.status, 403);
    const page = dataOf<{ rows: { id: number; raw_message: string }[] }>(
      await h.request('GET', '/db/table-rows', { token: WRITE_TOKEN, query: { table: 'message', limit: '5' } }),
    );
    assert.equal(page.rows.length, 5);
    assert.ok(page.rows.every((row, i) => i === 0 || Number(row.id) > Number(page.rows[i - 1]?.id)));
    const tables = dataOf<{ name: string; rows: number }[]>(
      await h.request('GET', '/db/tables', { token: READ_TOKEN }),
    );
    assert.equal(tables.find((table) => table.name === 'message')?.rows, 250);
    const foreign = await h.request('GET', '/db/table-rows', { token: WRITE_TOKEN, query: { table: 'sqlite_master' } });
    assert.equal(foreign.status, 400);
    assert.match((foreign.json as { detail: string }).detail, /query\.table/);
    const empty = await h.request('POST', '/db/retention/preview', { token: READ_TOKEN, body: {} });
    assert.equal(empty.status, 400);
    assert.match((empty.json as { detail: string }).detail, /days, max_rows/);
  });
});

forEachEngine((engine) => {
  it("the overview counts each of Chorus's tables and sizes the database", async (t) => {
    const { CHORUS_TABLES, databaseOverview, tableRows } = await import('../../src/store/database-overview.ts');
    const store = await engine.open(t);
    await store.messages.append(messages().slice(0, 42));
    const file = engine.kind === 'sqlite' ? `${store.location.dataDir}/chorus.db` : null;
    const overview = await databaseOverview(store.engine, file);
    assert.equal(overview.engine, engine.kind);
    assert.ok(overview.bytes > 0);
    assert.equal(overview.tables.find((table) => table.name === 'message')?.rows, 42);
    assert.deepEqual(
      overview.tables.map((table) => table.name),
      [
        'context',
        'context_answer',
        'context_answer_message',
        'context_ban',
        'message',
        'blacklist',
        'bot_config',
        'activity_log',
        'change_feed',
        'reply_usage',
        'console_daily_stats',
        'group_config',
        'user_config',
        'chat_request',
        'message_claims',
        'repeater_decision',
        'agent_consent',
        'agent_person_fact',
        'agent_observation',
        'agent_catchphrase',
        'agent_task',
        'agent_chat_call',
      ],
    );
    // Every table can be paged, whatever its key (a table without `id` once failed here).
    for (const table of CHORUS_TABLES) {
      const page = await tableRows(store.engine, table, 0, 5);
      assert.ok(Array.isArray(page), table);
    }
    assert.equal((await tableRows(store.engine, 'message', 40, 5)).length, 2);
  });
});
