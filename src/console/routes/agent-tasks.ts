/**
 * The agent platform's tasks and tools (docs/agent-tasks.md#console): reminders the model created,
 * listed open first and cancellable (write level, recorded in the activity log), and the catalogue
 * of tools the model may call. A creator's QQ number is a member number (docs/rules.md#console-read-level):
 * the list names it at the write level only; a read session sees `creator_user_id: null`.
 */
import Type from 'typebox';
import { TOOL_CATALOGUE } from '../../agent/tools/catalogue.ts';
import { AGENT_TASK_STATUSES, type AgentTask } from '../../store/agent-tasks-store.ts';
import { requestActor } from '../activity.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import type { AgentTasksPort } from '../deps.ts';
import { conflict, notFound, unavailable } from '../errors.ts';

const tags = ['agent-platform'];
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Status = Type.Enum([...AGENT_TASK_STATUSES], {
  description: 'open, done (sent), cancelled or failed (fail_reason says why).',
});

const TaskItem = Type.Object({
  id: Type.Integer(),
  self_id: Type.Integer({ description: 'The bot account that sends it.' }),
  group_id: Type.Integer(),
  creator_user_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The member who asked for it; null for a read session (a member number needs the write level).',
  }),
  kind: Type.Literal('reminder'),
  text: Type.String(),
  due_at: Type.Integer({ description: 'Unix milliseconds.' }),
  status: Status,
  created_at: Type.Integer({ description: 'Unix milliseconds.' }),
  done_at: Type.Integer({ description: 'Unix milliseconds it was sent, cancelled or given up; 0 while open.' }),
  cancelled_by: Type.String({ description: "'chat' (its creator), 'console', or '' unless cancelled." }),
  fail_reason: Type.String({
    description: "Why it failed: late (more than 6 h overdue), guarded, banned, group_off, send_failed; '' otherwise.",
  }),
});

const ListQuery = Type.Object(
  {
    group_id: Type.Optional(Id),
    status: Type.Optional(Status),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Default 50.' })),
  },
  { additionalProperties: false },
);

const ToolItem = Type.Object({
  name: Type.String(),
  description: Type.String({ description: 'What the model reads.' }),
  description_code: Type.String({ description: 'The console words it as agent.tasks.<code> (zh, en).' }),
  parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the arguments.' }),
});

function taskView(task: AgentTask, showCreator: boolean) {
  return {
    id: task.id,
    self_id: task.selfId,
    group_id: task.groupId,
    creator_user_id: showCreator ? task.creatorUserId : null,
    kind: task.kind,
    text: task.text,
    due_at: task.dueAt,
    status: task.status,
    created_at: task.createdAt,
    done_at: task.doneAt,
    cancelled_by: task.cancelledBy,
    fail_reason: task.failReason,
  };
}

export function agentTaskRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const tasks = (): AgentTasksPort => {
    if (!ctx.deps.agentTasks) throw unavailable('agent_tasks_unavailable', {}, 'agent tasks are not wired here');
    return ctx.deps.agentTasks;
  };

  api.get(
    '/llm/agent-platform/tasks',
    {
      schema: {
        tags,
        summary: "The agent's reminder tasks: open ones first (soonest due), then the others, newest first",
        querystring: ListQuery,
        response: {
          200: Type.Object({
            items: Type.Array(TaskItem),
            count: Type.Integer(),
            creators_hidden: Type.Boolean({ description: 'True for a read session: creator_user_id is null.' }),
          }),
        },
      },
    },
    async (request) => {
      const { group_id: groupId, status, limit } = request.query;
      const items = await tasks().list({
        ...(groupId !== undefined ? { groupId } : {}),
        ...(status !== undefined ? { status } : {}),
        limit: limit ?? 50,
      });
      const showCreator = request.consoleAccess?.level === 'write';
      return {
        items: items.map((task) => taskView(task, showCreator)),
        count: items.length,
        creators_hidden: !showCreator,
      };
    },
  );

  api.post(
    '/llm/agent-platform/tasks/cancel',
    {
      config: { auth: 'write' },
      schema: {
        tags,
        summary:
          'Cancel an open reminder (recorded in the activity log); 404 when there is no such task, 409 when it ended',
        body: Type.Object({ task_id: Id }, { additionalProperties: false }),
        response: { 200: Type.Object({ task: TaskItem }) },
      },
    },
    async (request) => {
      const id = request.body.task_id;
      const outcome = await tasks().cancel(id, requestActor(request));
      if (outcome.kind === 'not_found') throw notFound('agent_task_not_found', { task_id: id }, `no task ${id}`);
      if (outcome.kind === 'not_open') {
        const status = outcome.task.status;
        throw conflict('agent_task_not_open', { task_id: id, status }, `task ${id} is ${status}, not open`);
      }
      return { task: taskView(outcome.task, true) };
    },
  );

  api.get(
    '/llm/agent-platform/tools',
    {
      schema: {
        tags,
        summary: 'The tools the model may call, with their argument schemas',
        response: { 200: Type.Object({ items: Type.Array(ToolItem), count: Type.Integer() }) },
      },
    },
    () => ({
      items: TOOL_CATALOGUE.map((tool) => ({
        name: tool.name,
        description: tool.description,
        description_code: tool.descriptionCode,
        parameters: tool.parameters as Record<string, unknown>,
      })),
      count: TOOL_CATALOGUE.length,
    }),
  );
}
