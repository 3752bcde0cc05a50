/**
 * The toolbox (src/agent/tools): the catalogue offered to the model, strict argument checks that
 * answer a short error instead of throwing, reminder bounds, the time parser, and no QQ number in
 * what a tool returns.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLog } from '../../../src/common/log.ts';
import type { Context } from '../../../src/domain/corpus.ts';
import { TOOL_NAMES } from '../../../src/agent/tools/catalogue.ts';
import { forModel } from '../../../src/agent/tools/for-model.ts';
import { parseWhen } from '../../../src/agent/tools/local-time.ts';
import { Toolbox } from '../../../src/agent/tools/toolbox.ts';
import type { ChatMember } from '../../../src/agent/tasks/reminders.ts';
import type { AgentTask, CreateOutcome } from '../../../src/store/agent-tasks-store.ts';

const NOW = new Date(2026, 4, 1, 8, 0, 0).getTime();
const CTX = { selfId: 10, groupId: 500, userId: 123456789, now: NOW };

function toolbox(options: { full?: boolean; context?: Context | null; topics?: string[] } = {}) {
  const created: { member: ChatMember; text: string; dueAt: number }[] = [];
  const box = new Toolbox({
    reminders: {
      create: async (member, text, dueAt): Promise<CreateOutcome> => {
        if (options.full) return { ok: false, reason: 'member_full' };
        created.push({ member, text, dueAt });
        const task = { id: 7, text, dueAt } as AgentTask;
        return { ok: true, task };
      },
    },
    corpus: { findByKeywordsForReply: async () => options.context ?? null },
    keywordsOf: (text) => text,
    recentTopics: () => options.topics ?? [],
    bannedIn: () => new Set(['banned']),
    log: silentLog,
  });
  return { box, created };
}

describe('toolbox', () => {
  it('offers the four tools with JSON Schema parameters', () => {
    const { box } = toolbox();
    const tools = box.tools({ selfId: 10, groupId: 500 });
    assert.deepEqual(
      tools.map((tool) => tool.name),
      [...TOOL_NAMES],
    );
    for (const tool of tools) {
      assert.equal(tool.parameters.type, 'object');
      assert.equal(tool.parameters.additionalProperties, false);
      assert.ok(tool.description.length > 20);
    }
  });

  it('answers bad calls with a short error, never a throw', async () => {
    const { box, created } = toolbox();
    const run = (name: string, args: string) => box.run(name, args, CTX);
    assert.match(await run('rm_rf', '{}'), /^error: unknown tool/);
    assert.equal(await run('create_reminder', '{"when": 30, "text": '), 'error: arguments are not valid JSON');
    assert.match(await run('create_reminder', '{"when": 30}'), /^error: arguments.*text.*required/);
    assert.match(
      await run('create_reminder', '{"when": 30, "text": "x", "qq": 1}'),
      /^error: arguments.*qq.*unknown field/,
    );
    assert.match(await run('create_reminder', `{"when": 30, "text": "${'长'.repeat(201)}"}`), /^error: arguments.text/);
    assert.match(
      await run('create_reminder', '{"when": "明天早上", "text": "喝水"}'),
      /^error: arguments.when: expected/,
    );
    assert.match(await run('create_reminder', '{"when": "2026-05-01T07:00", "text": "喝水"}'), /at least 1 minute/);
    assert.match(await run('create_reminder', '{"when": "2026-07-01T07:00", "text": "喝水"}'), /within 30 days/);
    assert.match(await run('create_reminder', '{"when": 0, "text": "喝水"}'), /^error: arguments.when/);
    assert.match(await run('create_reminder', '{"when": 30, "text": "   "}'), /^error: arguments.text: blank/);
    assert.match(await run('create_reminder', '{"when": 30, "text": "[CQ:at,qq=all] 开会"}'), /no CQ codes/);
    assert.match(await run('current_time', '[]'), /^error: arguments/);
    assert.match(await run('search_group_corpus', '{"phrase": ""}'), /^error: arguments.phrase/);
    assert.equal(created.length, 0, 'nothing was created by a bad call');
  });

  it('creates a reminder from minutes or a local time, and says when the member is full', async () => {
    const { box, created } = toolbox();
    assert.match(
      await box.run('create_reminder', '{"when": 30, "text": " 喝水 "}', CTX),
      /^ok: reminder #7 set for 2026-05-01 08:30/,
    );
    assert.match(await box.run('create_reminder', '{"when": "2026-05-02 09:15", "text": "开会"}', CTX), /^ok: /);
    assert.deepEqual(
      created.map((each) => [each.text, each.dueAt, each.member.userId, each.member.groupId]),
      [
        ['喝水', NOW + 30 * 60_000, 123456789, 500],
        ['开会', new Date(2026, 4, 2, 9, 15).getTime(), 123456789, 500],
      ],
    );
    const full = toolbox({ full: true });
    assert.match(
      await full.box.run('create_reminder', '{"when": 30, "text": "喝水"}', CTX),
      /^error: .*5 open reminders/,
    );
  });

  it("looks up the group's own replies, most used first, without banned ones or QQ numbers", async () => {
    const context: Context = {
      keywords: '早上好',
      time: 0,
      triggerCount: 3,
      clearTime: 0,
      bans: [{ keywords: 'banned-here', groupId: 500, reason: '', time: 0 }],
      answers: [
        { keywords: '早', groupId: 500, count: 2, time: 1, messages: ['早'] },
        { keywords: '好', groupId: 500, count: 9, time: 1, messages: ['[CQ:at,qq=987654321] 早上好呀'] },
        { keywords: 'elsewhere', groupId: 501, count: 50, time: 1, messages: ['别的群'] },
        { keywords: 'banned', groupId: 500, count: 20, time: 1, messages: ['禁用'] },
        { keywords: 'banned-here', groupId: 500, count: 20, time: 1, messages: ['本群禁用'] },
      ],
    };
    const { box } = toolbox({ context });
    const answer = JSON.parse(await box.run('search_group_corpus', '{"phrase": "早上好"}', CTX));
    assert.deepEqual(answer.replies, [
      { text: '@某人 早上好呀', count: 9 },
      { text: '早', count: 2 },
    ]);
  });

  it('counts recent topics and masks anything shaped like a QQ number', async () => {
    const { box } = toolbox({ topics: ['火锅', '周末', '火锅', '123456789', '火锅', '周末', '电影'] });
    const answer = JSON.parse(await box.run('recent_topics', '{"limit": 2}', CTX));
    assert.deepEqual(answer.topics, [
      { word: '火锅', count: 3 },
      { word: '周末', count: 2 },
    ]);
    assert.match(await box.run('current_time', '', CTX), /^now: 2026-05-01 08:00 星期五 \(UTC[+-]\d\d:\d\d\)$/);
    assert.equal(forModel('QQ 1234567890 说 [CQ:image,file=a.jpg]'), 'QQ *** 说 [图片]');
  });

  it('parses times: minutes, local, offsets, impossible days', () => {
    assert.equal(parseWhen(5, NOW), NOW + 300_000);
    assert.equal(parseWhen('45', NOW), NOW + 45 * 60_000);
    assert.equal(parseWhen('2026-05-01T09:30', NOW), new Date(2026, 4, 1, 9, 30).getTime());
    assert.equal(parseWhen('2026-05-01T09:30:00+08:00', NOW), Date.UTC(2026, 4, 1, 1, 30));
    assert.equal(parseWhen('2026-05-01T09:30Z', NOW), Date.UTC(2026, 4, 1, 9, 30));
    assert.equal(parseWhen('2026-02-30T09:30', NOW), null);
    assert.equal(parseWhen('2026-05-01T25:00', NOW), null);
    assert.equal(parseWhen('tomorrow', NOW), null);
  });
});
