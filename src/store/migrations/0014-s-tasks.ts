/**
 * Migration 0014_s_tasks: the agent platform's tasks (src/store/agent-tasks-store.ts,
 * docs/agent-tasks.md): a reminder the model created with a tool call, sent in its group at its
 * time, once. Times are unix milliseconds. `status` is open, done, cancelled or failed; a failed
 * task says why in `fail_reason` (a code the console words).
 */
import type { Kysely, Migration } from 'kysely';
import type { EngineKind } from '../../sql/engine.ts';

export function agentTasksMigration(kind: EngineKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const table = db.schema.createTable('agent_task');
      await (
        kind === 'sqlite'
          ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      )
        .addColumn('self_id', 'bigint', (c) => c.notNull())
        .addColumn('group_id', 'bigint', (c) => c.notNull())
        .addColumn('creator_user_id', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull().defaultTo('reminder'))
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('due_at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('done_at', 'bigint', (c) => c.notNull().defaultTo(0))
        // '' unless cancelled: 'chat' (the creator) or 'console'.
        .addColumn('cancelled_by', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('fail_reason', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      // The scheduler's poll: open tasks by due time.
      await db.schema.createIndex('ix_agent_task_status_due').on('agent_task').columns(['status', 'due_at']).execute();
      // A member's reminders in a group (the chat list, the per-member bound).
      await db.schema
        .createIndex('ix_agent_task_group_creator')
        .on('agent_task')
        .columns(['group_id', 'creator_user_id', 'status'])
        .execute();
    },
  };
}
