/**
 * The agent platform's task and tool routes over HTTP (src/console/routes/agent-tasks.ts): the list
 * open first with the creator's QQ number at the write level only, filters, a cancel at the write
 * level recorded in the activity log, its coded 404 and 409, a read session refused, a bad body
 * naming its field, and the tools catalogue with its description codes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { TOOL_NAMES } from '../../src/agent/tools/catalogue.ts';
import { AgentTaskStore } from '../../src/store/agent-tasks-store.ts';
import { READ_TOKEN, startHarness, WRITE_TOKEN } from '../unit/console/harness.ts';

interface TaskBody {
  id: number;
  group_id: number;
  creator_user_id: number | null;
  status: string;
  text: string;
  due_at: number;
  cancelled_by: string;
}
/** A success answer's payload (docs/rules.md#console-envelope). */
const data = <T>(reply: { json: unknown }): T => (reply.json as { data: T }).data;

interface ListBody {
  items: TaskBody[];
  count: number;
  creators_hidden: boolean;
}

it('lists, cancels and describes the tools', async (t) => {
  const h = await startHarness(t);
  const tasks = new AgentTaskStore(h.store.engine);
  const now = Date.now();
  const bounds = { perGroup: 10, perMember: 10 };
  const make = async (groupId: number, text: string, dueAt: number) => {
    const made = await tasks.create(
      { selfId: 10, groupId, creatorUserId: 987654321, text, dueAt, createdAt: now },
      bounds,
    );
    assert.ok(made.ok);
    return made.task.id;
  };
  const later = await make(500, '开会', now + 7_200_000);
  const sooner = await make(500, '喝水', now + 600_000);
  const other = await make(501, '别的群', now + 600_000);

  const read = await h.request('GET', '/llm/agent-platform/tasks', { token: READ_TOKEN });
  assert.equal(read.status, 200, read.text);
  const readBody = data<ListBody>(read);
  assert.equal(readBody.creators_hidden, true);
  assert.ok(
    readBody.items.every((item) => item.creator_user_id === null),
    'no member number at the read level',
  );
  assert.ok(!read.text.includes('987654321'));

  const write = await h.request('GET', '/llm/agent-platform/tasks', { token: WRITE_TOKEN, query: { group_id: '500' } });
  const writeBody = data<ListBody>(write);
  assert.deepEqual(
    writeBody.items.map((item) => [item.id, item.creator_user_id]),
    [
      [sooner, 987654321],
      [later, 987654321],
    ],
  );
  assert.equal(writeBody.count, 2);

  const refused = await h.request('POST', '/llm/agent-platform/tasks/cancel', {
    token: READ_TOKEN,
    body: { task_id: sooner },
  });
  assert.equal(refused.status, 403);
  const missing = await h.request('POST', '/llm/agent-platform/tasks/cancel', {
    token: WRITE_TOKEN,
    body: { task_id: 999 },
  });
  assert.equal(missing.status, 404);
  assert.deepEqual((missing.json as { code: string; params: unknown }).code, 'agent_task_not_found');
  const bad = await h.request('POST', '/llm/agent-platform/tasks/cancel', { token: WRITE_TOKEN, body: { id: 1 } });
  assert.equal(bad.status, 400);
  assert.equal((bad.json as { code: string }).code, 'invalid_field');

  const cancel = await h.request('POST', '/llm/agent-platform/tasks/cancel', {
    token: WRITE_TOKEN,
    body: { task_id: sooner },
  });
  assert.equal(cancel.status, 200, cancel.text);
  assert.equal(data<{ task: TaskBody }>(cancel).task.status, 'cancelled');
  assert.equal(data<{ task: TaskBody }>(cancel).task.cancelled_by, 'console');
  const again = await h.request('POST', '/llm/agent-platform/tasks/cancel', {
    token: WRITE_TOKEN,
    body: { task_id: sooner },
  });
  assert.equal(again.status, 409);
  assert.deepEqual((again.json as { params: unknown }).params, { task_id: sooner, status: 'cancelled' });

  const logged = await h.request('GET', '/activity', { token: WRITE_TOKEN, query: { kind: 'agent_task_cancel' } });
  const entries = data<{ items: { group_id: number; actor: { kind: string }; params: Record<string, unknown> }[] }>(
    logged,
  ).items;
  assert.equal(entries.length, 1, logged.text);
  assert.equal(entries[0]?.group_id, 500);
  assert.equal(entries[0]?.actor.kind, 'console');
  assert.equal(entries[0]?.params.task_id, sooner);

  const open = await h.request('GET', '/llm/agent-platform/tasks', { token: READ_TOKEN, query: { status: 'open' } });
  assert.deepEqual(
    data<ListBody>(open)
      .items.map((item) => item.id)
      .sort(),
    [later, other].sort(),
  );
  const badStatus = await h.request('GET', '/llm/agent-platform/tasks', { token: READ_TOKEN, query: { status: 'x' } });
  assert.equal(badStatus.status, 400);

  const tools = await h.request('GET', '/llm/agent-platform/tools', { token: READ_TOKEN });
  assert.equal(tools.status, 200);
  const items = data<{ items: { name: string; description_code: string; parameters: { type: string } }[] }>(
    tools,
  ).items;
  assert.deepEqual(
    items.map((tool) => tool.name),
    [...TOOL_NAMES],
  );
  assert.ok(items.every((tool) => tool.description_code === `tool_${tool.name}` && tool.parameters.type === 'object'));
});
